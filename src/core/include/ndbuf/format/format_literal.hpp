// Element text as StableHLO dense literals spell it, as upstream pjrt's format_buffer() writes
// it for code generators that embed buffers in programs:
//
// - floats in scientific notation with the significant digits that round-trip their dtype
//   (f64 17, f32 9, f16 5, bf16 4, f8e4m3fn 3, f8e5m2 2): "1.50000000e+00" for f32;
// - NaN (any payload or sign) as the dtype's quiet NaN bit pattern and infinities as theirs, in
//   hex ("0x7FC00000", "0x7F800000", "0xFF800000" for f32);
// - integers in decimal, pred as "true" / "false", complex as "(re, im)" with each part
//   spelled as its float type.
#pragma once

#include <string>
#include <vector>

#include "ndbuf/memory/tensor.hpp"

namespace ndbuf {

// One string per element, in column-major order (R's). A tensor on another device is read
// through to_host().
std::vector<std::string> format_literal_elements(const Tensor& tensor);

}  // namespace ndbuf
