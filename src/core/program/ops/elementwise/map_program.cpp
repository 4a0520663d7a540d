// map_program(): contiguous tiles of the dense inputs are the lanes.
#include "program/ops/elementwise/map_program.hpp"

#include <cstring>

#include "ndbuf/memory/transfer.hpp"
#include "program/element/element_tiles.hpp"
#include "program/kernels/kernel_values.hpp"

namespace ndbuf::program {

Tensor map_program(const std::vector<Tensor>& inputs, DType result, const ElementProgram& body) {
  if (inputs.empty() || body.arguments.size() != inputs.size() || body.results.size() != 1) {
    kernel_error("map", "needs one body argument per operand and one result.");
  }
  check_same_shapes(inputs, "map", "operands");
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (body.arguments[k] != inputs[k].dtype() || body.steps[body.results[0]].dtype != result) {
      kernel_error("map", "the body's argument and result types do not match the operands.");
    }
  }
  std::vector<Tensor> dense;
  int64_t bytes_per_item = static_cast<int64_t>(itemsize(result));
  for (const Tensor& x : inputs) {
    dense.push_back(make_dense(x, Order::kRowMajor));
    bytes_per_item += static_cast<int64_t>(itemsize(x.dtype()));
  }
  Tensor out = Tensor::allocate(result, inputs[0].shape(), Order::kRowMajor);
  const size_t out_size = itemsize(result);
  for_each_tile(body, out.numel(), 1024, bytes_per_item,
                [&](int64_t, int64_t first, int64_t count, ElementTile& tile) {
                  for (size_t k = 0; k < dense.size(); ++k) {
                    const size_t size = itemsize(dense[k].dtype());
                    std::memcpy(tile.argument(k),
                                static_cast<const char*>(dense[k].data()) + first * size,
                                count * size);
                  }
                  tile.run(count);
                  std::memcpy(static_cast<char*>(out.data()) + first * out_size, tile.result(0),
                              count * out_size);
                });
  return out;
}

}  // namespace ndbuf::program
