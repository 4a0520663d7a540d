#include "program/kernels/f32_widening.hpp"

#include "convert/half_kernels.hpp"
#include "ndbuf/memory/parallel.hpp"

namespace ndbuf::program {

Tensor widened_to_f32(const Tensor& x) {
  const bool row_major = x.is_contiguous(Order::kRowMajor);
  if ((x.dtype() != DType::kBF16 && x.dtype() != DType::kF16) ||
      (!row_major && !x.is_contiguous(Order::kColumnMajor))) {
    return x;
  }
  Tensor wide =
      Tensor::allocate(DType::kF32, x.shape(), row_major ? Order::kRowMajor : Order::kColumnMajor);
  const auto widen = x.dtype() == DType::kBF16 ? &widen_bf16_to_f32 : &widen_f16_to_f32;
  const auto* in = static_cast<const uint16_t*>(x.data());
  float* out = static_cast<float*>(wide.data());
  for_each_block(x.numel(), sizeof(float) + sizeof(uint16_t),
                 [&](int64_t begin, int64_t end) { widen(in + begin, out + begin, end - begin); });
  return wide;
}

F32Narrowing f32_narrowing(DType dtype) {
  return dtype == DType::kBF16 ? &narrow_f32_to_bf16 : &narrow_f32_to_f16;
}

void narrow_f32(const float* in, DType dtype, uint16_t* out, int64_t count) {
  const F32Narrowing narrow = f32_narrowing(dtype);
  for_each_block(count, sizeof(float) + sizeof(uint16_t),
                 [&](int64_t begin, int64_t end) { narrow(in + begin, out + begin, end - begin); });
}

}  // namespace ndbuf::program
