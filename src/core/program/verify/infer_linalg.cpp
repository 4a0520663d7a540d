// Type rules of rng_bit_generator, cholesky, triangular_solve and fft: the results the
// kernels' shape rules (kernels/random_bits.hpp, linalg_triangular.hpp, fft.hpp) infer.
#include "program/exec/attr_access.hpp"
#include "program/kernels/fft.hpp"
#include "program/kernels/linalg_triangular.hpp"
#include "program/kernels/random_bits.hpp"
#include "program/verify/type_rules.hpp"

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

void cholesky_types(const Op& op, const Module&) {
  expect_counts(op, 1, 1);
  const Type& a = operand_tensor(op, 0);
  expect_float_or_complex(op, a);
  const std::string problem = cholesky_problem(a.shape);
  if (!problem.empty()) op_error(op, problem + ", not " + type_to_string(a));
  expect_result_type(op, 0, a.dtype, a.shape);
}

void triangular_solve_types(const Op& op, const Module&) {
  expect_counts(op, 2, 1);
  const Type& a = operand_tensor(op, 0);
  const Type& b = operand_tensor(op, 1);
  expect_float_or_complex(op, a);
  if (a.dtype != b.dtype) {
    op_error(op, "operands must have one element type, not " + type_to_string(a) + " and " +
                     type_to_string(b));
  }
  const bool left_side = required_bool(op, "left_side");
  required_bool(op, "lower");
  required_bool(op, "unit_diagonal");
  required_attr(op, "transpose_a");
  const std::string name = attr_word(op, "transpose_a");
  if (!transpose_named(name)) op_error(op, "has an unknown transpose_a '" + name + "'");
  const std::string problem = triangular_solve_problem(a.shape, b.shape, left_side);
  if (!problem.empty()) {
    op_error(op, problem + ", not " + type_to_string(a) + " and " + type_to_string(b));
  }
  expect_result_type(op, 0, b.dtype, b.shape);
}

void fft_types(const Op& op, const Module&) {
  expect_counts(op, 1, 1);
  required_attr(op, "fft_type");
  const std::string name = attr_word(op, "fft_type");
  const auto type = fft_type_named(name);
  if (!type) op_error(op, "has an unknown fft_type " + quote_text(name));
  required_attr(op, "fft_length");
  const std::vector<int64_t> lengths = attr_ints(op, "fft_length");
  const std::string length_problem = fft_length_problem(lengths);
  if (!length_problem.empty()) op_error(op, length_problem);
  const Type& operand = operand_tensor(op, 0);
  const std::string problem = fft_problem(*type, operand.dtype, operand.shape, lengths);
  if (!problem.empty()) op_error(op, problem + ", not " + type_to_string(operand));
  const FftResultType result = fft_result_type(*type, operand.dtype, operand.shape, lengths);
  expect_result_type(op, 0, result.dtype, result.shape);
}

}  // namespace

std::vector<TypeRuleEntry> linalg_type_rules() {
  return {
      {"stablehlo.rng_bit_generator", rng_bit_generator_types},
      {"stablehlo.cholesky", cholesky_types},
      {"stablehlo.triangular_solve", triangular_solve_types},
      {"stablehlo.fft", fft_types},
  };
}

}  // namespace ndbuf::program
