// The nested-bracket layout of HArray's print(), in the tensor's own axis order.
#include "ndbuf/format/format_nested.hpp"

#include <algorithm>
#include <complex>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/format/format_shortest.hpp"
#include "ndbuf/memory/transfer.hpp"

namespace ndbuf {
namespace {

using AppendFn = void (*)(std::string&, const char*);

template <class T>
T load(const char* p) {
  T value;
  std::memcpy(&value, p, sizeof value);
  return value;
}

template <DType D>
void append_typed(std::string& out, const char* p) {
  using T = typename ElementType<D>::type;
  const T value = load<T>(p);
  if constexpr (D == DType::kPred) {
    out += value != 0 ? "true" : "false";
  } else if constexpr (std::is_integral_v<T>) {
    out += std::to_string(value);
  } else if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    append_shortest(out, value);
  } else {
    out += format_shortest(value);
  }
}

AppendFn appender_for(DType dtype) {
  return dispatch(dtype, [](auto tag) -> AppendFn { return &append_typed<decltype(tag)::value>; });
}

class NestedPrinter {
 public:
  NestedPrinter(const Tensor& t, const NestedFormatOptions& options, std::string& out)
      : shape_(t.shape()),
        options_(options),
        out_(out),
        append_(appender_for(t.dtype())),
        elide_(t.numel() >= options.elide_from) {
    const auto item = static_cast<int64_t>(itemsize(t.dtype()));
    for (int64_t s : t.strides()) byte_strides_.push_back(s * item);
  }

  // Walks the axes with an explicit stack instead of recursion: a tensor may have any rank
  // (R allows 100000 dims of length 1), and the C stack must not grow with it.
  void print(const char* data) {
    const size_t rank = shape_.size();
    if (rank == 0) {
      append_(out_, data);
      return;
    }
    separators_.resize(rank);
    struct Frame {
      const char* p;
      int64_t next;  // position in the axis' item sequence
    };
    std::vector<Frame> stack{{data, 0}};
    out_ += '[';
    while (!stack.empty()) {
      const size_t depth = stack.size() - 1;
      const Frame frame = stack.back();
      if (frame.next == item_count(depth)) {
        out_ += ']';
        stack.pop_back();
        continue;
      }
      if (frame.next > 0) out_ += separator(depth);
      stack.back().next = frame.next + 1;
      const int64_t index = item_at(depth, frame.next);
      if (index < 0) {
        out_ += "...";
        continue;
      }
      const char* p = frame.p + index * byte_strides_[depth];
      if (depth + 1 == rank) {
        append_(out_, p);
      } else {
        out_ += '[';
        stack.push_back({p, 0});
      }
    }
  }

 private:
  bool elided(size_t depth) const {
    return elide_ && shape_[depth] > limit_for(shape_.size() - depth - 1);
  }
  // As ndarray: the first item always shows, then up to limit / 2 from each end around "...".
  int64_t edge(size_t depth) const { return limit_for(shape_.size() - depth - 1) / 2; }
  int64_t item_count(size_t depth) const {
    if (!elided(depth)) return shape_[depth];
    return std::max<int64_t>(edge(depth), 1) + 1 + edge(depth);
  }
  // The index of the k-th item of an axis, or -1 for the "..." of an elided axis.
  int64_t item_at(size_t depth, int64_t k) const {
    if (!elided(depth)) return k;
    const int64_t head = std::max<int64_t>(edge(depth), 1);
    if (k < head) return k;
    if (k == head) return -1;
    return shape_[depth] - edge(depth) + (k - head - 1);
  }
  // Items are joined by "," then, above the last axis, one newline per axis below plus the
  // indent; built once per axis and only for axes that have more than one item.
  const std::string& separator(size_t depth) {
    std::string& separator = separators_[depth];
    if (!separator.empty()) return separator;
    const size_t rank = shape_.size();
    separator = ",";
    if (depth + 1 < rank) {
      separator += '\n';
      separator.append(rank - depth - 2, '\n');
      separator.append(depth + 1, ' ');
    } else {
      separator += ' ';
    }
    return separator;
  }
  int64_t limit_for(size_t axes_after) const {
    if (axes_after == 0) return options_.limit_last;
    if (axes_after == 1) return options_.limit_next_to_last;
    return options_.limit_other;
  }

  const Shape& shape_;
  std::vector<int64_t> byte_strides_;
  const NestedFormatOptions& options_;
  std::string& out_;
  AppendFn append_;
  bool elide_;
  std::vector<std::string> separators_;
};

}  // namespace

void append_element(std::string& out, DType dtype, const void* data) {
  appender_for(dtype)(out, static_cast<const char*>(data));
}

std::string format_nested(const Tensor& device_tensor, const NestedFormatOptions& options) {
  const Tensor tensor = to_host(device_tensor);
  std::string out;
  if (tensor.numel() == 0) {
    out.append(tensor.rank(), '[');
    out.append(tensor.rank(), ']');
    return out;
  }
  NestedPrinter printer(tensor, options, out);
  printer.print(static_cast<const char*>(tensor.data()));
  return out;
}

}  // namespace ndbuf
