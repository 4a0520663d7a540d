// Strict conversions between R's vector representations and ndbuf dtypes, over plain
// pointers. R's missing-value bit patterns are plain constants here, so every rule is
// testable without R.
#pragma once

#include <cstdint>
#include <string>

#include "ndbuf/base/dtype.hpp"
#include "ndbuf/memory/tensor.hpp"

namespace ndbuf {

inline constexpr int32_t kRIntegerNA = INT32_MIN;    // NA_integer_ and NA (logical)
inline constexpr int64_t kRInteger64NA = INT64_MIN;  // bit64::NA_integer64_
// NA_real_ is a NaN whose low word is 1954; other NaNs are R's NaN.
bool is_r_na_real(double value) noexcept;
double r_na_real() noexcept;

// The storage of an R vector: logical and integer are int32, double and complex are double
// (complex as re/im pairs), integer64 is int64 (bit64 keeps it in a double vector).
enum class RVectorType { kLogical, kInteger, kDouble, kComplex, kInteger64 };

struct RVectorView {
  RVectorType type;
  const void* data;
  int64_t length;
};

// How a missing value that travels zero-copy (integer NA at i32, integer64 NA at i64) is
// treated; everywhere else the rules are fixed.
enum class MissingCheck { kWarn, kError, kIgnore };

// True when the R vector's bytes already are the dtype's bytes on the host:
// double->f64, integer->i32, integer64->i64, complex->c128.
bool is_zero_copy(RVectorType type, DType dtype) noexcept;

// Throws InvalidArgument when `type` cannot be stored as `dtype` at all (complex to a real
// dtype).
void check_convertible(RVectorType type, DType dtype);

// Converts `source` into `count` elements of `dtype` at `out` (a length-1 source is recycled
// to any count). Throws ConversionError naming the value, its 1-based position and the dtype;
// `out` then holds garbage and must be discarded.
void convert_from_r(const RVectorView& source, DType dtype, void* out, int64_t count);

struct MissingScan {
  int64_t count = 0;
  int64_t first = -1;  // 0-based position of the first missing value, -1 when none
};

// Finds R's NA pattern in a vector that travels zero-copy (only integer and integer64).
MissingScan scan_missing(const RVectorView& source);

// Applies `check` to the missing values of a zero-copy vector: throws a ConversionError for
// kError when there are any, and returns how many there are (0 without a scan for kIgnore).
int64_t check_zero_copy_missing(const RVectorView& source, DType dtype, MissingCheck check);

// The R vector type as_array() returns for a dtype (section 1 of the spec).
RVectorType r_vector_type_for(DType dtype) noexcept;

// Converts `count` elements of `dtype` at `in` to R's representation (r_vector_type_for) at
// `out`. Returns how many values R cannot tell from NA: INT_MIN in i32, INT64_MIN in i64, and
// ui64 values >= 2^63, which are stored as NA.
int64_t convert_to_r(DType dtype, const void* in, void* out, int64_t count);

// The elements of a tensor of any layout, on any device, written to `out` in `order` as
// convert_to_r() writes them; returns the same count of values R cannot tell from NA.
int64_t tensor_to_r(const Tensor& tensor, void* out, Order order);

// "300", "255.7", "NA", "NaN", "-Inf": a value as an R user would write it.
std::string format_value_for_message(double value);

// "-128 to 127"; "0 and 1" for pred.
std::string dtype_range_text(DType dtype);

}  // namespace ndbuf
