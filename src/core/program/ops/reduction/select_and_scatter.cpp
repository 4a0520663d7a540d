// stablehlo.select_and_scatter: each window's pick (select folded over its real elements), then
// the source values combined into the picked positions.
#include "program/ops/reduction/select_and_scatter.hpp"

#include <cstring>

#include "program/kernels/fast_combine.hpp"
#include "program/kernels/kernel_values.hpp"
#include "program/ops/reduction/window_geometry.hpp"
#include "program/ops/sort/order_keys.hpp"

namespace ndbuf::program {
namespace {

const char kOp[] = "select_and_scatter";

// x <direction> y over order keys.
template <class Key>
bool keys_in_order(const Key& x, const Key& y, ComparatorOrder direction) {
  switch (direction) {
    case ComparatorOrder::kLessThan:
      return key_less(x, y);
    case ComparatorOrder::kLessEqual:
      return key_less(x, y) || x == y;
    case ComparatorOrder::kGreaterThan:
      return key_less(y, x);
    default:
      return key_less(y, x) || x == y;
  }
}

// select(a, b) for the recognised comparators: keep a while it holds.
template <class T>
bool fast_select(T a, T b, FastComparator c) {
  if (c.total_order) return keys_in_order(total_order_key(a), total_order_key(b), c.direction);
  return keys_in_order(ieee_key(a), ieee_key(b), c.direction);
}

// The offset each window picks (-1 when it holds only padding), windows in row-major order.
std::vector<int64_t> picks(const Tensor& operand, const WindowGeometry& g, const RegionFn& select,
                           FastComparator fast) {
  std::vector<int64_t> chosen(static_cast<size_t>(checked_numel(g.result_shape)), -1);
  const DType t = operand.dtype();
  const char* x = static_cast<const char*>(operand.data());
  int64_t pick = -1;
  walk_windows(g, operand.shape(), [&](const WindowPiece& piece) {
    if (piece.first) pick = -1;
    for (int64_t k = 0; k < piece.count; ++k) {
      const int64_t at = piece.offsets[k];
      if (at < 0) continue;
      if (pick < 0) {
        pick = at;
        continue;
      }
      bool keep;
      if (fast.direction != ComparatorOrder::kNone) {
        keep = dispatch(t, [&](auto tag) {
          using T = typename decltype(tag)::type;
          return fast_select(reinterpret_cast<const T*>(x)[pick], reinterpret_cast<const T*>(x)[at],
                             fast);
        });
      } else {
        keep = region_truth(
            select({scalar_from(t, x + pick * itemsize(t)), scalar_from(t, x + at * itemsize(t))}),
            kOp);
      }
      if (!keep) pick = at;
    }
    if (piece.last) chosen[piece.result] = pick;
  });
  return chosen;
}

void check_window(const Tensor& operand, const Tensor& source, const WindowConfig& window,
                  const WindowGeometry& g) {
  for (int64_t d : window.base_dilations) {
    if (d != 1) kernel_error(kOp, "base dilations must be 1.");
  }
  for (int64_t d : window.window_dilations) {
    if (d != 1) kernel_error(kOp, "window dilations must be 1.");
  }
  if (source.shape() != g.result_shape) {
    kernel_error(kOp, "source has shape " + shape_to_tuple(source.shape()) + " but there are " +
                          shape_to_tuple(g.result_shape) + " windows.");
  }
  if (source.dtype() != operand.dtype()) kernel_error(kOp, "source and operand dtypes differ.");
}

}  // namespace

Tensor select_and_scatter(const Tensor& operand_in, const Tensor& source_in,
                          const Tensor& init_value, const WindowConfig& window,
                          const RegionFn& select, const RegionFn& scatter,
                          FastComparator select_fast, FastBody scatter_fast) {
  check_scalar(init_value, kOp, "init_value");
  const WindowGeometry g = window_geometry(operand_in.shape(), window, kOp);
  check_window(operand_in, source_in, window, g);
  if (select_fast.direction == ComparatorOrder::kNone && !select) {
    kernel_error(kOp, "the select region is missing.");
  }
  const Tensor operand = dense_host(operand_in);
  const Tensor source = dense_host(source_in);
  const Tensor init = dense_host(init_value);
  const DType rt = init.dtype();
  const size_t size = itemsize(rt);
  Tensor result = Tensor::allocate(rt, operand.shape(), Order::kRowMajor);
  char* out = static_cast<char*>(result.data());
  for (int64_t i = 0; i < result.numel(); ++i) std::memcpy(out + i * size, init.data(), size);
  const std::vector<int64_t> chosen = picks(operand, g, select, select_fast);
  const DType st = source.dtype();
  const char* src = static_cast<const char*>(source.data());
  if (scatter_fast != FastBody::kNone && st == rt) {
    check_fast_body(scatter_fast, rt, kOp);
    dispatch(rt, [&](auto tag) {
      using T = typename decltype(tag)::type;
      T* r = reinterpret_cast<T*>(out);
      const T* s = reinterpret_cast<const T*>(src);
      with_combiner<decltype(tag)::value>(scatter_fast, [&](auto combine) {
        for (size_t w = 0; w < chosen.size(); ++w) {
          if (chosen[w] >= 0) r[chosen[w]] = store<T>(combine(load(r[chosen[w]]), load(s[w])));
        }
      });
    });
    return result;
  }
  if (!scatter) kernel_error(kOp, "the scatter region is missing.");
  for (size_t w = 0; w < chosen.size(); ++w) {
    if (chosen[w] < 0) continue;
    const std::vector<Tensor> returned =
        scatter({scalar_from(rt, out + chosen[w] * size), scalar_from(st, src + w * itemsize(st))});
    const auto values = region_values(returned, {rt}, kOp);
    std::memcpy(out + chosen[w] * size, values[0], size);
  }
  return result;
}

}  // namespace ndbuf::program
