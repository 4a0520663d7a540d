// The PJRTBuffer printer (SPEC section 2.7): every line of print(x), header and footer
// included, so the R side only writes them out.
//
//   PJRTBuffer
//    1 3 5
//    2 4 6
//   [ CPUi32{2x3} ]
//
// (the header and footer lines end with one space). 0-d prints as one cell, 1-d as a column,
// 2-d as a matrix and rank >= 3 as matrices over the last two dims, each introduced by
// "(i,j,.,.) =". Only the printed elements are read, so for a host buffer the cost does not
// depend on its size.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ndbuf/memory/tensor.hpp"

namespace ndbuf {

struct BufferPrintOptions {
  // Budget of data lines over the whole buffer; negative means unlimited.
  int64_t max_rows = 30;
  // Width of data lines, including their leading space; negative means unlimited. At least
  // one column is always printed, so tiny widths print one column per chunk.
  int64_t max_width = 85;
  // Rows printed of each matrix; negative means unlimited.
  int64_t max_rows_slice = 30;
  // Print the "PJRTBuffer " line.
  bool header = true;
  // nullopt: the default footer "[ CPUf32{2x3} ] "; "" no footer; "txt": the line "txt ".
  std::optional<std::string> footer;
};

inline constexpr const char* kBufferHeader = "PJRTBuffer ";
inline constexpr const char* kTruncationLine =
    " ... [output was truncated, set max_rows = -1 to see all]";

// "[ CPUf32{2x3} ] " (platform upper case, dims joined by x, "{}" for 0-d).
std::string default_buffer_footer(const Tensor& tensor);

// Every line of the printed buffer. A tensor on another platform is read through to_host()
// (one copy of the bytes its view spans); its footer still names its own platform.
std::vector<std::string> format_buffer(const Tensor& tensor, const BufferPrintOptions& options);

}  // namespace ndbuf
