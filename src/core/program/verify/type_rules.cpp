// An op's type rule is a column of its row in the op table.
#include "program/verify/type_rules.hpp"

#include "program/registry/op_registry.hpp"

namespace ndbuf::program {

TypeRule find_type_rule(OpId id) { return id == OpId::kUnknown ? nullptr : op_row(id).rule; }

}  // namespace ndbuf::program
