// The ops this runtime runs, by name. Both answers come from the op table
// (program/registry/ops.def); defined in registry/op_registry.cpp.
#pragma once

#include <string>
#include <vector>

#include "program/ir/op_id.hpp"

namespace ndbuf::program {

// Aliases to their canonical names ("func.return", "stablehlo.return" -> "return"; "call" ->
// "func.call"; "chlo.tan" -> "stablehlo.tan"); any other name as it is.
std::string canonical_op_name(const std::string& name);
// True for every op with a row in the table (section 3 of the program contract and the check
// dialect).
bool is_supported_op(const std::string& name);
// Every name is_supported_op() accepts, in the table's order.
std::vector<std::string> supported_op_names();
// The id of a canonical name, OpId::kUnknown for a name the table does not have.
OpId op_id(const std::string& name);

}  // namespace ndbuf::program
