// dot_general through the BLAS gemm. Each operand is handed to the BLAS in place when its free
// and contracting dims each collapse to one stride with one of them contiguous (a row- or
// column-major matrix per batch, batch dims anywhere): the transpose goes into the gemm call.
// Other layouts, and operands of another dtype, are packed into dense blocks first. f16 / bf16
// products run in f32 and are rounded once: dense operands are widened to f32 in their own
// layout (in parallel), multiplied as the same f32 product would be (oneDNN from its size on,
// else sgemm) and the result rounded to the 16-bit type in parallel, which gives the bits of
// widening, the f32 product and rounding one element at a time.
//
// Threads: the BLAS's count follows the runtime's (blas_threads.hpp) before each product and
// is set back to it after. Batches run in parallel on single-threaded GEMMs (the BLAS set to
// one thread, so no GEMM nests threads inside ours) when there are at least as many as
// threads; fewer run one after another, each on all threads inside the BLAS
// (batches_in_parallel() has the measurements).
#include "program/ops/contraction/dot_gemm.hpp"

#include <algorithm>
#include <climits>
#include <memory>
#include <type_traits>

#include "ndbuf/memory/parallel.hpp"
#include "program/kernels/blas_threads.hpp"
#include "program/kernels/f32_widening.hpp"
#include "program/kernels/fortran_blas.hpp"
#include "program/ops/contraction/dot_dnnl.hpp"

namespace ndbuf::program {
namespace {

// One operand as a (rows x cols) matrix per batch: lhs is M x K, rhs K x N.
struct GemmOperand {
  const void* data = nullptr;
  std::vector<int64_t> batch_offsets;  // elements, one per batch index
  bool column_major = false;           // rows contiguous rather than cols
  int64_t ld = 1;
};

// Whether a rows x cols matrix with these group strides is a BLAS matrix, and how.
bool blas_layout(int64_t rows, int64_t row_stride, int64_t cols, int64_t col_stride,
                 GemmOperand& op) {
  if (row_stride < 0 || col_stride < 0) return false;
  const int64_t row_ld = rows <= 1 ? std::max<int64_t>(1, cols) : row_stride;
  if ((cols <= 1 || col_stride == 1) && row_ld >= std::max<int64_t>(1, cols) && row_ld <= INT_MAX) {
    op.column_major = false;
    op.ld = row_ld;
    return true;
  }
  const int64_t col_ld = cols <= 1 ? std::max<int64_t>(1, rows) : col_stride;
  if ((rows <= 1 || row_stride == 1) && col_ld >= std::max<int64_t>(1, rows) && col_ld <= INT_MAX) {
    op.column_major = true;
    op.ld = col_ld;
    return true;
  }
  return false;
}

// Element offsets of each batch index (row-major over `batch`) in `x`.
std::vector<int64_t> batch_offsets(const Tensor& x, const std::vector<int64_t>& batch,
                                   int64_t count) {
  std::vector<int64_t> offsets(static_cast<size_t>(count));
  std::vector<int64_t> index(batch.size(), 0);
  int64_t pos = 0;
  for (int64_t b = 0; b < count; ++b) {
    offsets[b] = pos;
    for (size_t k = batch.size(); k-- > 0;) {
      pos += x.strides()[batch[k]];
      if (++index[k] < x.shape()[batch[k]]) break;
      pos -= x.strides()[batch[k]] * x.shape()[batch[k]];
      index[k] = 0;
    }
  }
  return offsets;
}

// `x` as a GEMM operand of element type C with `rows_dims` x `cols_dims` per batch: in place
// when it fits, else packed into `packed` (dense batch x rows x cols).
template <class C>
GemmOperand gemm_operand(const Tensor& x, const std::vector<int64_t>& batch,
                         const std::vector<int64_t>& rows_dims,
                         const std::vector<int64_t>& cols_dims, int64_t batches,
                         std::unique_ptr<C[]>& packed) {
  const int64_t rows = dims_product(x.shape(), rows_dims);
  const int64_t cols = dims_product(x.shape(), cols_dims);
  GemmOperand op;
  const bool same_type = x.dtype() == (std::is_same_v<C, float> ? DType::kF32 : DType::kF64);
  if (same_type &&
      blas_layout(rows, group_stride(x, rows_dims), cols, group_stride(x, cols_dims), op)) {
    op.data = static_cast<const C*>(x.data());
    op.batch_offsets = batch_offsets(x, batch, batches);
    return op;
  }
  std::vector<int64_t> order = batch;
  order.insert(order.end(), rows_dims.begin(), rows_dims.end());
  order.insert(order.end(), cols_dims.begin(), cols_dims.end());
  packed.reset(new C[static_cast<size_t>(std::max<int64_t>(1, x.numel()))]);
  pack_operand(x, order, packed.get());
  op.data = packed.get();
  op.column_major = false;
  op.ld = std::max<int64_t>(1, cols);
  op.batch_offsets.resize(static_cast<size_t>(batches));
  for (int64_t b = 0; b < batches; ++b) op.batch_offsets[b] = b * rows * cols;
  return op;
}

// c (M x N row-major, batch b) = a (M x K) b (K x N): the column-major BLAS computes
// c^T = b^T a^T, so the rhs goes first.
template <class C>
void gemm_batch(const GemmOperand& a, const GemmOperand& b, C* c, int64_t m, int64_t n, int64_t k,
                int64_t batch) {
  const char transa = b.column_major ? 'T' : 'N';
  const char transb = a.column_major ? 'T' : 'N';
  const int fm = static_cast<int>(n), fn = static_cast<int>(m), fk = static_cast<int>(k);
  const int lda = static_cast<int>(b.ld), ldb = static_cast<int>(a.ld);
  const int ldc = static_cast<int>(std::max<int64_t>(1, n));
  const C one = 1, zero = 0;
  const C* bp = static_cast<const C*>(b.data) + b.batch_offsets[batch];
  const C* ap = static_cast<const C*>(a.data) + a.batch_offsets[batch];
  C* cp = c + batch * m * n;
  if constexpr (std::is_same_v<C, float>) {
    sgemm_(&transa, &transb, &fm, &fn, &fk, &one, bp, &lda, ap, &ldb, &zero, cp, &ldc, 1, 1);
  } else {
    dgemm_(&transa, &transb, &fm, &fn, &fk, &one, bp, &lda, ap, &ldb, &zero, cp, &ldc, 1, 1);
  }
}

// Whether `batches` products run in parallel over the batches (single-threaded GEMMs) rather
// than one after another on a threaded GEMM: whenever every thread gets at least one whole
// product. Measured on 2 cores (f32, medians of 11-15 runs while other builds loaded the
// machine, batches in parallel against a threaded GEMM per batch): 64 x 128x64x128 39-42 ms
// against 36-1360 ms (worst runs 58-61 ms against 1.39-1.50 s; with two more busy processes 96
// against 3180 ms), 16 x 256^3 88 against 162 ms, 4 x 512^3 78 against 142 ms;
// a threaded GEMM synchronises its threads once per batch, and a thread the OS has not
// scheduled stalls all of them, while batches claimed dynamically go to threads that run.
bool batches_in_parallel(int64_t batches) { return batches >= 2 && batches >= max_threads(); }

template <class C>
void gemv(char trans, int64_t rows, int64_t cols, const C* a, int64_t lda, const C* x, int64_t incx,
          C* y) {
  const int m = static_cast<int>(rows), n = static_cast<int>(cols);
  const int ld = static_cast<int>(lda), inc = static_cast<int>(incx), one_step = 1;
  const C one = 1, zero = 0;
  if constexpr (std::is_same_v<C, float>) {
    sgemv_(&trans, &m, &n, &one, a, &ld, x, &inc, &zero, y, &one_step, 1);
  } else {
    dgemv_(&trans, &m, &n, &one, a, &ld, x, &inc, &zero, y, &one_step, 1);
  }
}

// A product whose result is a vector per batch (M or N is 1) as one gemv, which reads the
// matrix once where gemm would first pack all of it.
template <class C>
void gemv_batch(const GemmOperand& a, const GemmOperand& b, C* c, int64_t m, int64_t n, int64_t k,
                int64_t batch) {
  const C* ap = static_cast<const C*>(a.data) + a.batch_offsets[batch];
  const C* bp = static_cast<const C*>(b.data) + b.batch_offsets[batch];
  C* cp = c + batch * m * n;
  if (n == 1) {
    // c (M) = a (M x K) b (K): a column-major is the BLAS's own M x K matrix, a row-major its
    // K x M transpose.
    const int64_t incx = b.column_major ? 1 : b.ld;
    if (a.column_major) {
      gemv('N', m, k, ap, a.ld, bp, incx, cp);
    } else {
      gemv('T', k, m, ap, a.ld, bp, incx, cp);
    }
  } else {
    // c (N) = b^T (N x K) a (K): b row-major is the BLAS's N x K matrix.
    const int64_t incx = a.column_major ? a.ld : 1;
    if (b.column_major) {
      gemv('T', k, n, bp, b.ld, ap, incx, cp);
    } else {
      gemv('N', n, k, bp, b.ld, ap, incx, cp);
    }
  }
}

// Multiply-adds below which a product runs without thread settings.
constexpr int64_t kSmallProduct = 32768;

template <class C>
void gemm_all(const Tensor& lhs, const Tensor& rhs, const DotSide& l, const DotSide& r, C* c) {
  const int64_t batches = dims_product(lhs.shape(), l.batch);
  const int64_t m = dims_product(lhs.shape(), l.free);
  const int64_t k = dims_product(lhs.shape(), l.contracting);
  const int64_t n = dims_product(rhs.shape(), r.free);
  if (k == 0) {
    std::fill(c, c + batches * m * n, C{0});
    return;
  }
  std::unique_ptr<C[]> lhs_packed, rhs_packed;
  const GemmOperand a = gemm_operand<C>(lhs, l.batch, l.free, l.contracting, batches, lhs_packed);
  const GemmOperand b = gemm_operand<C>(rhs, r.batch, r.contracting, r.free, batches, rhs_packed);
  const bool vector = m == 1 || n == 1;
  auto product = [&](int64_t i) {
    if (vector) {
      gemv_batch(a, b, c, m, n, k, i);
    } else {
      gemm_batch(a, b, c, m, n, k, i);
    }
  };
  const int64_t bytes = static_cast<int64_t>(sizeof(C)) * (m * k + k * n + m * n);
  if (batches * m * n * k <= kSmallProduct) {
    // The BLAS runs a product this small on the calling thread whatever its count: setting the
    // count and timing the call would cost more than the product (a 10 x 10 x 10 one).
    for (int64_t i = 0; i < batches; ++i) product(i);
    return;
  }
  if (batches_in_parallel(batches)) {
    set_blas_threads(1);
    // One batch per block: the blocks are what threads claim.
    for_each_block(
        batches, bytes,
        [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i) product(i);
        },
        kBlockElements);
    sync_blas_threads();  // back to the runtime's count for R's own products
  } else {
    // A matrix-vector product is memory-bound: threads only from the size where our own loops
    // start them (OpenBLAS would thread a 128 x 128 one, whose threads then spin in OpenMP's
    // barrier for longer than the product takes, seconds while other processes are busy).
    const int threads =
        vector ? set_blas_threads(threads_for(bytes)) : sync_blas_threads_for_product();
    run_blas_product(threads, [&] {
      for (int64_t i = 0; i < batches; ++i) product(i);
    });
    sync_blas_threads();
  }
}

bool fits_blas_int(const Tensor& lhs, const Tensor& rhs, const DotSide& l, const DotSide& r) {
  return dims_product(lhs.shape(), l.free) <= INT_MAX &&
         dims_product(lhs.shape(), l.contracting) <= INT_MAX &&
         dims_product(rhs.shape(), r.free) <= INT_MAX;
}

}  // namespace

bool dot_through_gemm(const Tensor& lhs, const Tensor& rhs, const DotSide& l, const DotSide& r,
                      Tensor& result) {
  const DType dtype = result.dtype();
  const bool floating =
      dtype == DType::kF32 || dtype == DType::kF64 || dtype == DType::kF16 || dtype == DType::kBF16;
  // A forked child must not enter the BLAS's OpenMP pool (see in_forked_child()).
  if (!floating || in_forked_child() || !fits_blas_int(lhs, rhs, l, r)) return false;
  if (result.numel() == 0) return true;
  if (dtype == DType::kF64) {
    gemm_all(lhs, rhs, l, r, static_cast<double*>(result.data()));
  } else if (dtype == DType::kF32) {
    gemm_all(lhs, rhs, l, r, static_cast<float*>(result.data()));
  } else {
    // The widened product goes where the same f32 product would (oneDNN from its size on), so
    // a bf16 product oneDNN has no kernel for keeps its bits on any thread count too: on an
    // AVX2 CPU, OpenBLAS's 2-thread sgemm of 300 x 200 x 250 differed in the last bits from
    // its 1-thread one.
    const Tensor wide_lhs = widened_to_f32(lhs), wide_rhs = widened_to_f32(rhs);
    Tensor c = Tensor::allocate(DType::kF32, result.shape(), Order::kRowMajor);
    if (!dot_through_dnnl(wide_lhs, wide_rhs, l, r, c)) {
      gemm_all(wide_lhs, wide_rhs, l, r, static_cast<float*>(c.data()));
    }
    narrow_f32(static_cast<const float*>(c.data()), dtype, static_cast<uint16_t*>(result.data()),
               result.numel());
  }
  return true;
}

}  // namespace ndbuf::program
