// Builders of rng_bit_generator, cholesky and triangular_solve over kernels/random_bits.hpp
// and kernels/linalg_triangular.hpp: attributes decoded and result types checked at compile time.
#include <string>

#include "program/exec/attr_access.hpp"
#include "program/exec/builders.hpp"
#include "program/kernels/linalg_triangular.hpp"
#include "program/kernels/random_bits.hpp"

namespace ndbuf::program {
namespace {

void expect_float_or_complex(const Op& op, const Type& t) {
  if (!is_floating(t.dtype) && !is_complex(t.dtype)) {
    op_error(op, "operand " + type_to_string(t) + " must have a float or complex element type");
  }
}

bool required_bool(const Op& op, const std::string& key) {
  required_attr(op, key);
  return attr_bool_or(op, key, false);
}

}  // namespace

OpFn build_rng_bit_generator(const Op& op, const Planning&) {
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
  const RngAlgorithm a = *algorithm;
  const DType dtype = output.dtype;
  const Shape shape = output.shape;
  return [a, dtype, shape](Interpreter&, const Values& args) -> Values {
    RandomBits r = rng_bit_generator(a, args[0].get(), dtype, shape);
    return {Value(std::move(r.state)), Value(std::move(r.bits))};
  };
}

OpFn build_cholesky(const Op& op, const Planning&) {
  expect_counts(op, 1, 1);
  const Type& a = operand_tensor(op, 0);
  expect_float_or_complex(op, a);
  const std::string problem = cholesky_problem(a.shape);
  if (!problem.empty()) op_error(op, problem + ", not " + type_to_string(a));
  expect_result_type(op, 0, a.dtype, a.shape);
  const bool lower = attr_bool_or(op, "lower", false);
  return tensor_fn([lower](const Values& v) { return cholesky(v[0].get(), lower); });
}

OpFn build_triangular_solve(const Op& op, const Planning&) {
  expect_counts(op, 2, 1);
  const Type& a = operand_tensor(op, 0);
  const Type& b = operand_tensor(op, 1);
  expect_float_or_complex(op, a);
  if (a.dtype != b.dtype) {
    op_error(op, "operands must have one element type, not " + type_to_string(a) + " and " +
                     type_to_string(b));
  }
  TriangularSolveOptions o;
  o.left_side = required_bool(op, "left_side");
  o.lower = required_bool(op, "lower");
  o.unit_diagonal = required_bool(op, "unit_diagonal");
  required_attr(op, "transpose_a");
  const std::string name = attr_word(op, "transpose_a");
  const auto transpose = transpose_named(name);
  if (!transpose) op_error(op, "has an unknown transpose_a '" + name + "'");
  o.transpose_a = *transpose;
  const std::string problem = triangular_solve_problem(a.shape, b.shape, o.left_side);
  if (!problem.empty()) {
    op_error(op, problem + ", not " + type_to_string(a) + " and " + type_to_string(b));
  }
  expect_result_type(op, 0, b.dtype, b.shape);
  return tensor_fn([o](const Values& v) { return triangular_solve(v[0].get(), v[1].get(), o); });
}

}  // namespace ndbuf::program
