// The PJRTBuffer printer: header, slices of rows and columns, footer.
#include "ndbuf/format/format_buffer.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "memory/strided_walk.hpp"
#include "ndbuf/base/dtype.hpp"
#include "ndbuf/base/error.hpp"
#include "ndbuf/base/shape.hpp"
#include "ndbuf/format/format_cell.hpp"
#include "ndbuf/memory/device.hpp"
#include "ndbuf/memory/transfer.hpp"

// Where SPEC 2.7 leaves room, these choices were made:
// - Data lines are the cell lines only; slice headers, "Columns a to b", scale lines and
//   blank lines do not count towards max_rows.
// - Every column chunk counts its rows against the budget, and a chunk prints no more rows
//   than the budget has left (never overrunning it by a chunk).
// - A matrix that cannot show a single row (budget spent, or max_rows_slice = 0) is not
//   announced (no empty "(3,.,.) =" header); printing stops there and the truncation line
//   follows.
// - The truncation line appears once, when any element was left out: rows cut by the budget
//   or by max_rows_slice, column chunks or whole matrices never reached.
// - Empty buffers print the header and the footer only.
// - The float mode is chosen per matrix from the elements the layout prints (all column
//   chunks together), so the scale line comes once, above the first chunk.
// - Widths 0 and 1 behave like any width too small for two cells: one column per chunk.
// - Complex elements take one mode from all their real and imaginary parts, so one scale
//   line holds for the whole matrix; a complex element counts once for the single-element
//   rule.
// - pred prints any non-zero byte (possible after pjrt_empty()) as 1.
namespace ndbuf {
namespace {

constexpr int64_t kUnlimited = -1;

// How often the float mode of a matrix is re-chosen from the elements a layout prints (see
// choose_layout); one round settles every matrix that is printed whole or cut by rows only.
constexpr int kModeRounds = 4;

// One printed matrix: element (i, j) lives at base + i * row_step + j * col_step bytes.
// 0-d tensors are a 1x1 matrix and 1-d tensors an n x 1 one (a column).
struct MatrixView {
  const char* base;
  int64_t nrows;
  int64_t ncols;
  int64_t row_step;
  int64_t col_step;
  const char* at(int64_t i, int64_t j) const { return base + i * row_step + j * col_step; }
};

// A run of columns printed together: rows [0, nrows) of columns [first, first + ncols),
// each cell right-aligned to `width`.
struct Chunk {
  int64_t first;
  int64_t ncols;
  int64_t nrows;
  size_t width;
};

struct Limits {
  int64_t rows;    // rows per matrix after max_rows_slice (never more than the matrix has)
  int64_t budget;  // data lines left over the whole buffer, or kUnlimited
  int64_t width;   // room for cells after the leading space, or kUnlimited
};

// Writes the cells of one dtype. Float and complex writers carry the mode of the matrix.
template <DType D>
struct CellWriter {
  using T = typename ElementType<D>::type;
  static constexpr DTypeClass kClass = dtype_info(D).cls;
  static constexpr bool kHasMode = kClass == DTypeClass::kFloat || kClass == DTypeClass::kComplex;

  FloatFormat format;

  static T read(const char* p) {
    T value;
    std::memcpy(&value, p, sizeof value);
    return value;
  }

  void append(std::string& out, const char* p) const {
    const T value = read(p);
    if constexpr (kClass == DTypeClass::kBool) {
      out += value != 0 ? '1' : '0';  // any non-zero byte is true
    } else if constexpr (kClass == DTypeClass::kSigned) {
      append_integer(out, static_cast<int64_t>(value));
    } else if constexpr (kClass == DTypeClass::kUnsigned) {
      append_integer(out, static_cast<uint64_t>(value));
    } else if constexpr (kClass == DTypeClass::kFloat) {
      append_float(out, to_double_value(value), format);
    } else {
      append_complex(out, static_cast<double>(value.real()), static_cast<double>(value.imag()),
                     format);
    }
  }

  static void add_stats(FloatStats& stats, const char* p) {
    const T value = read(p);
    stats.add_element();
    if constexpr (kClass == DTypeClass::kFloat) {
      stats.add_value(to_double_value(value));
    } else if constexpr (kClass == DTypeClass::kComplex) {
      stats.add_value(static_cast<double>(value.real()));
      stats.add_value(static_cast<double>(value.imag()));
    }
  }
};

template <class Writer>
size_t cell_width(const Writer& writer, const char* p, std::string& scratch) {
  scratch.clear();
  writer.append(scratch, p);
  return scratch.size();
}

// Splits the matrix into column chunks: each chunk prints as many rows as the matrix cap and
// the budget allow, and takes columns while k cells of the running common width w and the
// k - 1 separators fit: k * w + (k - 1) <= width. At least one column per chunk. Stops when
// the budget is spent.
template <class Writer>
std::vector<Chunk> plan_chunks(const Writer& writer, const MatrixView& m, const Limits& limits) {
  std::vector<Chunk> chunks;
  std::string scratch;
  int64_t budget = limits.budget;
  for (int64_t first = 0; first < m.ncols;) {
    const int64_t nrows = budget == kUnlimited ? limits.rows : std::min(limits.rows, budget);
    if (nrows <= 0) break;
    size_t width = 0;
    int64_t ncols = 0;
    for (int64_t j = first; j < m.ncols; ++j) {
      size_t column_width = 0;
      for (int64_t i = 0; i < nrows; ++i) {
        column_width = std::max(column_width, cell_width(writer, m.at(i, j), scratch));
      }
      const size_t widened = std::max(width, column_width);
      const auto k = static_cast<int64_t>(ncols + 1);
      if (ncols > 0 && limits.width != kUnlimited &&
          k * static_cast<int64_t>(widened) + (k - 1) > limits.width) {
        break;
      }
      width = widened;
      ncols = k;
    }
    chunks.push_back(Chunk{first, ncols, nrows, width});
    first += ncols;
    if (budget != kUnlimited) budget -= nrows;
  }
  return chunks;
}

template <class Writer>
FloatStats stats_of(const MatrixView& m, const std::vector<Chunk>& chunks) {
  FloatStats stats;
  for (const Chunk& chunk : chunks) {
    for (int64_t i = 0; i < chunk.nrows; ++i) {
      for (int64_t j = chunk.first; j < chunk.first + chunk.ncols; ++j) {
        Writer::add_stats(stats, m.at(i, j));
      }
    }
  }
  return stats;
}

// The elements any layout of this matrix can print: the first rows, and as many columns as
// the budget's chunks of one-character cells could hold. Bounded by the output, not the size.
Chunk candidate_region(const MatrixView& m, const Limits& limits) {
  const int64_t rows =
      limits.budget == kUnlimited ? limits.rows : std::min(limits.rows, limits.budget);
  int64_t ncols = m.ncols;
  if (limits.budget != kUnlimited && limits.width != kUnlimited && rows > 0) {
    const int64_t max_chunks = (limits.budget + rows - 1) / rows;
    const int64_t per_chunk = std::max<int64_t>(1, (limits.width + 1) / 2);
    if (max_chunks <= m.ncols / per_chunk) ncols = std::min(m.ncols, max_chunks * per_chunk);
  }
  return Chunk{0, ncols, rows, 0};
}

// The layout of one matrix. For floats the mode must come from the printed elements only,
// while which elements are printed depends on the cell widths of the mode: start from the
// mode of every element that could be printed, then re-choose it from what the layout
// prints until the two agree. A matrix printed whole, or cut by rows only, settles at once;
// a layout that still disagrees after kModeRounds keeps the last mode (contrived inputs).
template <class Writer>
std::vector<Chunk> choose_layout(Writer& writer, const MatrixView& m, const Limits& limits) {
  if constexpr (!Writer::kHasMode) {
    return plan_chunks(writer, m, limits);
  } else {
    writer.format = stats_of<Writer>(m, {candidate_region(m, limits)}).choose();
    std::vector<Chunk> chunks = plan_chunks(writer, m, limits);
    for (int round = 0; round < kModeRounds; ++round) {
      const FloatFormat printed = stats_of<Writer>(m, chunks).choose();
      if (printed == writer.format) break;
      writer.format = printed;
      chunks = plan_chunks(writer, m, limits);
    }
    return chunks;
  }
}

template <class Writer>
void emit_matrix(const Writer& writer, const MatrixView& m, const std::vector<Chunk>& chunks,
                 std::vector<std::string>& lines) {
  if constexpr (Writer::kHasMode) {
    if (writer.format.mode == FloatMode::kScaled) lines.push_back(scale_line(writer.format));
  }
  const bool split = chunks.front().ncols < m.ncols;
  std::string cell;
  for (const Chunk& chunk : chunks) {
    if (split) {
      lines.push_back("Columns " + std::to_string(chunk.first + 1) + " to " +
                      std::to_string(chunk.first + chunk.ncols));
    }
    for (int64_t i = 0; i < chunk.nrows; ++i) {
      std::string line(1, ' ');
      for (int64_t j = chunk.first; j < chunk.first + chunk.ncols; ++j) {
        cell.clear();
        writer.append(cell, m.at(i, j));
        if (j > chunk.first) line += ' ';
        if (cell.size() < chunk.width) line.append(chunk.width - cell.size(), ' ');
        line += cell;
      }
      lines.push_back(std::move(line));
    }
  }
}

// "(1,2,.,.) =": the 1-based indices of the first `count` axes.
std::string slice_header(const std::vector<int64_t>& index, size_t count) {
  std::string out = "(";
  for (size_t k = 0; k < count; ++k) out += std::to_string(index[k] + 1) + ",";
  return out + ".,.) =";
}

// The matrix over the last two dims at leading index (0, ..., 0): a 0-d tensor is a 1x1
// matrix, a 1-d tensor an n x 1 column.
MatrixView last_two_dims(const Tensor& tensor, int64_t item) {
  const Shape& shape = tensor.shape();
  const Strides& strides = tensor.strides();
  const size_t rank = shape.size();
  MatrixView m{static_cast<const char*>(tensor.data()), 1, 1, 0, 0};
  if (rank == 1) {
    m.nrows = shape[0];
    m.row_step = strides[0] * item;
  } else if (rank >= 2) {
    m.nrows = shape[rank - 2];
    m.ncols = shape[rank - 1];
    m.row_step = strides[rank - 2] * item;
    m.col_step = strides[rank - 1] * item;
  }
  return m;
}

Limits limits_of(const BufferPrintOptions& options, int64_t nrows) {
  Limits limits;
  limits.rows = options.max_rows_slice < 0 ? nrows : std::min(nrows, options.max_rows_slice);
  limits.budget = options.max_rows < 0 ? kUnlimited : options.max_rows;
  // Widths 0 and 1 leave no room at all: one column per chunk, as for any width too small.
  limits.width = options.max_width < 0 ? kUnlimited : std::max<int64_t>(0, options.max_width - 1);
  return limits;
}

// Prints the matrices in order of their leading indices, while the budget lasts; adds the
// truncation line when any element was left out.
template <DType D>
void format_data(const Tensor& tensor, const BufferPrintOptions& options,
                 std::vector<std::string>& lines) {
  const auto item = static_cast<int64_t>(itemsize(D));
  MatrixView m = last_two_dims(tensor, item);
  const char* const origin = m.base;
  const size_t nlead = tensor.rank() > 2 ? tensor.rank() - 2 : 0;
  StridedOdometer lead(tensor.shape(), tensor.strides(), tensor.strides(), leading_axes(nlead));
  Limits limits = limits_of(options, m.nrows);

  CellWriter<D> writer;
  bool cut = false;
  bool first = true;
  do {
    if (limits.rows == 0 || limits.budget == 0) {  // this matrix cannot show a single row
      cut = true;
      break;
    }
    m.base = origin + lead.a() * item;
    const std::vector<Chunk> chunks = choose_layout(writer, m, limits);

    if (!first) lines.emplace_back();  // a blank line between matrices
    first = false;
    if (nlead > 0) lines.push_back(slice_header(lead.index(), nlead));
    emit_matrix(writer, m, chunks, lines);

    int64_t printed_cols = 0;
    for (const Chunk& chunk : chunks) {
      printed_cols += chunk.ncols;
      if (chunk.nrows < m.nrows) cut = true;
      if (limits.budget != kUnlimited) limits.budget -= chunk.nrows;
    }
    if (printed_cols < m.ncols) cut = true;
  } while (lead.next());

  if (cut) lines.emplace_back(kTruncationLine);
}

}  // namespace

std::string default_buffer_footer(const Tensor& tensor) {
  return "[ " + platform_label(tensor.device().platform) + std::string(dtype_name(tensor.dtype())) +
         "{" + shape_to_string(tensor.shape(), "x") + "} ] ";
}

std::vector<std::string> format_buffer(const Tensor& tensor, const BufferPrintOptions& options) {
  std::vector<std::string> lines;
  if (options.header) lines.emplace_back(kBufferHeader);
  if (tensor.numel() > 0) {
    // A GPU buffer is read through one copy to the host (its cost grows with the buffer, unlike
    // printing from host memory); the footer still names the buffer's own platform.
    const Tensor host = to_host(tensor);
    dispatch(host.dtype(),
             [&](auto tag) { format_data<decltype(tag)::value>(host, options, lines); });
  }
  if (!options.footer) {
    lines.push_back(default_buffer_footer(tensor));
  } else if (!options.footer->empty()) {
    lines.push_back(*options.footer + " ");
  }
  return lines;
}

}  // namespace ndbuf
