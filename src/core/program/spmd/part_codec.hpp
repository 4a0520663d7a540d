// The parts of a collective as bytes, to cross to another rank: each part with its position in
// the group, the collective's signature and its tensors (element type, shape, dense row-major
// data). Decoding checks every length against what remains, so a damaged or foreign message is
// an error, never a read past its end.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "program/spmd/rendezvous.hpp"

namespace ndbuf::program {

using PlacedPart = std::pair<int, CollectivePart>;  // (position in the group, part)

std::string encode_parts(const std::vector<const PlacedPart*>& parts);
// Throws kDevice on a malformed message (`from` names its sender in the error).
std::vector<PlacedPart> decode_parts(const std::string& bytes, const std::string& from);

}  // namespace ndbuf::program
