// Register transposes of small square blocks for the tiled copy: 4 x 4 blocks of 4-byte
// elements and 2 x 2 blocks of 8-byte elements, through GCC / Clang vector extensions.
#pragma once

#include <cstdint>
#include <cstring>

namespace ndbuf {

// Elements on a side of the block kernel for an element type of this size; 1 means none
// (the tile is then copied one element at a time).
template <class C>
constexpr int64_t transpose_block_side() {
#if defined(__GNUC__)
  if constexpr (sizeof(C) == 4) return 4;
  if constexpr (sizeof(C) == 8) return 2;
#endif
  return 1;
}

#if defined(__GNUC__)

// Shuffles that pick lanes from two vectors: the same indices under both compilers.
#if defined(__clang__)
#define NDBUF_SHUFFLE(a, b, ...) __builtin_shufflevector(a, b, __VA_ARGS__)
#else
#define NDBUF_SHUFFLE(a, b, ...) __builtin_shuffle(a, b, decltype(a){__VA_ARGS__})
#endif

using Lanes4x32 = uint32_t __attribute__((vector_size(16)));
using Lanes2x64 = uint64_t __attribute__((vector_size(16)));

// Element (i, j) of the block is at src + j * src_row + i * 4 (source rows contiguous along i)
// and goes to dst + i * dst_row + j * 4 (destination rows contiguous along j). Bits move
// unchanged (integer lanes), so float payloads are kept exactly.
inline void transpose_block_4x4(const char* src, int64_t src_row, char* dst, int64_t dst_row) {
  Lanes4x32 r0, r1, r2, r3;
  std::memcpy(&r0, src, sizeof r0);
  std::memcpy(&r1, src + src_row, sizeof r1);
  std::memcpy(&r2, src + 2 * src_row, sizeof r2);
  std::memcpy(&r3, src + 3 * src_row, sizeof r3);
  const Lanes4x32 low01 = NDBUF_SHUFFLE(r0, r1, 0, 4, 1, 5);
  const Lanes4x32 high01 = NDBUF_SHUFFLE(r0, r1, 2, 6, 3, 7);
  const Lanes4x32 low23 = NDBUF_SHUFFLE(r2, r3, 0, 4, 1, 5);
  const Lanes4x32 high23 = NDBUF_SHUFFLE(r2, r3, 2, 6, 3, 7);
  const Lanes4x32 o0 = NDBUF_SHUFFLE(low01, low23, 0, 1, 4, 5);
  const Lanes4x32 o1 = NDBUF_SHUFFLE(low01, low23, 2, 3, 6, 7);
  const Lanes4x32 o2 = NDBUF_SHUFFLE(high01, high23, 0, 1, 4, 5);
  const Lanes4x32 o3 = NDBUF_SHUFFLE(high01, high23, 2, 3, 6, 7);
  std::memcpy(dst, &o0, sizeof o0);
  std::memcpy(dst + dst_row, &o1, sizeof o1);
  std::memcpy(dst + 2 * dst_row, &o2, sizeof o2);
  std::memcpy(dst + 3 * dst_row, &o3, sizeof o3);
}

// As transpose_block_4x4() for 2 x 2 blocks of 8-byte elements.
inline void transpose_block_2x2(const char* src, int64_t src_row, char* dst, int64_t dst_row) {
  Lanes2x64 r0, r1;
  std::memcpy(&r0, src, sizeof r0);
  std::memcpy(&r1, src + src_row, sizeof r1);
  const Lanes2x64 o0 = NDBUF_SHUFFLE(r0, r1, 0, 2);
  const Lanes2x64 o1 = NDBUF_SHUFFLE(r0, r1, 1, 3);
  std::memcpy(dst, &o0, sizeof o0);
  std::memcpy(dst + dst_row, &o1, sizeof o1);
}

#undef NDBUF_SHUFFLE

#endif  // __GNUC__

// The block kernel for element type C (transpose_block_side<C>() > 1 only).
template <class C>
void transpose_block(const char* src, int64_t src_row, char* dst, int64_t dst_row) {
#if defined(__GNUC__)
  if constexpr (sizeof(C) == 4) transpose_block_4x4(src, src_row, dst, dst_row);
  if constexpr (sizeof(C) == 8) transpose_block_2x2(src, src_row, dst, dst_row);
#else
  (void)src, (void)src_row, (void)dst, (void)dst_row;
#endif
}

}  // namespace ndbuf
