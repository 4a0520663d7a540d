// Reading op attributes at plan time, with errors that name the op, the attribute and where.
#pragma once

#include <string>
#include <vector>

#include "program/ir/module.hpp"

namespace ndbuf::program {

const Attribute& required_attr(const Op& op, const std::string& key);
// array<i64: ...>, [..] or a 1-d integer dense<...>; `fallback` when absent and not required.
std::vector<int64_t> attr_ints(const Op& op, const std::string& key);
std::vector<int64_t> attr_ints_or(const Op& op, const std::string& key,
                                  std::vector<int64_t> fallback);
int64_t attr_int(const Op& op, const std::string& key);
int64_t attr_int_or(const Op& op, const std::string& key, int64_t fallback);
bool attr_bool_or(const Op& op, const std::string& key, bool fallback);
double attr_number_or(const Op& op, const std::string& key, double fallback);
// The value of an enum (#stablehlo<kind VALUE> or a bare VALUE); "" when absent.
std::string attr_word(const Op& op, const std::string& key);
// Integers of a structure field (#stablehlo.gather<offset_dims = [..]>); empty when absent.
std::vector<int64_t> field_ints(const Op& op, const Attribute& s, const std::string& key);

// Errors about an op: "line:col: 'name' message".
[[noreturn]] void op_error(const Op& op, const std::string& message);
// The tensor type of operand / result k (an error if it is a tuple or missing).
const Type& operand_tensor(const Op& op, size_t k);
const Type& result_tensor(const Op& op, size_t k);
void expect_counts(const Op& op, size_t operands, size_t results);
// "element types differ: A and B" unless `a` and `b` share one element type.
void expect_same_dtype(const Op& op, const Type& a, const Type& b);
void expect_result_shape(const Op& op, const Shape& shape);
// Result k must be tensor<shape x dtype>: "result type A should be B" (results numbered when
// the op has several).
void expect_result_type(const Op& op, size_t k, DType dtype, const Shape& shape);
// A region's block arguments and what its terminator returns must be exactly `types`; the
// errors carry the region's / the terminator's line:column.
void expect_region_args(const Op& op, const Region& region, const std::vector<Type>& types);
void expect_region_returns(const Op& op, const Region& region, const std::vector<Type>& types);
// 0-d tensor types of these element types.
std::vector<Type> scalar_types(const std::vector<DType>& dtypes);
// Runs a kernel-side rule at plan time, turning its error into one with the op's location
// (a user interrupt or a failed allocation passes through as it is).
template <class F>
auto at_op(const Op& op, F f) {
  try {
    return f();
  } catch (const Error& e) {
    if (e.kind() == ErrorKind::kInterrupted || e.kind() == ErrorKind::kOutOfMemory) throw;
    fail_at(op.loc, std::string("'") + op.name + "' " + e.what());
  }
}
// The rows of a 2-d integer dense<...> attribute (replica_groups); empty when absent.
std::vector<std::vector<int64_t>> attr_int_rows(const Op& op, const std::string& key);
// A dense<[[lo, hi], ...]> : tensor<Nx2xi64> padding attribute; `rank` zero pairs if absent.
std::vector<std::pair<int64_t, int64_t>> attr_padding(const Op& op, const std::string& key,
                                                      size_t rank);

// Each value in [0, bound), all distinct when `distinct`.
void check_axes(const Op& op, const std::string& what, const std::vector<int64_t>& axes,
                int64_t bound, bool distinct);

}  // namespace ndbuf::program
