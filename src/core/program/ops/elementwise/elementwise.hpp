// Element-wise StableHLO (and chlo math) kernels over host tensors of any strides: each returns
// a new dense row-major tensor of the operands' shape.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "ndbuf/base/dtype.hpp"
#include "ndbuf/base/shape.hpp"
#include "ndbuf/memory/tensor.hpp"
#include "program/ir/op_id.hpp"
#include "program/kernels/result_memory.hpp"

namespace ndbuf::program {

// The element-wise kernels' enums are defined by their rows in the op table
// (program/registry/ops.def), in row order: adding a row adds the enumerator.
enum class UnaryOp : uint8_t {
#define NDBUF_UNARY(name, enumerator) enumerator,
#include "program/registry/ops.def"
};

enum class BinaryOp : uint8_t {
#define NDBUF_BINARY(name, enumerator) enumerator,
#include "program/registry/ops.def"
};

enum class CompareDirection : uint8_t {
#define NDBUF_COMPARE_DIRECTION(word, enumerator) enumerator,
#include "program/registry/ops.def"
};

enum class CompareType : uint8_t {
#define NDBUF_COMPARE_TYPE(word, enumerator) enumerator,
#include "program/registry/ops.def"
};

// Op names as they appear in programs, with their dialect: "stablehlo.add", "chlo.erf"
// (canonical names: aliases such as "chlo.tan" are rewritten by the parser). nullopt for any
// other name.
std::optional<UnaryOp> unary_op_named(std::string_view op_name);
std::optional<BinaryOp> binary_op_named(std::string_view op_name);
// The kernel of an element-wise op's id (the table names both alike), nullopt for other ops.
inline std::optional<UnaryOp> unary_op_of(OpId id) {
  switch (id) {
#define NDBUF_UNARY(name, enumerator) \
  case OpId::enumerator:              \
    return UnaryOp::enumerator;
#include "program/registry/ops.def"
    default:
      return std::nullopt;
  }
}
inline std::optional<BinaryOp> binary_op_of(OpId id) {
  switch (id) {
#define NDBUF_BINARY(name, enumerator) \
  case OpId::enumerator:               \
    return BinaryOp::enumerator;
#include "program/registry/ops.def"
    default:
      return std::nullopt;
  }
}
// The canonical name ("stablehlo.add", "chlo.erf") for messages.
std::string_view op_name(UnaryOp op);
std::string_view op_name(BinaryOp op);
// "EQ".."LT" and "FLOAT", "TOTALORDER", "SIGNED", "UNSIGNED", and back.
std::optional<CompareDirection> compare_direction_named(std::string_view name);
std::optional<CompareType> compare_type_named(std::string_view name);
std::string_view compare_type_name(CompareType type);
// The compare_type a program spells `word` for operands of `dtype`: absent ("") and NOTYPE
// mean the dtype's default; nullopt for an unknown word.
std::optional<CompareType> compare_type_for(std::string_view word, DType dtype);

// The result dtype of an op for the given operand dtype(s); throws ndbuf::Error
// (kInvalidArgument) naming the op and dtype when the spec does not allow that dtype.
DType unary_result_dtype(UnaryOp op, DType operand);
DType binary_result_dtype(BinaryOp op, DType lhs, DType rhs);
// The spec's compare_type for an element type when a program leaves it out: SIGNED for signed
// integers, UNSIGNED for unsigned integers and pred, FLOAT for floats and complex.
CompareType default_compare_type(DType dtype);
// Throws when `type` is not allowed for operands of `dtype` (spec constraint C3 of compare).
void check_compare_type(CompareType type, DType dtype);

// The kernels. Each validates shapes and dtypes (throwing ndbuf::Error with a complete
// message) and never writes into an input other than memory offered to it. `result` must
// equal the *_result_dtype() above. The forms with a ResultMemory take their dense row-major
// result from it (result_memory.hpp); the others allocate it.
Tensor unary(UnaryOp op, const Tensor& x, DType result, ResultMemory& memory);
Tensor unary(UnaryOp op, const Tensor& x, DType result);
Tensor binary(BinaryOp op, const Tensor& lhs, const Tensor& rhs, DType result,
              ResultMemory& memory);
Tensor binary(BinaryOp op, const Tensor& lhs, const Tensor& rhs, DType result);
// pred result. Complex operands compare (real, imag) lexicographically.
Tensor compare(CompareDirection direction, CompareType type, const Tensor& lhs, const Tensor& rhs,
               ResultMemory& memory);
Tensor compare(CompareDirection direction, CompareType type, const Tensor& lhs, const Tensor& rhs);
// `pred` is pred-typed, of the operands' shape or 0-d.
Tensor select(const Tensor& pred, const Tensor& on_true, const Tensor& on_false,
              ResultMemory& memory);
Tensor select(const Tensor& pred, const Tensor& on_true, const Tensor& on_false);
// min(max(x, min), max); `min` and `max` are of x's shape or 0-d.
Tensor clamp(const Tensor& min, const Tensor& x, const Tensor& max, ResultMemory& memory);
Tensor clamp(const Tensor& min, const Tensor& x, const Tensor& max);
// Element-wise conversion to `to` (XLA's rules for unrepresentable values; see
// elementwise_convert.cpp).
Tensor convert(const Tensor& x, DType to, ResultMemory& memory);
Tensor convert(const Tensor& x, DType to);
// Reinterprets the bits (little-endian); `result_shape` follows the spec's rank rules when the
// element widths differ.
Tensor bitcast_convert(const Tensor& x, DType to, const Shape& result_shape);
// Why bitcast_convert cannot turn `from` elements of shape `in` into `to` elements of `shape`
// (the spec's constraints C1 and C2), or nullptr when it can.
const char* bitcast_problem(DType from, const Shape& in, DType to, const Shape& shape);
// Rounds each float to `exponent_bits` / `mantissa_bits` and back (same dtype).
Tensor reduce_precision(const Tensor& x, int exponent_bits, int mantissa_bits,
                        ResultMemory& memory);
Tensor reduce_precision(const Tensor& x, int exponent_bits, int mantissa_bits);

}  // namespace ndbuf::program
