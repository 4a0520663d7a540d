// The body of a dense<...> attribute, kept as text until its tensor type is known.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "ndbuf/memory/tensor.hpp"
#include "program/ir/location.hpp"
#include "program/ir/type.hpp"

namespace ndbuf::program {

struct DenseScalar {
  enum class Kind { kNumber, kBool, kComplex };
  Kind kind = Kind::kNumber;
  std::string real;  // number text: "1.5", "-3", "0x7FC00000"
  std::string imag;  // complex pairs only
  Location loc;
};

struct DenseLiteral {
  Location loc;
  bool is_list = false;     // [..] (shape from the nesting) rather than one splat value
  Shape shape;              // nesting shape of a list
  int64_t leaf_level = -1;  // the depth at which values sit (lists only)
  std::vector<DenseScalar> values;
  bool is_hex_blob = false;  // dense<"0x..."> raw little-endian bytes
  std::string hex;
};

// Builds the tensor a dense literal denotes for `type` (a splat fills it; a list must match
// its shape; a hex blob must hold numel or one element's bytes). Errors name the location.
Tensor materialize_dense(const DenseLiteral& literal, const Type& type);

}  // namespace ndbuf::program
