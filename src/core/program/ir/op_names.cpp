// The names of the supported ops, in one place for the parser and the planner.
#include "program/ir/op_names.hpp"

#include <iterator>
#include <string>
#include <unordered_set>

namespace ndbuf::program {
namespace {

// The table itself: one op name a row, grouped by kind.
constexpr const char* kSupportedOps[] = {
    "return",
    "func.call",
    // structure and data movement
    "stablehlo.constant",
    "stablehlo.iota",
    "stablehlo.convert",
    "stablehlo.bitcast_convert",
    "stablehlo.reshape",
    "stablehlo.broadcast_in_dim",
    "stablehlo.transpose",
    "stablehlo.slice",
    "stablehlo.dynamic_slice",
    "stablehlo.dynamic_update_slice",
    "stablehlo.concatenate",
    "stablehlo.pad",
    "stablehlo.reverse",
    "stablehlo.get_tuple_element",
    "stablehlo.tuple",
    "stablehlo.optimization_barrier",
    // element-wise
    "stablehlo.add",
    "stablehlo.subtract",
    "stablehlo.multiply",
    "stablehlo.divide",
    "stablehlo.remainder",
    "stablehlo.power",
    "stablehlo.maximum",
    "stablehlo.minimum",
    "stablehlo.negate",
    "stablehlo.abs",
    "stablehlo.sign",
    "stablehlo.exponential",
    "stablehlo.exponential_minus_one",
    "stablehlo.log",
    "stablehlo.log_plus_one",
    "stablehlo.logistic",
    "stablehlo.sqrt",
    "stablehlo.rsqrt",
    "stablehlo.cbrt",
    "stablehlo.tanh",
    "stablehlo.tan",
    "stablehlo.sine",
    "stablehlo.cosine",
    "stablehlo.atan2",
    "stablehlo.floor",
    "stablehlo.ceil",
    "stablehlo.round_nearest_even",
    "stablehlo.round_nearest_afz",
    "stablehlo.is_finite",
    "stablehlo.not",
    "stablehlo.and",
    "stablehlo.or",
    "stablehlo.xor",
    "stablehlo.shift_left",
    "stablehlo.shift_right_arithmetic",
    "stablehlo.shift_right_logical",
    "stablehlo.popcnt",
    "stablehlo.count_leading_zeros",
    "stablehlo.clamp",
    "stablehlo.select",
    "stablehlo.compare",
    "stablehlo.real",
    "stablehlo.imag",
    "stablehlo.complex",
    "stablehlo.reduce_precision",
    "chlo.erf",
    "chlo.erfc",
    "chlo.erf_inv",
    "chlo.lgamma",
    "chlo.digamma",
    "chlo.square",
    "chlo.sinh",
    "chlo.cosh",
    "chlo.asin",
    "chlo.acos",
    "chlo.atan",
    "chlo.asinh",
    "chlo.acosh",
    "chlo.atanh",
    "chlo.is_inf",
    "chlo.is_pos_inf",
    "chlo.is_neg_inf",
    "chlo.tan",
    "chlo.bessel_i1e",
    "chlo.conj",
    "chlo.polygamma",
    "chlo.zeta",
    "chlo.next_after",
    "chlo.constant_like",
    "chlo.mulhi",
    "chlo.broadcast_compare",
    "chlo.broadcast_select",
    "chlo.broadcast_add",
    "chlo.broadcast_atan2",
    "chlo.broadcast_divide",
    "chlo.broadcast_maximum",
    "chlo.broadcast_minimum",
    "chlo.broadcast_multiply",
    "chlo.broadcast_next_after",
    "chlo.broadcast_polygamma",
    "chlo.broadcast_power",
    "chlo.broadcast_remainder",
    "chlo.broadcast_shift_left",
    "chlo.broadcast_shift_right_arithmetic",
    "chlo.broadcast_shift_right_logical",
    "chlo.broadcast_subtract",
    "chlo.broadcast_zeta",
    "chlo.broadcast_and",
    "chlo.broadcast_or",
    "chlo.broadcast_xor",
    "chlo.broadcast_complex",
    // reductions and contractions
    "stablehlo.reduce",
    "stablehlo.reduce_window",
    "stablehlo.select_and_scatter",
    "stablehlo.dot_general",
    "stablehlo.dot",
    "stablehlo.convolution",
    // control flow
    "stablehlo.while",
    "stablehlo.if",
    "stablehlo.case",
    "stablehlo.map",
    // indexing and ordering
    "stablehlo.gather",
    "stablehlo.scatter",
    "stablehlo.sort",
    "chlo.top_k",
    // calls of registered targets (program/custom)
    "stablehlo.custom_call",
    // linear algebra and random bits
    "stablehlo.cholesky",
    "stablehlo.triangular_solve",
    "stablehlo.rng_bit_generator",
    // Fourier transforms
    "stablehlo.fft",
    // the interpreter's test dialect
    "check.expect_eq",
    "check.expect_eq_const",
    "check.expect_almost_eq",
    "check.expect_almost_eq_const",
    "check.expect_close",
};

const std::unordered_set<std::string>& supported_ops() {
  static const std::unordered_set<std::string> kOps(std::begin(kSupportedOps),
                                                    std::end(kSupportedOps));
  return kOps;
}

}  // namespace

std::string canonical_op_name(const std::string& name) {
  if (name == "func.return" || name == "stablehlo.return") return "return";
  if (name == "call") return "func.call";
  return name;
}

bool is_supported_op(const std::string& name) { return supported_ops().count(name) > 0; }

std::vector<std::string> supported_op_names() {
  return {std::begin(kSupportedOps), std::end(kSupportedOps)};
}

}  // namespace ndbuf::program
