// reduce_program(): tiles of result elements are the lanes; the reduced positions are walked
// in row-major order with an odometer (no table per position), gathering one element per lane
// and input into the program's arguments, whose results become the accumulators.
#include "program/ops/reduction/reduce_program.hpp"

#include <algorithm>
#include <cstring>

#include "memory/element_cell.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/element/element_tiles.hpp"
#include "program/kernels/kernel_values.hpp"

namespace ndbuf::program {
namespace {

const char kOp[] = "reduce";

// The input dims split into kept (result) and reduced ones, with each input's strides.
struct ReduceAxes {
  Shape kept, reduced;
  std::vector<Strides> kept_strides, reduced_strides;  // per input
};

ReduceAxes split_axes(const std::vector<Tensor>& inputs, const std::vector<int64_t>& dims) {
  const Shape& shape = inputs[0].shape();
  std::vector<bool> is_reduced(shape.size(), false);
  for (int64_t d : dims) is_reduced[d] = true;
  ReduceAxes axes;
  axes.kept_strides.resize(inputs.size());
  axes.reduced_strides.resize(inputs.size());
  for (size_t k = 0; k < shape.size(); ++k) {
    (is_reduced[k] ? axes.reduced : axes.kept).push_back(shape[k]);
    for (size_t i = 0; i < inputs.size(); ++i) {
      (is_reduced[k] ? axes.reduced_strides : axes.kept_strides)[i].push_back(
          inputs[i].strides()[k]);
    }
  }
  return axes;
}

// Lanes whose offsets are consecutive (the kept axis is the innermost of the input's layout)
// are one copy.
void gather_lanes(const Tensor& x, const int64_t* offsets, bool consecutive, int64_t shift,
                  int64_t count, void* out) {
  with_cell(itemsize(x.dtype()), [&](auto tag) {
    using C = decltype(tag);
    const C* data = static_cast<const C*>(x.data()) + shift;
    C* o = static_cast<C*>(out);
    if (consecutive) {
      std::memcpy(o, data + offsets[0], count * sizeof(C));
      return;
    }
    for (int64_t lane = 0; lane < count; ++lane) o[lane] = data[offsets[lane]];
  });
}

bool are_consecutive(const std::vector<int64_t>& offsets) {
  for (size_t lane = 1; lane < offsets.size(); ++lane) {
    if (offsets[lane] != offsets[0] + static_cast<int64_t>(lane)) return false;
  }
  return true;
}

void fill_lanes(const Tensor& init, int64_t count, void* out) {
  const size_t size = itemsize(init.dtype());
  for (int64_t lane = 0; lane < count; ++lane) {
    std::memcpy(static_cast<char*>(out) + lane * size, init.data(), size);
  }
}

// Folds every reduced position into the accumulators of one tile of result elements.
void fold_tile(const std::vector<Tensor>& inputs, const std::vector<Tensor>& inits,
               const ReduceAxes& axes, std::vector<Tensor>& results, int64_t first, int64_t count,
               ElementTile& tile) {
  const size_t n = inputs.size();
  std::vector<std::vector<int64_t>> offsets(n);
  std::vector<bool> consecutive(n);
  for (size_t i = 0; i < n; ++i) {
    walk_offsets(axes.kept, axes.kept_strides[i], first, count, offsets[i]);
    consecutive[i] = are_consecutive(offsets[i]);
  }
  for (size_t i = 0; i < n; ++i) fill_lanes(inits[i], count, tile.argument(i));
  std::vector<int64_t> index(axes.reduced.size(), 0), shift(n, 0);
  const int64_t positions = checked_numel(axes.reduced);
  for (int64_t p = 0; p < positions; ++p) {
    for (size_t i = 0; i < n; ++i) {
      gather_lanes(inputs[i], offsets[i].data(), consecutive[i], shift[i], count,
                   tile.argument(n + i));
    }
    tile.run(count);
    for (size_t i = 0; i < n; ++i) {
      std::memcpy(tile.argument(i), tile.result(i), count * itemsize(inits[i].dtype()));
    }
    for (size_t k = axes.reduced.size(); k-- > 0;) {
      for (size_t i = 0; i < n; ++i) shift[i] += axes.reduced_strides[i][k];
      if (++index[k] < axes.reduced[k]) break;
      for (size_t i = 0; i < n; ++i) shift[i] -= axes.reduced[k] * axes.reduced_strides[i][k];
      index[k] = 0;
    }
  }
  for (size_t i = 0; i < n; ++i) {
    const size_t size = itemsize(inits[i].dtype());
    std::memcpy(static_cast<char*>(results[i].data()) + first * size, tile.argument(i),
                count * size);
  }
}

}  // namespace

std::vector<Tensor> reduce_program(const std::vector<Tensor>& inputs,
                                   const std::vector<Tensor>& init_values,
                                   const std::vector<int64_t>& dimensions,
                                   const ElementProgram& body) {
  if (inputs.empty() || inputs.size() != init_values.size() ||
      body.arguments.size() != 2 * inputs.size() || body.results.size() != inputs.size()) {
    kernel_error(kOp, "needs one init value per input and a body of matching arity.");
  }
  check_same_shapes(inputs, kOp, "inputs");
  check_axes(dimensions, inputs[0].rank(), kOp, "reduction dimension");
  std::vector<Tensor> hosts, inits, results;
  for (const Tensor& x : inputs) hosts.push_back(to_host(x));
  for (const Tensor& init : init_values) {
    check_scalar(init, kOp, "an init value");
    inits.push_back(to_host(init));
  }
  for (size_t i = 0; i < inputs.size(); ++i) {
    const DType acc = inits[i].dtype();
    if (body.arguments[i] != acc || body.arguments[inputs.size() + i] != hosts[i].dtype() ||
        body.steps[body.results[i]].dtype != acc) {
      kernel_error(kOp, "the body's argument and result types do not match the operands.");
    }
  }
  const ReduceAxes axes = split_axes(hosts, dimensions);
  for (const Tensor& init : inits) {
    results.push_back(Tensor::allocate(init.dtype(), axes.kept, Order::kRowMajor));
  }
  const int64_t outputs = checked_numel(axes.kept);
  if (outputs == 0) return results;
  int64_t bytes_per_output = 0;
  for (const Tensor& x : hosts) bytes_per_output += static_cast<int64_t>(itemsize(x.dtype()));
  bytes_per_output *= std::max<int64_t>(1, checked_numel(axes.reduced));
  // Lanes amortise the per-step dispatch; fewer of them leave blocks for every thread.
  const int64_t lanes = std::clamp<int64_t>(outputs / 8, 1, 256);
  for_each_tile(body, outputs, lanes, bytes_per_output,
                [&](int64_t, int64_t first, int64_t count, ElementTile& tile) {
                  fold_tile(hosts, inits, axes, results, first, count, tile);
                });
  return results;
}

}  // namespace ndbuf::program
