// Structural kernels that assemble a result from pieces: iota, concatenate, pad,
// dynamic_update_slice.
#include <algorithm>
#include <complex>
#include <cstring>

#include "program/kernels/result_memory.hpp"
#include "program/ops/structure/structure.hpp"

namespace ndbuf::program {
namespace {

// Fills a dense tensor with copies of the one element of `value`.
void fill(Tensor& out, const Tensor& value) {
  const size_t item = itemsize(out.dtype());
  char* dst = static_cast<char*>(out.data());
  const char* src = static_cast<const char*>(value.data());
  for (int64_t k = 0; k < out.numel(); ++k) std::copy(src, src + item, dst + k * item);
}

template <class T>
T from_index(int64_t index) {
  if constexpr (kIsNarrowFloat<T>) {
    return narrow_float_from_double<T>(static_cast<double>(index));
  } else {
    return static_cast<T>(index);
  }
}

}  // namespace

// One period of 0, 1, 2, ... along `dimension`, broadcast to the other dims as a view (as
// broadcast_in_dim's results are): readers take the count from the strides, and a reduction
// pairing values with their positions (argmax) reads one index for a whole row of lanes.
Tensor iota(DType dtype, const Shape& shape, int64_t dimension) {
  if (checked_numel(shape) == 0) return Tensor::allocate(dtype, shape, Order::kRowMajor);
  const int64_t extent = shape[dimension];
  Tensor counts = Tensor::allocate(dtype, {extent}, Order::kRowMajor);
  dispatch(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* dst = static_cast<T*>(counts.data());
    for (int64_t i = 0; i < extent; ++i) dst[i] = from_index<T>(i);
  });
  Strides strides(shape.size(), 0);
  strides[dimension] = 1;
  return Tensor(counts.storage(), dtype, shape, strides, 0);
}

Tensor concatenate(const std::vector<Tensor>& xs, int64_t dimension) {
  Shape shape = xs.front().shape();
  shape[dimension] = 0;
  for (const Tensor& x : xs) shape[dimension] += x.shape()[dimension];
  Tensor out = Tensor::allocate(xs.front().dtype(), shape, Order::kRowMajor);
  Dims start(shape.size(), 0);
  const Dims ones(shape.size(), 1);
  for (const Tensor& x : xs) {
    write_window(out, x, start, ones);
    start[dimension] += x.shape()[dimension];
  }
  return out;
}

Tensor pad(const Tensor& x, const Tensor& value, const Dims& low, const Dims& high,
           const Dims& interior) {
  const size_t rank = x.rank();
  Shape shape(rank);
  Dims first(rank), count(rank), start(rank), steps(rank);
  for (size_t k = 0; k < rank; ++k) {
    const int64_t n = x.shape()[k];
    const int64_t step = interior[k] + 1;
    const int64_t spread = n == 0 ? 0 : (n - 1) * step + 1;
    shape[k] = std::max<int64_t>(0, low[k] + spread + high[k]);
    // Input element i lands at low + i * step; keep those inside [0, shape).
    int64_t lo = 0;
    while (lo < n && low[k] + lo * step < 0) ++lo;
    int64_t hi = n;
    while (hi > lo && low[k] + (hi - 1) * step >= shape[k]) --hi;
    first[k] = lo;
    count[k] = hi - lo;
    start[k] = low[k] + lo * step;
    steps[k] = step;
  }
  Tensor out = Tensor::allocate(x.dtype(), shape, Order::kRowMajor);
  fill(out, value);
  Dims limit(rank), ones(rank, 1);
  for (size_t k = 0; k < rank; ++k) limit[k] = first[k] + count[k];
  for (size_t k = 0; k < rank; ++k) {
    if (count[k] == 0) return out;
  }
  write_window(out, slice(x, first, limit, ones), start, steps);
  return out;
}

namespace {

// `x`'s own memory when `memory` offers it (the run holds it alone, ExecContext::result) and
// the update is not a view of it; otherwise a copy of `x`.
Tensor updatable_copy(const Tensor& x, const Tensor& update, ResultMemory& memory) {
  std::optional<Tensor> offered = memory.take_offered(x.dtype(), x.shape());
  if (offered && offered->storage() == x.storage() && offered->offset() == x.offset() &&
      offered->strides() == x.strides() && update.storage() != x.storage()) {
    return *offered;
  }
  return copy_view(x, 0, x.shape(), x.strides());
}

}  // namespace

Tensor dynamic_update_slice(const Tensor& x, const Tensor& update, Dims start,
                            ResultMemory& memory) {
  Tensor out = updatable_copy(x, update, memory);
  for (size_t k = 0; k < x.rank(); ++k) {
    start[k] = std::clamp<int64_t>(start[k], 0, x.shape()[k] - update.shape()[k]);
  }
  write_window(out, update, start, Dims(x.rank(), 1));
  return out;
}

Tensor dynamic_update_slice(const Tensor& x, const Tensor& update, Dims start) {
  ResultMemory fresh;
  return dynamic_update_slice(x, update, std::move(start), fresh);
}

}  // namespace ndbuf::program
