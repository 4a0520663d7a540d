// stablehlo.rng_bit_generator over ops/random/random_bits.hpp: the type rule checks the algorithm,
// the state and the bits' type; the builder binds the kernel.
#include <string>

#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/random/random_bits.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {

// The new state has the old state's type; the bits' type is declared, within what the
// algorithm can give.
void rng_bit_generator_types(const Op& op, const Module&) {
  expect_counts(op, 1, 2);
  const std::string name = attr_word(op, "rng_algorithm");
  const auto algorithm = rng_algorithm_named(name);
  if (!algorithm) op_error(op, "has an unknown rng_algorithm '" + name + "'");
  const Type& state = operand_tensor(op, 0);
  if (state.dtype != DType::kU64 || state.shape.size() != 1) {
    op_error(op, "initial state " + type_to_string(state) + " must be a 1-d ui64 tensor");
  }
  const Type& output = result_tensor(op, 1);
  if (const char* why = rng_problem(*algorithm, state.shape[0], output.dtype)) {
    op_error(op, std::string("cannot give ") + type_to_string(output) + " from " +
                     type_to_string(state) + ": " + why);
  }
  expect_result_type(op, 0, state.dtype, state.shape);
}

// rng_bit_generator_types has checked the algorithm, the state and the bits' type.
OpFn build_rng_bit_generator(const Op& op, const Planning&) {
  const RngAlgorithm algorithm = *rng_algorithm_named(attr_word(op, "rng_algorithm"));
  const Type& output = result_tensor(op, 1);
  const DType dtype = output.dtype;
  const Shape shape = output.shape;
  return [algorithm, dtype, shape](Interpreter&, const Values& args) -> Values {
    RandomBits r = rng_bit_generator(algorithm, args[0].get(), dtype, shape);
    return {Value(std::move(r.state)), Value(std::move(r.bits))};
  };
}

}  // namespace ndbuf::program
