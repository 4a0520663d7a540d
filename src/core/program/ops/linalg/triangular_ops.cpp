// cholesky and triangular_solve over ops/linalg/linalg_triangular.hpp: the type rules check the
// operands and the attributes, the builders decode the options and bind the kernels.
#include <string>

#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ir/pass_attrs.hpp"
#include "program/ops/linalg/linalg_triangular.hpp"
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

}  // namespace

void cholesky_types(const Op& op, const Module&) {
  expect_counts(op, 1, 1);
  const Type& a = operand_tensor(op, 0);
  expect_float_or_complex(op, a);
  const std::string problem = cholesky_problem(a.shape);
  if (!problem.empty()) op_error(op, problem + ", not " + type_to_string(a));
  expect_result_type(op, 0, a.dtype, a.shape);
}

OpFn build_cholesky(const Op& op, const Planning&) {
  const bool lower = attr_bool_or(op, "lower", false);
  const bool masked = attr_bool_or(op, kMaskedFactorAttr, false);
  return tensor_fn(
      [lower, masked](const Values& v) { return cholesky(v[0].get(), lower, masked); });
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

// triangular_solve_types has checked that every option is present and valid.
OpFn build_triangular_solve(const Op& op, const Planning&) {
  TriangularSolveOptions o;
  o.left_side = attr_bool_or(op, "left_side", false);
  o.lower = attr_bool_or(op, "lower", false);
  o.unit_diagonal = attr_bool_or(op, "unit_diagonal", false);
  o.transpose_a = *transpose_named(attr_word(op, "transpose_a"));
  return tensor_fn([o](const Values& v) { return triangular_solve(v[0].get(), v[1].get(), o); });
}

}  // namespace ndbuf::program
