// Run-time values: a tensor, or a tuple of values (while / case / tuple ops).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "ndbuf/memory/tensor.hpp"

namespace ndbuf::program {

struct Value {
  std::optional<Tensor> tensor;
  std::shared_ptr<const std::vector<Value>> tuple;

  Value() = default;
  Value(Tensor t) : tensor(std::move(t)) {}  // NOLINT: a tensor is a value
  const Tensor& get() const;                 // the tensor; throws when the value is a tuple
};

using Values = std::vector<Value>;

// The tensors of `values` (of [first, first + count)), each throwing as get() does; and tensors
// as values. Kernels take tensors, run functions values.
std::vector<Tensor> tensors_of(const Values& values);
std::vector<Tensor> tensors_of(const Values& values, size_t first, size_t count);
Values values_of(std::vector<Tensor> tensors);
// A run function's single result, moved in (a braced list would copy the tensor again).
Values one_value(Tensor tensor);

}  // namespace ndbuf::program
