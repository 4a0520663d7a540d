#include "program/kernels/f32_widening.hpp"

#include "convert/half_kernels.hpp"
#include "ndbuf/memory/parallel.hpp"

namespace ndbuf::program {
namespace {

// `convert` over [0, count) of in -> out, in parallel blocks when the arrays are large.
template <class In, class Out>
void convert_in_blocks(void (*convert)(const In*, Out*, int64_t), const In* in, Out* out,
                       int64_t count) {
  for_each_block(count, sizeof(In) + sizeof(Out), [&](int64_t begin, int64_t end) {
    convert(in + begin, out + begin, end - begin);
  });
}

}  // namespace

Tensor widened_to_f32(const Tensor& x) {
  const bool row_major = x.is_contiguous(Order::kRowMajor);
  if ((x.dtype() != DType::kBF16 && x.dtype() != DType::kF16) ||
      (!row_major && !x.is_contiguous(Order::kColumnMajor))) {
    return x;
  }
  Tensor wide =
      Tensor::allocate(DType::kF32, x.shape(), row_major ? Order::kRowMajor : Order::kColumnMajor);
  convert_in_blocks(x.dtype() == DType::kBF16 ? &widen_bf16_to_f32 : &widen_f16_to_f32,
                    static_cast<const uint16_t*>(x.data()), static_cast<float*>(wide.data()),
                    x.numel());
  return wide;
}

F32Narrowing f32_narrowing(DType dtype) {
  return dtype == DType::kBF16 ? &narrow_f32_to_bf16 : &narrow_f32_to_f16;
}

void narrow_f32(const float* in, DType dtype, uint16_t* out, int64_t count) {
  convert_in_blocks(f32_narrowing(dtype), in, out, count);
}

}  // namespace ndbuf::program
