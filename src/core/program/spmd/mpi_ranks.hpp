// The transport between ranks over MPI (Debian: libopenmpi-dev), where the library was built
// with it (NDBUF_HAVE_MPI). A gather over every rank runs as MPI's own MPI_Iallgather, a fold
// over every rank as a ring of point-to-point messages into memory of our own (mpi_ranks.cpp
// says why), other exchanges as point-to-point messages. Every wait polls
// with a deadline, so a rank that died or never comes is an error, not a hang; after such an
// error the ranks cannot exchange again (MPI cannot cancel a collective) and every later call
// says so.
#pragma once

#include <memory>

#include "program/spmd/remote_ranks.hpp"

namespace ndbuf::program {

// Built with MPI.
bool mpi_built_in();
// MPI_COMM_WORLD as a transport. MPI already initialised in this process (by pbdMPI, Rmpi or
// another library) is shared and left for its owner to finalise; otherwise MPI is initialised
// here and finalised by finalize_mpi(). Throws kDevice when built without MPI.
std::unique_ptr<RemoteRanks> connect_mpi();
// Ends MPI where connect_mpi() started it and no exchange failed (a failed one may never end).
void finalize_mpi();

}  // namespace ndbuf::program
