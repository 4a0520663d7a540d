// Slicing tensors into views with ndarray's index and range rules.
#include "ndbuf/harray/slice.hpp"

#include <string>

#include "ndbuf/base/error.hpp"

namespace ndbuf {
namespace {

std::string axis_text(size_t axis, int64_t len) {
  return "axis " + std::to_string(axis + 1) + " of length " + std::to_string(len);
}

// A negative position counts from the back; the result may still lie outside [0, len].
int64_t from_back(int64_t x, int64_t len) { return x < 0 ? len + x : x; }

int64_t resolve_bound(std::optional<int64_t> value, int64_t fallback, int64_t len, size_t axis,
                      const char* what) {
  if (!value) return fallback;
  const int64_t pos = from_back(*value, len);
  if (pos < 0 || pos > len) {
    fail(ErrorKind::kIndex, std::string("Slice ") + what + " " + std::to_string(*value) +
                                " is out of bounds for " + axis_text(axis, len) + ".");
  }
  return pos;
}

}  // namespace

AxisSlice parse_axis_slice(const int32_t* values, size_t count, int32_t missing, size_t axis) {
  const auto part = [&](size_t k) -> std::optional<int64_t> {
    if (values[k] == missing) return std::nullopt;
    return values[k];
  };
  if (count == 1) {
    if (values[0] == missing) {
      fail(ErrorKind::kInvalidArgument, "Index NA is not allowed for axis " +
                                            std::to_string(axis + 1) +
                                            ": an index must be a whole number.");
    }
    return AxisSlice::at(values[0]);
  }
  if (count == 3) return AxisSlice::range(part(0), part(1), part(2));
  fail(ErrorKind::kInvalidArgument, "Each element must have a length of 1 or 3 (axis " +
                                        std::to_string(axis + 1) + " has length " +
                                        std::to_string(count) + ").");
}

int64_t resolve_index(int64_t index, int64_t len, size_t axis) {
  const int64_t pos = from_back(index, len);
  if (pos < 0 || pos >= len) {
    fail(ErrorKind::kIndex,
         "Index " + std::to_string(index) + " is out of bounds for " + axis_text(axis, len) + ".");
  }
  return pos;
}

ResolvedRange resolve_range(const AxisSlice& range, int64_t len, size_t axis) {
  const int64_t step = range.step.value_or(1);
  if (step == 0) {
    fail(ErrorKind::kInvalidArgument,
         "Slice step 0 is invalid for " + axis_text(axis, len) + ": the step must not be 0.");
  }
  const int64_t start = resolve_bound(range.start, 0, len, axis, "start");
  const int64_t end = resolve_bound(range.end, len, len, axis, "end");
  const int64_t span = end > start ? end - start : 0;
  // |step| may be as low as INT64_MIN only from C++ callers; keep the arithmetic in range.
  const int64_t magnitude = step > 0 ? step : (step == INT64_MIN ? INT64_MAX : -step);
  const int64_t length = span == 0 ? 0 : 1 + (span - 1) / magnitude;
  if (span == 0) return {start, 0, step > 0 ? 1 : -1};
  return {step > 0 ? start : end - 1, length, step > 0 ? magnitude : -magnitude};
}

Tensor slice(const Tensor& tensor, const SliceSpec& spec) {
  if (spec.size() != tensor.rank()) {
    // harmonium's message, word for word (the R layer passes it through).
    fail(ErrorKind::kInvalidArgument,
         "The list must have the same length as the number of dimensions.");
  }
  Shape shape;
  Strides strides;
  int64_t offset = tensor.offset();
  // An empty tensor addresses no element, and its strides may be huge (a zero dim beside
  // dims whose product exceeds any storage): its views keep its offset and strides, so no
  // product can overflow.
  const bool empty = tensor.numel() == 0;
  for (size_t axis = 0; axis < spec.size(); ++axis) {
    const int64_t len = tensor.shape()[axis];
    const int64_t stride = tensor.strides()[axis];
    if (spec[axis].kind == AxisSlice::Kind::kIndex) {
      const int64_t index = resolve_index(spec[axis].index, len, axis);
      if (!empty) offset += index * stride;
      continue;
    }
    const ResolvedRange r = resolve_range(spec[axis], len, axis);
    shape.push_back(r.length);
    // For lengths 0 and 1 the stride is never followed: keep the source's (with the walk's
    // sign) instead of a product that could overflow, and never store zero.
    const bool followed = r.length > 1 && !empty;
    strides.push_back(followed ? stride * r.step : (r.step < 0 ? -stride : stride));
    // An empty axis addresses nothing: the offset stays on valid positions only.
    if (r.length > 0 && !empty) offset += r.first * stride;
  }
  return Tensor(tensor.storage(), tensor.dtype(), std::move(shape), std::move(strides), offset);
}

}  // namespace ndbuf
