// compare (every direction and compare_type), select and clamp.
#include <complex>
#include <string>
#include <type_traits>

#include "ndbuf/base/error.hpp"
#include "program/kernels/result_memory.hpp"
#include "program/ops/elementwise/elementwise.hpp"
#include "program/ops/elementwise/elementwise_loop.hpp"
#include "program/ops/elementwise/elementwise_scalar.hpp"

namespace ndbuf::program {
namespace {

using detail::Compute;
using detail::Operand;

template <class F>
Tensor compare_with(CompareDirection direction, const Tensor& a, const Tensor& b, F compare3) {
  // compare3(u, v, direction-specific functor) keeps one loop per direction.
  switch (direction) {
    case CompareDirection::kEQ:
      return compare3(a, b, [](auto u, auto v) { return u == v; });
    case CompareDirection::kNE:
      return compare3(a, b, [](auto u, auto v) { return u != v; });
    case CompareDirection::kGE:
      return compare3(a, b, [](auto u, auto v) { return u >= v; });
    case CompareDirection::kGT:
      return compare3(a, b, [](auto u, auto v) { return u > v; });
    case CompareDirection::kLE:
      return compare3(a, b, [](auto u, auto v) { return u <= v; });
    case CompareDirection::kLT:
      break;
  }
  return compare3(a, b, [](auto u, auto v) { return u < v; });
}

// Lexicographic (real, imag) comparison: equal real parts defer to the imaginary parts. With
// FLOAT semantics a NaN part makes every direction but NE false.
template <class R, class Rel>
bool complex_relation(const std::complex<R>& u, const std::complex<R>& v, Rel rel, bool is_ne) {
  if (is_ne) return u.real() != v.real() || u.imag() != v.imag();
  if (u.real() == v.real()) return rel(u.imag(), v.imag());
  return rel(u.real(), v.real());  // unequal (or NaN) real parts decide alone
}

template <class T>
Tensor compare_typed(CompareDirection direction, CompareType type, const Tensor& a, const Tensor& b,
                     ResultMemory& memory) {
  const auto run = [&](const Tensor& x, const Tensor& y, auto rel) {
    if constexpr (detail::kIsComplex<T>) {
      const bool is_ne = direction == CompareDirection::kNE;
      return detail::map_binary<uint8_t, T>(x, y, DType::kPred, memory, [rel, is_ne](T u, T v) {
        return complex_relation(u, v, rel, is_ne);
      });
    } else if constexpr (detail::kIsFloat<T>) {
      if (type == CompareType::kTotalOrder) {
        return detail::map_binary<uint8_t, T>(x, y, DType::kPred, memory, [rel](auto u, auto v) {
          return rel(detail::total_order_key(u), detail::total_order_key(v));
        });
      }
      return detail::map_binary<uint8_t, T>(x, y, DType::kPred, memory, rel);
    } else {
      return detail::map_binary<uint8_t, T>(x, y, DType::kPred, memory, rel);
    }
  };
  return compare_with(direction, a, b, run);
}

void check_pred(const char* op, const char* what, const Tensor& t) {
  if (t.dtype() != DType::kPred) {
    fail(ErrorKind::kInvalidArgument, std::string(op) + " needs a pred " + what + ", not " +
                                          std::string(dtype_name(t.dtype())) + ".");
  }
}

// A bound of clamp or the predicate of select: of the operand's shape, or 0-d (broadcast).
void check_shape_or_scalar(const char* op, const char* what, const Tensor& t, const Shape& shape) {
  if (t.rank() != 0 && t.shape() != shape) {
    fail(ErrorKind::kInvalidArgument, std::string(op) + " needs " + what + " of shape " +
                                          shape_to_tuple(shape) + " or a scalar, not " +
                                          shape_to_tuple(t.shape()) + ".");
  }
}

}  // namespace

Tensor compare(CompareDirection direction, CompareType type, const Tensor& lhs, const Tensor& rhs,
               ResultMemory& memory) {
  detail::check_same_dtype("stablehlo.compare", lhs, rhs);
  detail::check_same_shape("stablehlo.compare", lhs, rhs);
  check_compare_type(type, lhs.dtype());
  return dispatch(lhs.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return compare_typed<T>(direction, type, lhs, rhs, memory);
  });
}

Tensor select(const Tensor& pred, const Tensor& on_true, const Tensor& on_false,
              ResultMemory& memory) {
  check_pred("stablehlo.select", "predicate", pred);
  detail::check_same_dtype("stablehlo.select", on_true, on_false);
  detail::check_same_shape("stablehlo.select", on_true, on_false);
  const Shape& shape = on_true.shape();
  check_shape_or_scalar("stablehlo.select", "a predicate", pred, shape);
  return dispatch(on_true.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    Tensor out = memory.take(on_true.dtype(), shape);
    const Operand<uint8_t> p = detail::read_operand<uint8_t>(pred, shape);
    const Operand<T> t = detail::read_operand<T>(on_true, shape);
    const Operand<T> f = detail::read_operand<T>(on_false, shape);
    detail::map_into<T>(
        out, [](uint8_t c, T u, T v) { return c ? u : v; }, false, p, t, f);
    return out;
  });
}

Tensor clamp(const Tensor& min, const Tensor& x, const Tensor& max, ResultMemory& memory) {
  detail::check_same_dtype("stablehlo.clamp", min, x);
  detail::check_same_dtype("stablehlo.clamp", max, x);
  check_shape_or_scalar("stablehlo.clamp", "a min", min, x.shape());
  check_shape_or_scalar("stablehlo.clamp", "a max", max, x.shape());
  return dispatch(x.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const Shape& shape = x.shape();
    Tensor out = memory.take(x.dtype(), shape);
    const Operand<T> lo = detail::read_operand<T>(min, shape);
    const Operand<T> v = detail::read_operand<T>(x, shape);
    const Operand<T> hi = detail::read_operand<T>(max, shape);
    // minimum(maximum(x, lo), hi) with those ops' semantics: NaN propagates, +0 > -0, complex
    // values in lexicographic order, pred as or / and.
    const auto f = [](T l, T u, T h) {
      if constexpr (detail::kIsFloat<T>) {
        using C = Compute<T>;
        const C above = detail::float_maximum<C>(detail::load(u), detail::load(l));
        return detail::store<T>(detail::float_minimum<C>(above, detail::load(h)));
      } else if constexpr (detail::kIsComplex<T>) {
        const T above = detail::complex_less(u, l) ? l : u;
        return detail::complex_less(h, above) ? h : above;
      } else {
        const T above = u < l ? l : u;
        return h < above ? h : above;
      }
    };
    detail::map_into<T>(out, f, false, lo, v, hi);
    return out;
  });
}

Tensor compare(CompareDirection direction, CompareType type, const Tensor& lhs, const Tensor& rhs) {
  ResultMemory fresh;
  return compare(direction, type, lhs, rhs, fresh);
}

Tensor select(const Tensor& pred, const Tensor& on_true, const Tensor& on_false) {
  ResultMemory fresh;
  return select(pred, on_true, on_false, fresh);
}

Tensor clamp(const Tensor& min, const Tensor& x, const Tensor& max) {
  ResultMemory fresh;
  return clamp(min, x, max, fresh);
}

}  // namespace ndbuf::program
