// element_region_fn(): 0-d tensors in, the program on one lane, 0-d tensors out.
#include "program/element/element_region.hpp"

#include <cstring>
#include <memory>

#include "ndbuf/memory/transfer.hpp"
#include "program/kernels/kernel_values.hpp"

namespace ndbuf::program {

RegionFn element_region_fn(const ElementProgram& program) {
  auto tile = std::make_shared<ElementTile>(program, 1);
  return [tile, &program](const std::vector<Tensor>& args) {
    if (args.size() != program.arguments.size()) {
      kernel_error("region", "the body takes " + std::to_string(program.arguments.size()) +
                                 " arguments, not " + std::to_string(args.size()) + ".");
    }
    for (size_t k = 0; k < args.size(); ++k) {
      const Tensor host = to_host(args[k]);
      if (host.dtype() != program.arguments[k] || host.numel() != 1) {
        kernel_error("region", "argument " + std::to_string(k + 1) + " is not a 0-d " +
                                   std::string(dtype_name(program.arguments[k])) + ".");
      }
      std::memcpy(tile->argument(k), host.data(), itemsize(host.dtype()));
    }
    tile->run(1);
    std::vector<Tensor> results;
    for (size_t k = 0; k < program.results.size(); ++k) {
      const DType dtype = program.steps[program.results[k]].dtype;
      Tensor r = Tensor::allocate(dtype, {}, Order::kRowMajor);
      std::memcpy(r.data(), tile->result(k), itemsize(dtype));
      results.push_back(std::move(r));
    }
    return results;
  };
}

}  // namespace ndbuf::program
