#include "ndbuf/format_nested.hpp"

#include <complex>
#include <cstring>
#include <type_traits>

#include "ndbuf/error.hpp"
#include "ndbuf/format_shortest.hpp"

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

  void print(const char* p, size_t depth) {
    const size_t rank = shape_.size();
    if (depth == rank) {
      append_(out_, p);
      return;
    }
    std::string separator = ",";
    if (depth + 1 < rank) {
      separator += '\n';
      separator.append(rank - depth - 2, '\n');
      separator.append(depth + 1, ' ');
    } else {
      separator += ' ';
    }
    out_ += '[';
    const int64_t len = shape_[depth];
    const int64_t step = byte_strides_[depth];
    const int64_t limit = limit_for(rank - depth - 1);
    const auto item = [&](int64_t i) { print(p + i * step, depth + 1); };
    if (!elide_ || len <= limit) {
      for (int64_t i = 0; i < len; ++i) {
        if (i > 0) out_ += separator;
        item(i);
      }
    } else {
      // As ndarray: the first item always shows, then up to limit / 2 from each end.
      const int64_t edge = limit / 2;
      item(0);
      for (int64_t i = 1; i < edge; ++i) {
        out_ += separator;
        item(i);
      }
      out_ += separator;
      out_ += "...";
      for (int64_t i = len - edge; i < len; ++i) {
        out_ += separator;
        item(i);
      }
    }
    out_ += ']';
  }

 private:
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
};

}  // namespace

void append_element(std::string& out, DType dtype, const void* data) {
  appender_for(dtype)(out, static_cast<const char*>(data));
}

std::string format_nested(const Tensor& tensor, const NestedFormatOptions& options) {
  if (tensor.device().platform != Platform::kCpu) {
    fail(ErrorKind::kDevice, "Printing needs the tensor in host memory; it is on " +
                                 device_label(tensor.device()) + ".");
  }
  std::string out;
  if (tensor.numel() == 0) {
    out.append(tensor.rank(), '[');
    out.append(tensor.rank(), ']');
    return out;
  }
  NestedPrinter printer(tensor, options, out);
  printer.print(static_cast<const char*>(tensor.data()), 0);
  return out;
}

}  // namespace ndbuf
