// stablehlo.reduce_window: every result element folds its window, padding reading the init.
#include "program/ops/reduction/reduce_window.hpp"

#include <cstring>

#include "ndbuf/memory/transfer.hpp"
#include "program/kernels/fast_combine.hpp"
#include "program/kernels/kernel_values.hpp"
#include "program/ops/reduction/window_geometry.hpp"
#include "program/ops/reduction/window_scan.hpp"
#include "program/ops/reduction/window_slide.hpp"

namespace ndbuf::program {
namespace {

const char kOp[] = "reduce_window";

template <DType D>
Tensor reduce_window_fast(const Tensor& input, const Tensor& init, const WindowGeometry& g,
                          FastBody body) {
  using T = typename ElementType<D>::type;
  using A = Compute<T>;
  Tensor result = Tensor::allocate(D, g.result_shape, Order::kRowMajor);
  T init_value;
  std::memcpy(&init_value, to_host(init).data(), sizeof(T));
  const A start = load(init_value);
  const T* x = static_cast<const T*>(input.data());
  T* out = static_cast<T*>(result.data());
  with_combiner<D>(body, [&](auto combine) {
    A acc = start;
    walk_windows(g, input.shape(), [&](const WindowPiece& piece) {
      if (piece.first) acc = start;
      for (int64_t i = 0; i < piece.count; ++i) {
        const int64_t at = piece.offsets[i];
        acc = combine(acc, at < 0 ? start : load(x[at]));
      }
      if (piece.last) out[piece.result] = store<T>(acc);
    });
  });
  return result;
}

std::vector<Tensor> reduce_window_generic(const std::vector<Tensor>& inputs,
                                          const std::vector<Tensor>& inits, const WindowGeometry& g,
                                          const RegionFn& body) {
  const size_t n = inputs.size();
  std::vector<Tensor> results;
  std::vector<DType> dtypes;
  for (const Tensor& init : inits) {
    results.push_back(Tensor::allocate(init.dtype(), g.result_shape, Order::kRowMajor));
    dtypes.push_back(init.dtype());
  }
  std::vector<Tensor> acc;
  walk_windows(g, inputs[0].shape(), [&](const WindowPiece& piece) {
    if (piece.first) acc = inits;
    for (int64_t k = 0; k < piece.count; ++k) {
      const int64_t at = piece.offsets[k];
      std::vector<Tensor> args = acc;
      for (size_t i = 0; i < n; ++i) {
        const DType t = inputs[i].dtype();
        args.push_back(
            at < 0 ? inits[i]
                   : scalar_from(t, static_cast<const char*>(inputs[i].data()) + at * itemsize(t)));
      }
      const std::vector<Tensor> returned = body(args);
      const auto values = region_values(returned, dtypes, kOp);
      for (size_t i = 0; i < n; ++i) acc[i] = scalar_from(dtypes[i], values[i]);
    }
    if (!piece.last) return;
    for (size_t i = 0; i < n; ++i) {
      const size_t size = itemsize(dtypes[i]);
      std::memcpy(static_cast<char*>(results[i].data()) + piece.result * size, acc[i].data(), size);
    }
  });
  return results;
}

}  // namespace

Shape reduce_window_shape(const Shape& operand_shape, const WindowConfig& window) {
  return window_geometry(operand_shape, window, kOp).result_shape;
}

std::vector<Tensor> reduce_window(const std::vector<Tensor>& inputs,
                                  const std::vector<Tensor>& init_values,
                                  const WindowConfig& window, const RegionFn& body, FastBody fast) {
  if (inputs.empty() || inputs.size() != init_values.size()) {
    kernel_error(kOp, "needs one init value per input and at least one input.");
  }
  check_same_shapes(inputs, kOp, "inputs");
  std::vector<Tensor> inits;
  for (const Tensor& init : init_values) {
    check_scalar(init, kOp, "an init value");
    inits.push_back(dense_host(init));
  }
  const WindowGeometry g = window_geometry(inputs[0].shape(), window, kOp);
  if (fast != FastBody::kNone && inputs.size() == 1 && inputs[0].dtype() == inits[0].dtype()) {
    check_fast_body(fast, inputs[0].dtype(), kOp);
    const auto axis = scan_axis(g, inputs[0].shape());
    // A scan keeps the walk's bits, sums included: it goes first, on row-major memory.
    if (!axis) {
      if (auto slid = window_slide_column_major(to_host(inputs[0]), inits[0], g, fast)) {
        return {std::move(*slid)};
      }
    }
    const Tensor input = dense_host(inputs[0]);
    if (axis) {
      if (auto scanned = window_scan(input, inits[0], *axis, fast)) return {std::move(*scanned)};
    }
    if (auto slid = window_slide(input, inits[0], g, fast)) return {std::move(*slid)};
    return {dispatch(input.dtype(), [&](auto tag) {
      return reduce_window_fast<decltype(tag)::value>(input, inits[0], g, fast);
    })};
  }
  if (!body) kernel_error(kOp, "the body is missing.");
  std::vector<Tensor> dense;
  for (const Tensor& x : inputs) dense.push_back(dense_host(x));
  return reduce_window_generic(dense, inits, g, body);
}

}  // namespace ndbuf::program
