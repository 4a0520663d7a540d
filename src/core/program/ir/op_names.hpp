// The ops this runtime runs, and those it knows but defers (named in their error).
#pragma once

#include <string>
#include <vector>

namespace ndbuf::program {

// "func.return", "return", "stablehlo.return" -> "return"; "call" -> "func.call".
std::string canonical_op_name(const std::string& name);
// True for every op section 3 of the program contract lists (and the check dialect).
bool is_supported_op(const std::string& name);
// Every name is_supported_op() accepts, in the table's order.
std::vector<std::string> supported_op_names();

}  // namespace ndbuf::program
