// StableHLO programs (MLIR text) compiled once and executed on host tensors by ndbuf's own
// runtime: no plugin, no LLVM/MLIR. compile() parses, verifies and plans; execute() never
// re-parses. Every compile error is an InvalidArgument error "line:column: message".
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ndbuf/base/dtype.hpp"
#include "ndbuf/base/shape.hpp"
#include "ndbuf/memory/device.hpp"
#include "ndbuf/memory/tensor.hpp"

namespace ndbuf::program {

// A tensor type of @main's signature. Shapes are StableHLO's logical shapes (dimension 0
// first, as written in the program: tensor<2x3xf32> is {2, 3}).
struct TensorType {
  DType dtype = DType::kF32;
  Shape shape;
};

struct Signature {
  std::vector<TensorType> inputs;
  std::vector<TensorType> outputs;
  // Per input: the 0-based result it may be donated to ({tf.aliasing_output = K : i32}).
  std::vector<std::optional<int>> aliasing_output;
};

// "tensor<2x3xf32>", "tensor<i1>" (MLIR spelling of the element type).
std::string tensor_type_to_string(const TensorType& type);
// "(tensor<2xf32>, tensor<f32>) -> (tensor<2xf32>)"; "() -> (tensor<f32>)" without inputs.
std::string signature_to_string(const Signature& signature);

class Executable;

struct CompileOptions {
  // Chains of element-wise ops run as one pass over memory (results are the same either way;
  // tests compare both).
  bool fuse_elementwise = true;
};

// Parses, verifies and plans `text`; the result is immutable and may be executed many times
// (also from several threads at once). `device` must be a CPU device: a CUDA device is an
// error (CPU only in this version).
std::shared_ptr<const Executable> compile(std::string_view text, Device device = Device{},
                                          const CompileOptions& options = {});

const Signature& signature(const Executable& executable);
const Device& device(const Executable& executable);

// Runs @main. `inputs` are host tensors of @main's argument types, any strides and offsets;
// count, dtype and shape are checked (errors name the 1-based argument, what was expected and
// what was given, with "shape" or "size" in the text); a tensor on another device than the
// executable's is an error containing "compiled for device". `donated` (empty, or one flag
// per input) marks inputs whose memory the runtime may reuse for the result they alias; it
// never writes into read-only storage (R vectors, mapped files). Results are new dense
// row-major host tensors on the executable's device, never sharing memory with an input.
std::vector<Tensor> execute(const Executable& executable, const std::vector<Tensor>& inputs,
                            const std::vector<bool>& donated = {});

}  // namespace ndbuf::program
