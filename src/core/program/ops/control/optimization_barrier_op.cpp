// stablehlo.optimization_barrier: its operands unchanged (there are no optimisations here to
// bar). The type rule checks that the results have the operands' types.
#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {

void optimization_barrier_types(const Op& op, const Module&) {
  if (op.operand_types != op.result_types) op_error(op, "results must have the operand types");
}

OpFn build_optimization_barrier(const Op&, const Planning&) {
  return [](Interpreter&, const Values& a) -> Values { return a; };
}

}  // namespace ndbuf::program
