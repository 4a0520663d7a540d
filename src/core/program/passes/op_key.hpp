// Equality of ops for common-subexpression elimination (canonicalise.hpp): same op, operands,
// attributes (locations aside) and result types. The hash agrees with the equality; a large
// dense constant is not keyed at all (comparing its bytes costs more than it saves).
#pragma once

#include <cstddef>
#include <optional>

#include "program/ir/module.hpp"

namespace ndbuf::program {

// The hash of `op` for equal_ops(), or nullopt when the op is not to be merged.
std::optional<size_t> op_hash(const Op& op);
bool equal_ops(const Op& a, const Op& b);

}  // namespace ndbuf::program
