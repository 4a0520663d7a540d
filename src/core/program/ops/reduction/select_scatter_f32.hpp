// One window of an f32 select_and_scatter whose scatter adds, picked and scattered in registers:
// each group of eight lanes folds the window's elements with the select comparison, keeping
// which element each lane holds, and then adds the lanes' source values into the picked
// positions. The generic path writes every fold to memory and scatters one element at a time
// (a 3 x 3 max-pool gradient spent over half its time folding). Selects and the same adds in
// the same order: the same bits as the generic path.
#pragma once

#include <cstdint>

#include "program/kernels/region_body.hpp"

namespace ndbuf::program {

// Whether select_scatter_f32() runs here (x86-64 with AVX2, built by GCC or Clang).
bool select_scatter_f32_available();

// The window whose in-bounds elements lie at `offsets[0..count)` (count >= 1) from `x`, over
// `lanes` lanes (a multiple of 8, each lane one element further on): per lane, the element
// `keep` keeps (the select region `direction` on IEEE values: keep the pick while it compares
// true against the next element, in window order) gets that lane's `source` value added into
// `result` at the same offset.
void select_scatter_f32(const float* x, const float* source, float* result, const int64_t* offsets,
                        int32_t count, int64_t lanes, ComparatorOrder direction);

}  // namespace ndbuf::program
