// Spelling of program types as MLIR prints them.
#include "program/ir/type.hpp"

namespace ndbuf::program {

bool Type::operator==(const Type& other) const {
  if (kind != other.kind) return false;
  if (kind == Kind::kTensor) return dtype == other.dtype && shape == other.shape;
  return elements == other.elements;
}

std::string element_type_name(DType dtype) {
  switch (dtype) {
    case DType::kPred:
      return "i1";
    case DType::kC64:
      return "complex<f32>";
    case DType::kC128:
      return "complex<f64>";
    default:
      if (is_minifloat(dtype)) return std::string(minifloat_format_of(dtype).name);
      return std::string(dtype_name(dtype));
  }
}

std::string type_to_string(const Type& type) {
  if (type.kind == Type::Kind::kToken) return "!stablehlo.token";
  if (type.kind == Type::Kind::kTuple) return "tuple<" + types_to_string(type.elements) + ">";
  std::string text = "tensor<";
  for (int64_t dim : type.shape) text += std::to_string(dim) + "x";
  return text + element_type_name(type.dtype) + ">";
}

std::string types_to_string(const std::vector<Type>& types) {
  std::string text;
  for (size_t k = 0; k < types.size(); ++k) {
    if (k > 0) text += ", ";
    text += type_to_string(types[k]);
  }
  return text;
}

}  // namespace ndbuf::program
