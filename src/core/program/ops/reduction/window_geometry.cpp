// Window attribute checks (every size overflow-checked) and the walk over window elements.
#include "program/ops/reduction/window_geometry.hpp"

#include <algorithm>

#include "ndbuf/memory/parallel.hpp"
#include "program/kernels/kernel_values.hpp"

namespace ndbuf::program {
namespace {

// Window elements handed to a visitor at a time: memory stays bounded for any window size.
constexpr int64_t kPieceElements = 4096;
constexpr int64_t kVisitsPerClockRead = 4096;  // between reads of the clock that polls interrupts

std::vector<int64_t> or_default(const std::vector<int64_t>& v, size_t rank, int64_t value,
                                const std::string& name, const std::string& op) {
  if (v.empty()) return std::vector<int64_t>(rank, value);
  if (v.size() != rank) kernel_error(op, name + " needs one entry per operand dim.");
  for (int64_t x : v) {
    if (x <= 0) kernel_error(op, name + " must be positive, not " + std::to_string(x) + ".");
  }
  return v;
}

[[noreturn]] void too_large(const std::string& op, const std::string& what, size_t d,
                            const std::string& formula) {
  kernel_error(op, "the " + what + " of dim " + std::to_string(d) + ", " + formula +
                       ", does not fit a 64-bit integer.");
}

std::string str(int64_t x) { return std::to_string(x); }

// (n - 1) * step + 1 for n > 0 (the extent of n elements `step` apart), 0 for n = 0.
bool spread(int64_t n, int64_t step, int64_t* out) {
  if (n == 0) {
    *out = 0;
    return true;
  }
  return checked_mul(n - 1, step, out) && checked_add(*out, 1, out);
}

WindowAxis make_axis(int64_t n, int64_t size, int64_t stride, int64_t base, int64_t dilation,
                     std::pair<int64_t, int64_t> pad, size_t d, const std::string& op) {
  WindowAxis a{size, stride, dilation, base, pad.first, 0, 0};
  if (!spread(n, base, &a.dilated)) {
    too_large(op, "base-dilated input size", d, "(" + str(n) + " - 1) * " + str(base) + " + 1");
  }
  // Each partial sum must fit too: source() subtracts the low padding from positions up to
  // the padded size.
  int64_t low_part = 0, high_part = 0, padded = 0, span = 0;
  if (!checked_add(pad.first, a.dilated, &low_part) ||
      !checked_add(a.dilated, pad.second, &high_part) ||
      !checked_add(low_part, pad.second, &padded)) {
    too_large(op, "padded input size", d,
              str(pad.first) + " + " + str(a.dilated) + " + " + str(pad.second));
  }
  if (!spread(size, dilation, &span)) {
    too_large(op, "dilated window size", d, "(" + str(size) + " - 1) * " + str(dilation) + " + 1");
  }
  a.count = padded <= 0 || span > padded ? 0 : (padded - span) / stride + 1;
  return a;
}

// Steps through the leading dims (all but the last) of one window in row-major order, keeping
// the input offset of the current row (the sum of each dim's contribution) up to date.
class LeadCursor {
 public:
  LeadCursor(const WindowGeometry& g, const Strides& strides, size_t dims)
      : g_(g), strides_(strides), w_(dims), part_(dims) {}

  void start(const std::vector<int64_t>& out) {
    out_ = &out;
    sum_ = 0;
    holes_ = 0;
    std::fill(part_.begin(), part_.end(), 0);
    for (size_t d = 0; d < w_.size(); ++d) {
      w_[d] = 0;
      set(d);
    }
  }

  // The offset of the current row's first input element, -1 when the row lies in padding.
  int64_t offset() const { return holes_ > 0 ? -1 : sum_; }

  // Moves to the next row; false (back at the first) after the last.
  bool advance() {
    for (size_t d = w_.size(); d-- > 0;) {
      const bool carry = ++w_[d] == g_.axes[d].size;
      if (carry) w_[d] = 0;
      set(d);
      if (!carry) return true;
    }
    return false;
  }

 private:
  void set(size_t d) {
    if (part_[d] < 0)
      --holes_;
    else
      sum_ -= part_[d];
    const int64_t src = g_.axes[d].source((*out_)[d], w_[d]);
    part_[d] = src < 0 ? -1 : src * strides_[d];
    if (part_[d] < 0)
      ++holes_;
    else
      sum_ += part_[d];
  }

  const WindowGeometry& g_;
  const Strides& strides_;
  const std::vector<int64_t>* out_ = nullptr;
  std::vector<int64_t> w_, part_;  // window index; each dim's offset, -1 for a hole
  int64_t sum_ = 0, holes_ = 0;
};

// Offsets of elements [w0, w1) of window `o` along the last dim `a` (input stride `step`) of a
// row starting at `prefix` (-1: the row is padding).
void fill_row(const WindowAxis& a, int64_t o, int64_t w0, int64_t w1, int64_t prefix, int64_t step,
              int64_t* out) {
  if (prefix < 0) {
    std::fill(out, out + (w1 - w0), -1);
  } else if (a.base == 1 && a.dilation == 1) {
    const int64_t p0 = o * a.stride - a.low;  // consecutive elements read consecutive inputs
    for (int64_t w = w0; w < w1; ++w) {
      const int64_t p = p0 + w;
      *out++ = p >= 0 && p < a.dilated ? prefix + p * step : -1;
    }
  } else {
    for (int64_t w = w0; w < w1; ++w) {
      const int64_t src = a.source(o, w);
      *out++ = src < 0 ? -1 : prefix + src * step;
    }
  }
}

}  // namespace

WindowGeometry window_geometry(const Shape& input, const WindowConfig& window,
                               const std::string& op) {
  const size_t rank = input.size();
  if (window.window_dimensions.size() != rank) {
    kernel_error(op, "window_dimensions needs one entry per operand dim.");
  }
  const auto dims = or_default(window.window_dimensions, rank, 1, "window_dimensions", op);
  const auto strides = or_default(window.window_strides, rank, 1, "window_strides", op);
  const auto base = or_default(window.base_dilations, rank, 1, "base_dilations", op);
  const auto dilation = or_default(window.window_dilations, rank, 1, "window_dilations", op);
  auto padding = window.padding;
  if (padding.empty()) padding.assign(rank, {0, 0});
  if (padding.size() != rank) kernel_error(op, "padding needs one (low, high) pair per dim.");
  WindowGeometry g;
  g.window_shape = dims;
  int64_t windows = 1, elements = 1;
  for (size_t d = 0; d < rank; ++d) {
    g.axes.push_back(
        make_axis(input[d], dims[d], strides[d], base[d], dilation[d], padding[d], d, op));
    g.result_shape.push_back(g.axes[d].count);
    if (!checked_mul(elements, dims[d], &elements)) {
      kernel_error(op, "the window " + shape_to_tuple(dims) +
                           " has more elements than a 64-bit count can hold.");
    }
  }
  int64_t visits = 0;
  const bool none =
      std::find(g.result_shape.begin(), g.result_shape.end(), 0) != g.result_shape.end();
  bool fits = true;
  for (int64_t count : g.result_shape) fits = fits && checked_mul(windows, count, &windows);
  if (!none && (!fits || !checked_mul(windows, elements, &visits))) {
    kernel_error(op, "windows " + shape_to_tuple(g.result_shape) + " of shape " +
                         shape_to_tuple(dims) +
                         " need more element visits than a 64-bit count can hold.");
  }
  return g;
}

void walk_windows(const WindowGeometry& g, const Shape& input, const WindowVisit& visit) {
  const size_t rank = input.size();
  const int64_t results = checked_numel(g.result_shape);
  const int64_t window = checked_numel(g.window_shape);
  if (results == 0) return;
  if (rank == 0) {
    const int64_t only = 0;
    visit({0, &only, 1, true, true});
    return;
  }
  const Strides strides = row_major_strides(input);
  const WindowAxis& row = g.axes[rank - 1];
  const int64_t cap = std::min(window, kPieceElements);
  std::vector<int64_t> offsets(static_cast<size_t>(cap));
  std::vector<int64_t> out(rank, 0);
  LeadCursor lead(g, strides, rank - 1);
  int64_t since_poll = 0;
  for (int64_t r = 0; r < results; ++r, next_index(out, g.result_shape)) {
    lead.start(out);
    int64_t fill = 0, done = 0;
    bool first = true;
    do {
      const int64_t prefix = lead.offset();
      for (int64_t w0 = 0; w0 < row.size;) {
        const int64_t w1 = std::min(row.size, w0 + (cap - fill));
        fill_row(row, out[rank - 1], w0, w1, prefix, strides[rank - 1], offsets.data() + fill);
        fill += w1 - w0;
        done += w1 - w0;
        w0 = w1;
        if (fill == cap && done < window) {
          visit({r, offsets.data(), fill, first, false});
          first = false;
          since_poll += fill;
          fill = 0;
        }
      }
    } while (lead.advance());
    visit({r, offsets.data(), fill, first, true});
    since_poll += fill + 1;
    // A visit may run an interpreted body (microseconds): poll by the clock, checked every
    // few thousand visits.
    if (since_poll >= kVisitsPerClockRead) {
      check_interrupt_periodically();
      since_poll = 0;
    }
  }
}

}  // namespace ndbuf::program
