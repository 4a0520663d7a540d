// stablehlo.select_and_scatter: each window's pick (select folded over its real elements), then
// the source values combined into the picked positions.
#include "program/ops/reduction/select_and_scatter.hpp"

#include <cstring>
#include <limits>

#include "program/kernels/fast_combine.hpp"
#include "program/kernels/kernel_values.hpp"
#include "program/ops/reduction/select_and_scatter_lanes.hpp"
#include "program/ops/reduction/select_keep.hpp"
#include "program/ops/reduction/window_geometry.hpp"

namespace ndbuf::program {
namespace {

const char kOp[] = "select_and_scatter";

// The offset each window picks (-1 when it holds only padding), windows in row-major order;
// `keep(pick, next)` is the select region.
template <class Keep>
std::vector<int64_t> picks(const Tensor& operand, const WindowGeometry& g, Keep keep) {
  std::vector<int64_t> chosen(static_cast<size_t>(checked_numel(g.result_shape)), -1);
  int64_t pick = -1;
  walk_windows(g, operand.shape(), [&](const WindowPiece& piece) {
    if (piece.first) pick = -1;
    for (int64_t k = 0; k < piece.count; ++k) {
      const int64_t at = piece.offsets[k];
      if (at < 0) continue;
      if (pick < 0 || !keep(pick, at)) pick = at;
    }
    if (piece.last) chosen[piece.result] = pick;
  });
  return chosen;
}

std::vector<int64_t> picks(const Tensor& operand, const WindowGeometry& g, const RegionFn& select,
                           FastComparator fast) {
  const DType t = operand.dtype();
  const char* x = static_cast<const char*>(operand.data());
  if (fast.direction == ComparatorOrder::kNone) {
    return picks(operand, g, [&](int64_t pick, int64_t at) {
      return region_truth(
          select({scalar_from(t, x + pick * itemsize(t)), scalar_from(t, x + at * itemsize(t))}),
          kOp);
    });
  }
  return dispatch(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T* v = reinterpret_cast<const T*>(x);
    std::vector<int64_t> chosen;
    with_keep<T>(fast, [&](auto keep) {
      chosen = picks(operand, g, [&](int64_t pick, int64_t at) { return keep(v[pick], v[at]); });
    });
    return chosen;
  });
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
  if (select_fast.direction != ComparatorOrder::kNone && scatter_fast != FastBody::kNone &&
      init.dtype() == source.dtype() &&
      checked_numel(g.window_shape) <= std::numeric_limits<int32_t>::max()) {
    check_fast_body(scatter_fast, init.dtype(), kOp);
    return select_and_scatter_lanes(operand, source, init, g, select_fast, scatter_fast);
  }
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
