// The interpreter test dialect: check.expect_eq / expect_almost_eq / expect_close (and the
// _const forms). The type rules match the operands' types; a failed check is an error naming the
// check, the first differing element's index and both values.
#include <cmath>
#include <complex>
#include <cstdio>
#include <cstring>

#include "ndbuf/memory/transfer.hpp"
#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/elementwise/elementwise.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {
namespace {

enum class CheckKind { kEqual, kAlmost, kUlp };

struct Check {
  std::string name;
  CheckKind kind;
  double tolerance;  // kAlmost: |a - b| <= tolerance * max(1, |expected|); kUlp: max ULPs
};

std::string format_real(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

template <class T>
std::string format_value(T v) {
  if constexpr (kIsNarrowFloat<T>) {
    return format_real(to_double(v));
  } else if constexpr (std::is_floating_point_v<T>) {
    return format_real(v);
  } else if constexpr (std::is_integral_v<T>) {
    return std::to_string(v);
  } else {
    return "(" + format_real(v.real()) + ", " + format_real(v.imag()) + ")";
  }
}

// A float's bit pattern as an integer that orders like the values (-0 and +0 coincide), so
// the distance between two of them counts the representable values between: ULPs.
template <class T>
int64_t ordered_bits(T value) {
  constexpr size_t kBits = 8 * sizeof(T);
  uint64_t bits = 0;
  std::memcpy(&bits, &value, sizeof(T));
  const uint64_t sign = uint64_t{1} << (kBits - 1);
  const auto magnitude = static_cast<int64_t>(bits & (sign - 1));
  return (bits & sign) != 0 ? -magnitude : magnitude;
}

template <class T>
double ulp_distance(T a, T b) {
  const int64_t x = ordered_bits(a);
  const int64_t y = ordered_bits(b);
  return static_cast<double>(x > y ? x - y : y - x);
}

bool close_real(double a, double b, const Check& check) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (a == b) return true;
  if (check.kind == CheckKind::kEqual) return false;
  return std::fabs(a - b) <= check.tolerance * std::max(1.0, std::fabs(b));
}

template <class T>
bool element_matches(T a, T b, const Check& check) {
  if constexpr (!std::is_integral_v<T> && sizeof(T) <= 8 &&
                !std::is_same_v<T, std::complex<float>>) {
    if (check.kind == CheckKind::kUlp) return ulp_distance(a, b) <= check.tolerance;
  }
  if constexpr (kIsNarrowFloat<T>) {
    return close_real(to_double(a), to_double(b), check);
  } else if constexpr (std::is_floating_point_v<T>) {
    return close_real(a, b, check);
  } else if constexpr (std::is_integral_v<T>) {
    return a == b;
  } else {
    return close_real(a.real(), b.real(), check) && close_real(a.imag(), b.imag(), check);
  }
}

std::string index_text(int64_t flat, const Shape& shape) {
  std::vector<int64_t> index(shape.size());
  for (size_t k = shape.size(); k-- > 0;) {
    index[k] = flat % shape[k];
    flat /= shape[k];
  }
  return shape_to_tuple(index);
}

void run_check(const Check& check, const Tensor& actual, const Tensor& expected) {
  if (is_program_only(actual.dtype())) {  // compared as the doubles they are exactly
    run_check(check, convert(actual, DType::kF64), convert(expected, DType::kF64));
    return;
  }
  const Tensor a = make_dense(actual, Order::kRowMajor);
  const Tensor e = make_dense(expected, Order::kRowMajor);
  dispatch(a.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* x = static_cast<const T*>(a.data());
    const T* y = static_cast<const T*>(e.data());
    for (int64_t k = 0; k < a.numel(); ++k) {
      if (element_matches(x[k], y[k], check)) continue;
      fail(ErrorKind::kInvalidArgument,
           check.name + " failed at index " + index_text(k, a.shape()) + ": got " +
               format_value(x[k]) + ", expected " + format_value(y[k]));
    }
  });
}

// The check rules have counted the operands and matched their types (or the expected value's).
OpFn build_check(const Op& op, CheckKind kind, bool constant, double default_tolerance) {
  const std::string key = kind == CheckKind::kUlp ? "max_ulp_difference" : "tolerance";
  Check check{op.name, kind, attr_number_or(op, key, default_tolerance)};
  if (constant) {
    const Tensor value = *required_attr(op, "expected").dense;
    return [check, value](Interpreter&, const Values& a) -> Values {
      run_check(check, a[0].get(), value);
      return {};
    };
  }
  return [check](Interpreter&, const Values& a) -> Values {
    run_check(check, a[0].get(), a[1].get());
    return {};
  };
}

// Default tolerance of expect_almost_eq: relative 1e-4 (absolute for values below 1).
constexpr double kAlmostTolerance = 1e-4;

}  // namespace

void check_pair_types(const Op& op, const Module&) {
  if (op.operands.size() != 2 || !op.result_types.empty()) {
    op_error(op, "takes 2 operand(s) and gives no result");
  }
  const Type& actual = operand_tensor(op, 0);
  if (operand_tensor(op, 1) != actual) op_error(op, "operands must have the same type");
}

void check_const_types(const Op& op, const Module&) {
  if (op.operands.size() != 1 || !op.result_types.empty()) {
    op_error(op, "takes 1 operand(s) and gives no result");
  }
  const Type& actual = operand_tensor(op, 0);
  const Attribute& expected = required_attr(op, "expected");
  if (!expected.dense || expected.type != actual) {
    op_error(op, "expected value must have the operand's type");
  }
}

OpFn build_expect_eq(const Op& op, const Planning&) {
  return build_check(op, CheckKind::kEqual, false, 0);
}

OpFn build_expect_eq_const(const Op& op, const Planning&) {
  return build_check(op, CheckKind::kEqual, true, 0);
}

OpFn build_expect_almost_eq(const Op& op, const Planning&) {
  return build_check(op, CheckKind::kAlmost, false, kAlmostTolerance);
}

OpFn build_expect_almost_eq_const(const Op& op, const Planning&) {
  return build_check(op, CheckKind::kAlmost, true, kAlmostTolerance);
}

OpFn build_expect_close(const Op& op, const Planning&) {
  return build_check(op, CheckKind::kUlp, false, 1);
}

}  // namespace ndbuf::program
