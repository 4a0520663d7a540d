// f32 tanh through Eigen's 8-lane AVX packets, about twice the 4-lane baseline's speed. This
// file alone is compiled with -mavx2 (where the compiler takes it) and runs only on CPUs that
// have AVX2 (tanh_span_f32() asks). Without FMA Eigen's AVX tanh rounds every step as its
// baseline tanh does: the two agree bit for bit (tested over every 257th float bit pattern).
// Nothing here instantiates a template the baseline files also use (only 8-lane packet
// functions), so no AVX2 code can stand in for theirs at link time.
#include "program/ops/elementwise/tanh_avx2.hpp"

#if defined(__AVX2__) && !defined(__FMA__)
#include <Eigen/Core>

namespace ndbuf::program::detail {

bool tanh_avx2_built() { return true; }

void tanh_span_f32_avx2(const float* x, float* out, int64_t n) {
  using Eigen::internal::Packet8f;
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    Eigen::internal::pstoreu(out + i,
                             Eigen::internal::ptanh(Eigen::internal::ploadu<Packet8f>(x + i)));
  }
  if (i == n) return;
  // The tail through one padded packet: the same lanes, so the same bits.
  float in[8] = {};
  float result[8];
  for (int64_t k = i; k < n; ++k) in[k - i] = x[k];
  Eigen::internal::pstoreu(result, Eigen::internal::ptanh(Eigen::internal::ploadu<Packet8f>(in)));
  for (int64_t k = i; k < n; ++k) out[k] = result[k - i];
}

}  // namespace ndbuf::program::detail

#else

namespace ndbuf::program::detail {

bool tanh_avx2_built() { return false; }

// Not called while tanh_avx2_built() is false; the baseline kernel if it were.
void tanh_span_f32_avx2(const float* x, float* out, int64_t n) { tanh_span_f32(x, out, n); }

}  // namespace ndbuf::program::detail

#endif
