// Types of program values: ranked tensors of our element types, tuples of them, tokens.
#pragma once

#include <string>
#include <vector>

#include "ndbuf/base/dtype.hpp"
#include "ndbuf/base/shape.hpp"

namespace ndbuf::program {

struct Type {
  enum class Kind { kTensor, kTuple, kToken };
  Kind kind = Kind::kTensor;
  DType dtype = DType::kF32;
  Shape shape;
  std::vector<Type> elements;  // tuple members

  static Type tensor(DType dtype, Shape shape) {
    return Type{Kind::kTensor, dtype, std::move(shape), {}};
  }
  bool is_tensor() const { return kind == Kind::kTensor; }
  bool operator==(const Type& other) const;
  bool operator!=(const Type& other) const { return !(*this == other); }
};

// MLIR spelling of an element type: i1, i32, ui8, bf16, complex<f32>, f8E4M3FN.
std::string element_type_name(DType dtype);
// "tensor<2x3xf32>", "tensor<f32>", "tuple<tensor<i64>, tensor<2xf32>>".
std::string type_to_string(const Type& type);
std::string types_to_string(const std::vector<Type>& types);

}  // namespace ndbuf::program
