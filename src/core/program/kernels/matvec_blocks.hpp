// The per-block products of a fused matrix-vector pair (exec/matvec_pairs.hpp, which states
// their summation orders). `x` points at the block's element (0, 0); a block has `rows` rows of
// `cols` elements. Each function has one layout: rows contiguous (element (i, j) at
// x[i + j * stride], an R matrix) or columns contiguous (x[i * stride + j], row-major). The
// folds use fma() and 16 lanes whatever the instruction set, so every CPU gives the same bits.
#pragma once

#include <cstdint>

namespace ndbuf::program {

// z[i] = sum over j of x(i, j) w[j].
template <class T>
void block_products_rows_contiguous(const T* x, int64_t stride, int64_t rows, int64_t cols,
                                    const T* w, T* z);
template <class T>
void block_products_cols_contiguous(const T* x, int64_t stride, int64_t rows, int64_t cols,
                                    const T* w, T* z);

// share[j] = sum over i of x(i, j) d[i] (share is written, not added to).
template <class T>
void block_shares_rows_contiguous(const T* x, int64_t stride, int64_t rows, int64_t cols,
                                  const T* d, T* share);
template <class T>
void block_shares_cols_contiguous(const T* x, int64_t stride, int64_t rows, int64_t cols,
                                  const T* d, T* share);

}  // namespace ndbuf::program
