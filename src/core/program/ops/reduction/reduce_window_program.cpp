// reduce_window_program(): tiles of result positions are the lanes. For each window element
// (row-major over the window) every lane gathers the input element its window reads there, or
// the init value where it reads padding, and one run of the program folds them all into the
// accumulators. Positions come from the window geometry per dim (no table per result).
#include "program/ops/reduction/reduce_window_program.hpp"

#include <algorithm>
#include <cstring>

#include "memory/element_cell.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/element/element_tiles.hpp"
#include "program/kernels/kernel_values.hpp"
#include "program/ops/reduction/window_geometry.hpp"

namespace ndbuf::program {
namespace {

const char kOp[] = "reduce_window";

// The multi-indices of result positions first .. first + count - 1, one row of rank per lane.
std::vector<int64_t> lane_positions(const Shape& result, int64_t first, int64_t count) {
  const size_t rank = result.size();
  std::vector<int64_t> index(rank, 0), out(static_cast<size_t>(count) * rank);
  int64_t rest = first;
  for (size_t d = rank; d-- > 0;) {
    index[d] = rest % result[d];
    rest /= result[d];
  }
  for (int64_t lane = 0; lane < count; ++lane) {
    std::copy(index.begin(), index.end(), out.begin() + lane * rank);
    for (size_t d = rank; d-- > 0;) {
      if (++index[d] < result[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

// The input offset (row-major `strides`) each lane reads at window element `w`, or -1.
void window_offsets(const WindowGeometry& g, const Strides& strides,
                    const std::vector<int64_t>& positions, const std::vector<int64_t>& w,
                    int64_t count, std::vector<int64_t>& out) {
  const size_t rank = g.axes.size();
  out.resize(static_cast<size_t>(count));
  for (int64_t lane = 0; lane < count; ++lane) {
    int64_t offset = 0;
    for (size_t d = 0; d < rank && offset >= 0; ++d) {
      const int64_t s = g.axes[d].source(positions[lane * rank + d], w[d]);
      offset = s < 0 ? -1 : offset + s * strides[d];
    }
    out[lane] = offset;
  }
}

void gather_lanes(const Tensor& x, const Tensor& init, const std::vector<int64_t>& offsets,
                  void* out) {
  with_cell(itemsize(x.dtype()), [&](auto tag) {
    using C = decltype(tag);
    const C* data = static_cast<const C*>(x.data());
    C fill;
    std::memcpy(&fill, init.data(), sizeof(C));
    C* o = static_cast<C*>(out);
    for (size_t lane = 0; lane < offsets.size(); ++lane) {
      o[lane] = offsets[lane] < 0 ? fill : data[offsets[lane]];
    }
  });
}

void fill_lanes(const Tensor& init, int64_t count, void* out) {
  const size_t size = itemsize(init.dtype());
  for (int64_t lane = 0; lane < count; ++lane) {
    std::memcpy(static_cast<char*>(out) + lane * size, init.data(), size);
  }
}

struct WindowFold {
  const std::vector<Tensor>& inputs;
  const std::vector<Tensor>& inits;
  const WindowGeometry& g;
  Strides strides;  // of the dense row-major inputs
  std::vector<Tensor>& results;

  void operator()(int64_t first, int64_t count, ElementTile& tile) const {
    const size_t n = inputs.size();
    const std::vector<int64_t> positions = lane_positions(g.result_shape, first, count);
    for (size_t i = 0; i < n; ++i) fill_lanes(inits[i], count, tile.argument(i));
    std::vector<int64_t> w(g.window_shape.size(), 0), offsets;
    const int64_t elements = checked_numel(g.window_shape);
    for (int64_t e = 0; e < elements; ++e) {
      window_offsets(g, strides, positions, w, count, offsets);
      for (size_t i = 0; i < n; ++i)
        gather_lanes(inputs[i], inits[i], offsets, tile.argument(n + i));
      tile.run(count);
      for (size_t i = 0; i < n; ++i) {
        std::memcpy(tile.argument(i), tile.result(i), count * itemsize(inits[i].dtype()));
      }
      for (size_t d = w.size(); d-- > 0;) {
        if (++w[d] < g.window_shape[d]) break;
        w[d] = 0;
      }
    }
    for (size_t i = 0; i < n; ++i) {
      const size_t size = itemsize(inits[i].dtype());
      std::memcpy(static_cast<char*>(results[i].data()) + first * size, tile.argument(i),
                  count * size);
    }
  }
};

void check_body(const std::vector<Tensor>& inputs, const std::vector<Tensor>& inits,
                const ElementProgram& body) {
  const size_t n = inputs.size();
  bool ok =
      n > 0 && inits.size() == n && body.arguments.size() == 2 * n && body.results.size() == n;
  for (size_t i = 0; ok && i < n; ++i) {
    const DType acc = inits[i].dtype();
    ok = body.arguments[i] == acc && body.arguments[n + i] == inputs[i].dtype() &&
         body.steps[body.results[i]].dtype == acc;
  }
  if (!ok) kernel_error(kOp, "the body's argument and result types do not match the operands.");
}

}  // namespace

std::vector<Tensor> reduce_window_program(const std::vector<Tensor>& inputs,
                                          const std::vector<Tensor>& init_values,
                                          const WindowConfig& window, const ElementProgram& body) {
  if (inputs.empty()) kernel_error(kOp, "needs at least one input.");
  check_same_shapes(inputs, kOp, "inputs");
  std::vector<Tensor> hosts, inits, results;
  for (const Tensor& x : inputs) hosts.push_back(dense_host(x));
  for (const Tensor& init : init_values) {
    check_scalar(init, kOp, "an init value");
    inits.push_back(dense_host(init));
  }
  check_body(hosts, inits, body);
  const WindowGeometry g = window_geometry(hosts[0].shape(), window, kOp);
  for (const Tensor& init : inits) {
    results.push_back(Tensor::allocate(init.dtype(), g.result_shape, Order::kRowMajor));
  }
  const int64_t outputs = checked_numel(g.result_shape);
  if (outputs == 0) return results;
  int64_t bytes_per_output = 0;
  for (const Tensor& x : hosts) bytes_per_output += static_cast<int64_t>(itemsize(x.dtype()));
  bytes_per_output *= std::max<int64_t>(1, checked_numel(g.window_shape));
  const WindowFold fold{hosts, inits, g, contiguous_strides(hosts[0].shape(), Order::kRowMajor),
                        results};
  const int64_t lanes = std::clamp<int64_t>(outputs / 8, 1, 256);
  for_each_tile(
      body, outputs, lanes, bytes_per_output,
      [&](int64_t, int64_t first, int64_t count, ElementTile& tile) { fold(first, count, tile); });
  return results;
}

}  // namespace ndbuf::program
