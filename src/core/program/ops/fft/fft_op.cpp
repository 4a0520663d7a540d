// stablehlo.fft over ops/fft/fft.hpp: the type rule decodes fft_type and fft_length, checks
// the operand and infers the result type; the builder binds the kernel.
#include <string>

#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/fft/fft.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {

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

// fft_types has checked the attributes and the operand.
OpFn build_fft(const Op& op, const Planning&) {
  const FftType type = *fft_type_named(attr_word(op, "fft_type"));
  const std::vector<int64_t> lengths = attr_ints(op, "fft_length");
  return tensor_fn([type, lengths](const Values& v) { return fft(v[0].get(), type, lengths); });
}

}  // namespace ndbuf::program
