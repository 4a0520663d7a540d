// libFuzzer target for slicing: random shapes, random per-axis specs (as the R API hands them
// over: 1 or 3 int32 values with NA), slices of slices. Every spec must either be rejected
// with an ndbuf::Error or give a view whose elements all lie inside the storage; printing,
// comparing and collecting the view must then work.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/convert/convert.hpp"
#include "ndbuf/format/format_nested.hpp"
#include "ndbuf/harray/compare.hpp"
#include "ndbuf/harray/harray.hpp"
#include "ndbuf/harray/slice.hpp"

namespace {

class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  int32_t value() {
    // Mostly small values around the axis lengths, sometimes NA or extremes.
    const uint8_t kind = byte();
    if (kind < 16) return ndbuf::kRIntegerNA;
    if (kind < 24) return kind % 2 ? INT32_MAX : INT32_MIN + 1;
    return static_cast<int32_t>(byte() % 21) - 10;
  }
  bool empty() const { return pos_ >= size_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

ndbuf::SliceSpec random_spec(Input& in, size_t rank) {
  ndbuf::SliceSpec spec;
  const size_t count = in.byte() % 16 == 0 ? rank + 1 : rank;  // sometimes the wrong length
  for (size_t axis = 0; axis < count; ++axis) {
    const int32_t values[3] = {in.value(), in.value(), in.value()};
    spec.push_back(
        ndbuf::parse_axis_slice(values, in.byte() % 2 ? 1 : 3, ndbuf::kRIntegerNA, axis));
  }
  return spec;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  const size_t rank = in.byte() % 5;
  ndbuf::Shape shape;
  for (size_t k = 0; k < rank; ++k) shape.push_back(in.byte() % 6);
  ndbuf::Tensor base =
      ndbuf::Tensor::allocate(ndbuf::DType::kF64, shape, ndbuf::Order::kColumnMajor);
  auto* p = static_cast<double*>(base.data());
  for (int64_t i = 0; i < base.numel(); ++i) p[i] = static_cast<double>(i);
  ndbuf::HArray h = ndbuf::HArray::from_buffer(base);
  for (int round = 0; round < 4 && !in.empty(); ++round) {
    try {
      h = h.slice(random_spec(in, h.tensor().rank()));
    } catch (const ndbuf::Error&) {
      continue;  // rejected: fine, as long as nothing crashed
    }
    const ndbuf::Tensor& t = h.tensor();
    std::vector<double> out(static_cast<size_t>(t.numel()) + 1);
    ndbuf::copy_to_r_row_major(t, out.data());
    for (int64_t i = 0; i < t.numel(); ++i) {
      if (out[i] < 0 || out[i] >= static_cast<double>(base.numel())) __builtin_trap();
    }
    if (!ndbuf::tensors_equal(t, t)) __builtin_trap();  // no NaN in this data
    (void)ndbuf::format_nested(t);
    (void)h.to_buffer();
  }
  return 0;
}
