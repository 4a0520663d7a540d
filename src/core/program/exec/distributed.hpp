// The ranks this process runs with (init_distributed() of ndbuf/program/program.hpp): the
// transport between them and how many devices each runs, shared by every execution.
#pragma once

#include <memory>

#include "ndbuf/program/program.hpp"
#include "program/spmd/rendezvous.hpp"

namespace ndbuf::program {

// The spread of a grid of `processes` over the ranks, when the ranks run that many in all and
// init_distributed() has connected them; a spread with no transport otherwise.
RankSpread distributed_spread(int processes);

// Connects through `remote` (MPI, or a test's own transport) with `local_devices` here: the
// ranks tell each other their device counts.
DistributedInfo connect_ranks(std::unique_ptr<RemoteRanks> remote, int local_devices,
                              const WaitLimit& limit);

// Every rank compiled the program whose fingerprint is `fingerprint` (the first run of an
// executable asks): an error naming the ranks that did not.
void check_same_program(const RankSpread& spread, uint64_t fingerprint, const WaitLimit& limit);

}  // namespace ndbuf::program
