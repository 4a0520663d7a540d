// The convolution's GEMM path: for each (output batch, group, run of output positions) the
// windows are copied into a panel (im2col: a row per output position, a column per kernel
// position and input feature; padding and dilation holes as zeros), multiplied by the group's
// kernel columns in one sgemm / dgemm call, and the product scattered into the result through
// its strides (rounding f16 / bf16 once). Items run in parallel, each call of the BLAS then on
// one thread; panels are sized to stay in cache.
#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <memory>
#include <new>
#include <optional>
#include <type_traits>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/kernels/compute_type.hpp"
#include "program/kernels/f32_widening.hpp"
#include "program/kernels/fortran_blas.hpp"
#include "program/ops/contraction/convolution_plan.hpp"
#include "program/ops/contraction/dot_pack.hpp"

namespace ndbuf::program {
namespace {

// Panel elements per item: about 512 KiB of f32, so a panel stays in the core's cache while
// items run in parallel. When the loop will run serially (one thread, or a contended machine:
// threads_for()), the BLAS threads each product itself, and many small calls would each start
// and wait for its team: then panels of 16 MiB make few, large products.
constexpr int64_t kPanelElements = int64_t{1} << 17;
constexpr int64_t kSerialPanelElements = int64_t{1} << 22;

struct GemmShape {
  int64_t columns = 0;  // kernel positions x group input features: the panel's width
  int64_t total = 0;    // rows of one group: output batch x output positions
  int64_t rows = 0;     // rows per item
  int64_t runs = 0;     // items per group
};

GemmShape gemm_shape(const ConvPlan& p, int64_t panel_elements) {
  GemmShape s;
  s.columns = p.kernel_positions * p.group_in;
  s.total = p.out_batch * p.out_positions;
  s.rows = std::clamp<int64_t>(panel_elements / std::max<int64_t>(1, s.columns), 16, 1 << 20);
  s.rows = std::min(s.rows, s.total);
  s.runs = (s.total + s.rows - 1) / s.rows;
  return s;
}

// Fills panel rows [first, first + rows) of group g (row = output batch x output position),
// reading the group's input features; `offsets` receives each row's result offset.
template <class C>
void fill_panel(const ConvPlan& p, const C* x, int64_t g, int64_t first, int64_t rows, C* panel,
                int64_t* offsets) {
  const int64_t in = p.group_in, c0 = p.first_feature(g);
  const size_t bytes = static_cast<size_t>(in) * sizeof(C);
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t n = (first + r) / p.out_positions, position = (first + r) % p.out_positions;
    offsets[r] = n * p.batch_stride + p.position_offset(position);
    const C* image = x + p.image(n, g) * p.in_positions * p.features + c0;
    C* row = panel + r * p.kernel_positions * in;
    for (int64_t k = 0; k < p.kernel_positions; ++k) {
      int64_t offset = 0, scale = 1, pos = position, kernel = k;
      for (size_t d = p.in_spatial.size(); d-- > 0 && offset >= 0;) {
        const int64_t src = p.source(d, pos % p.out_spatial[d], kernel % p.kernel_spatial[d]);
        offset = src < 0 ? -1 : offset + src * scale;
        scale *= p.in_spatial[d];
        pos /= p.out_spatial[d];
        kernel /= p.kernel_spatial[d];
      }
      C* dst = row + k * in;
      if (offset < 0) {
        std::memset(dst, 0, bytes);
      } else {
        std::memcpy(dst, image + offset * p.features, bytes);
      }
    }
  }
}

// product (rows x group_out, row-major) = panel (rows x columns) * w's group columns. The
// column-major BLAS computes product^T = w_g^T panel^T, so the kernel goes first.
template <class C>
void multiply(const ConvPlan& p, const GemmShape& s, const C* panel, const C* w, int64_t g,
              int64_t rows, C* product) {
  const char no = 'N';
  const int m = static_cast<int>(p.group_out), n = static_cast<int>(rows);
  const int k = static_cast<int>(s.columns);
  const int lda = static_cast<int>(p.out_features), ldb = k, ldc = m;
  const C one = 1, zero = 0;
  const C* a = w + g * p.group_out;
  if constexpr (std::is_same_v<C, float>) {
    sgemm_(&no, &no, &m, &n, &k, &one, a, &lda, panel, &ldb, &zero, product, &ldc, 1, 1);
  } else {
    dgemm_(&no, &no, &m, &n, &k, &one, a, &lda, panel, &ldb, &zero, product, &ldc, 1, 1);
  }
}

// Scratch of one block of items, allocated without throwing (the loop must not throw).
template <class C>
struct Scratch {
  std::unique_ptr<C[]> panel, product;
  std::unique_ptr<int64_t[]> offsets;
  bool allocate(const ConvPlan& p, const GemmShape& s) {
    panel.reset(new (std::nothrow)
                    C[static_cast<size_t>(std::max<int64_t>(1, s.rows * s.columns))]);
    product.reset(new (std::nothrow) C[static_cast<size_t>(s.rows * p.group_out)]);
    offsets.reset(new (std::nothrow) int64_t[static_cast<size_t>(s.rows)]);
    return panel && product && offsets;
  }
};

// One output position's features from the f32 / f64 products: a 16-bit result rounds them
// through the vectorised array form, in place when the features are adjacent.
template <class C, class T>
void store_row(const ConvPlan& p, const C* src, T* dst) {
  if constexpr (std::is_same_v<C, float> && kIsNarrowFloat<T> && sizeof(T) == 2) {
    const F32Narrowing narrow =
        f32_narrowing(std::is_same_v<T, BFloat16> ? DType::kBF16 : DType::kF16);
    if (p.feature_stride == 1) {
      narrow(src, reinterpret_cast<uint16_t*>(dst), p.group_out);
      return;
    }
    constexpr int64_t kChunk = 256;
    uint16_t bits[kChunk];
    for (int64_t j0 = 0; j0 < p.group_out; j0 += kChunk) {
      const int64_t n = std::min(kChunk, p.group_out - j0);
      narrow(src + j0, bits, n);
      for (int64_t j = 0; j < n; ++j) std::memcpy(dst + (j0 + j) * p.feature_stride, &bits[j], 2);
    }
  } else {
    for (int64_t j = 0; j < p.group_out; ++j) dst[j * p.feature_stride] = store<T>(src[j]);
  }
}

template <class C, class T>
void run_item(const ConvPlan& p, const GemmShape& s, const C* x, const C* w, int64_t item,
              Scratch<C>& scratch, T* out) {
  const int64_t run = item % s.runs, g = item / s.runs;
  const int64_t first = run * s.rows, rows = std::min(s.rows, s.total - first);
  C* product = scratch.product.get();
  int64_t* offsets = scratch.offsets.get();
  if (s.columns == 0) {
    std::fill(product, product + rows * p.group_out, C{0});
    for (int64_t r = 0; r < rows; ++r) {
      const int64_t n = (first + r) / p.out_positions;
      offsets[r] = n * p.batch_stride + p.position_offset((first + r) % p.out_positions);
    }
  } else {
    fill_panel(p, x, g, first, rows, scratch.panel.get(), offsets);
    multiply(p, s, scratch.panel.get(), w, g, rows, product);
  }
  T* base = out + g * p.group_out * p.feature_stride;
  for (int64_t r = 0; r < rows; ++r) store_row(p, product + r * p.group_out, base + offsets[r]);
}

// The (source-contiguous dim, last dim) pair a view is best copied by: when the view's last
// dim is strided and another dim has stride 1 (R's column-major arrays viewed as NHWC), each
// block of the other dims is a small 2-D transpose whose source lines stay in cache; -1 when
// the general copy routine does as well.
int64_t transpose_dim(const Shape& shape, const Strides& strides) {
  const size_t last = shape.size() - 1;
  if (shape.size() < 2 || strides[last] == 1 || shape[last] <= 1) return -1;
  for (size_t d = 0; d < last; ++d) {
    if (strides[d] == 1 && shape[d] > 1) return static_cast<int64_t>(d);
  }
  return -1;
}

// Copies the view (shape, strides over src) into dense row-major dst, in parallel over the
// blocks of the dims other than `inner` and the last.
template <class C>
void copy_transposing(const C* src, const Shape& shape, const Strides& strides, int64_t inner,
                      C* dst) {
  const size_t last = shape.size() - 1;
  const Strides out = contiguous_strides(shape, Order::kRowMajor);
  const int64_t rows = shape[inner], cols = shape[last];
  int64_t blocks = 1;
  for (size_t d = 0; d < last; ++d) blocks *= static_cast<int64_t>(d) == inner ? 1 : shape[d];
  for_each_block(
      blocks, static_cast<int64_t>(2 * sizeof(C)) * rows * cols,
      [&](int64_t begin, int64_t end) {
        for (int64_t block = begin; block < end; ++block) {
          int64_t from = 0, to = 0, rest = block;
          for (size_t d = last; d-- > 0;) {
            if (static_cast<int64_t>(d) == inner) continue;
            from += (rest % shape[d]) * strides[d];
            to += (rest % shape[d]) * out[d];
            rest /= shape[d];
          }
          for (int64_t i = 0; i < rows; ++i) {
            const C* s = src + from + i;
            C* t = dst + to + i * out[inner];
            for (int64_t j = 0; j < cols; ++j) t[j] = s[j * strides[last]];
          }
        }
      },
      rows * cols);
}

// An operand in its canonical layout as dense C elements: of C's dtype, the operand itself
// when it already is laid out so, else a copy (copy_transposing(), or copy_elements()'s
// parallel tiled copies); of another dtype, converted into `packed`.
template <class C>
const C* canonical(const Tensor& x, const std::vector<int64_t>& order, std::optional<Tensor>& kept,
                   std::unique_ptr<C[]>& packed) {
  if (x.dtype() == (std::is_same_v<C, float> ? DType::kF32 : DType::kF64)) {
    Shape shape;
    Strides strides;
    for (int64_t d : order) {
      shape.push_back(x.shape()[d]);
      strides.push_back(x.strides()[d]);
    }
    const int64_t inner = transpose_dim(shape, strides);
    if (inner < 0 || x.numel() == 0) {
      kept =
          make_dense(Tensor(x.storage(), x.dtype(), shape, strides, x.offset()), Order::kRowMajor);
      return static_cast<const C*>(kept->data());
    }
    kept = Tensor::allocate(x.dtype(), shape, Order::kRowMajor);
    copy_transposing(static_cast<const C*>(x.data()), shape, strides, inner,
                     static_cast<C*>(kept->data()));
    return static_cast<const C*>(kept->data());
  }
  packed.reset(new C[static_cast<size_t>(std::max<int64_t>(1, x.numel()))]);
  pack_operand(x, order, packed.get());
  return packed.get();
}

template <class C, class T>
void gemm_all(const Tensor& lhs, const Tensor& rhs, const ConvPlan& p, T* out) {
  std::optional<Tensor> lhs_kept, rhs_kept;
  std::unique_ptr<C[]> lhs_packed, rhs_packed;
  const C* x = canonical<C>(lhs, p.lhs_order, lhs_kept, lhs_packed);
  const C* w = canonical<C>(rhs, p.rhs_order, rhs_kept, rhs_packed);
  const double panels = static_cast<double>(sizeof(C)) * static_cast<double>(p.groups) *
                        static_cast<double>(p.out_batch * p.out_positions) *
                        static_cast<double>(std::max<int64_t>(1, p.kernel_positions * p.group_in));
  const int64_t total_bytes = panels >= 9e18 ? INT64_MAX : static_cast<int64_t>(panels);
  const GemmShape s =
      gemm_shape(p, threads_for(total_bytes) > 1 ? kPanelElements : kSerialPanelElements);
  const int64_t work = std::max<int64_t>(1, s.rows * s.columns);
  std::atomic<bool> out_of_memory{false};
  for_each_block(
      p.groups * s.runs, static_cast<int64_t>(sizeof(C)) * work,
      [&](int64_t begin, int64_t end) {
        Scratch<C> scratch;
        if (!scratch.allocate(p, s)) {
          out_of_memory.store(true);
          return;
        }
        for (int64_t item = begin; item < end; ++item) {
          run_item(p, s, x, w, item, scratch, out);
        }
      },
      work);
  if (out_of_memory.load()) {
    fail(ErrorKind::kOutOfMemory, "convolution: cannot allocate the panels of its GEMM path.");
  }
}

}  // namespace

bool convolution_through_gemm(const Tensor& lhs, const Tensor& rhs, const ConvPlan& plan,
                              Tensor& result) {
  const DType dtype = result.dtype();
  const bool floating =
      dtype == DType::kF32 || dtype == DType::kF64 || dtype == DType::kF16 || dtype == DType::kBF16;
  const int64_t columns = plan.kernel_positions * plan.group_in;
  // A forked child must not enter the BLAS's OpenMP pool (see in_forked_child()).
  if (!floating || in_forked_child() || plan.out_features > INT_MAX || columns > INT_MAX) {
    return false;
  }
  dispatch(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, double>) {
      gemm_all<double>(lhs, rhs, plan, static_cast<T*>(result.data()));
    } else if constexpr (std::is_same_v<T, float> || kIsNarrowFloat<T>) {
      gemm_all<float>(widened_to_f32(lhs), widened_to_f32(rhs), plan,
                      static_cast<T*>(result.data()));
    }
  });
  return true;
}

}  // namespace ndbuf::program
