// Associative reductions as [outer, reduced, inner] passes over memory: inner reductions fold
// contiguous runs in vector lanes, outer ones accumulate whole rows into blocks of the result;
// both split the reduced dim into chunks when there are too few rows or blocks for all cores.
#include "program/kernels/reduce_fast.hpp"

#include <algorithm>
#include <cstring>
#include <limits>

#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/kernels/compute_type.hpp"
#include "program/kernels/fast_combine.hpp"
#include "program/kernels/fold_lanes.hpp"

namespace ndbuf::program {
namespace {

// The value that leaves any accumulator unchanged under `body` (on pred, maximum is OR and
// minimum AND). -0.0 for float sums, so that a sum of -0.0 values stays -0.0.
template <class A>
A identity_of(FastBody body, bool pred) {
  if constexpr (kIsComplex<A>) {
    using R = typename A::value_type;
    const R inf = std::numeric_limits<R>::infinity();
    if (body == FastBody::kMultiply) return A(1, 0);
    if (body == FastBody::kMaximum) return A(-inf, -inf);
    if (body == FastBody::kMinimum) return A(inf, inf);
    return A(-R(0), -R(0));
  } else if constexpr (std::is_floating_point_v<A>) {
    const A inf = std::numeric_limits<A>::infinity();
    if (body == FastBody::kMultiply) return A(1);
    if (body == FastBody::kMaximum) return -inf;
    if (body == FastBody::kMinimum) return inf;
    return A(-0.0);
  } else {
    using L = std::numeric_limits<A>;
    switch (body) {
      case FastBody::kMultiply:
        return A(1);
      case FastBody::kAnd:
        return pred ? A(1) : static_cast<A>(~A(0));
      case FastBody::kMaximum:
        return pred ? A(0) : L::lowest();
      case FastBody::kMinimum:
        return pred ? A(1) : L::max();
      default:
        return A(0);
    }
  }
}

// A fold's lane count: wide enough for the compiler to vectorise.
template <class A>
constexpr int kFoldLanes = std::max<int>(4, 64 / static_cast<int>(sizeof(A)));

// Whether X elements folded in A lanes have AVX2 folds (fold_lanes.hpp): f32 and f64, whose
// kFoldLanes are the 16 and 8 lanes those keep.
template <class X, class A>
constexpr bool kHasAvx2Fold = std::is_same_v<X, A> &&
                              (std::is_same_v<A, float> || std::is_same_v<A, double>);
static_assert(kFoldLanes<float> == 16 && kFoldLanes<double> == 8,
              "the AVX2 folds keep 16 f32 or 8 f64 lanes");

// Folds the lanes of n elements of x from element j on (a multiple of the lane count), then the
// lanes in order, then the last elements.
template <class X, class A, class Combine>
A finish_fold(const X* x, int64_t j, int64_t n, A* lanes, A identity, Combine combine) {
  constexpr int kLanes = kFoldLanes<A>;
  for (; j + kLanes <= n; j += kLanes) {
#pragma omp simd
    for (int l = 0; l < kLanes; ++l) lanes[l] = combine(lanes[l], load(x[j + l]));
  }
  A acc = identity;
  for (int l = 0; l < kLanes; ++l) acc = combine(acc, lanes[l]);
  for (; j < n; ++j) acc = combine(acc, load(x[j]));
  return acc;
}

// Folds n contiguous elements in kFoldLanes lanes; f32 and f64 fold the same lanes in AVX2
// registers where the CPU has them.
template <class X, class A, class Combine>
A fold_run(const X* x, int64_t n, A identity, Combine combine, FastBody body) {
  A lanes[kFoldLanes<A>];
  std::fill(lanes, lanes + kFoldLanes<A>, identity);
  int64_t j = 0;
  if constexpr (kHasAvx2Fold<X, A>) {
    if (detail::fold_lanes_avx2_usable()) j = detail::fold_lanes_avx2(body, x, n, lanes);
  }
  return finish_fold(x, j, n, lanes, identity, combine);
}

// out[r] = fold of row r (of `cols` elements) for four rows at once, as fold_run folds each.
template <class A, class Combine>
void fold_four_rows(const A* x, int64_t cols, A identity, Combine combine, FastBody body, A* out) {
  constexpr int kLanes = kFoldLanes<A>;
  A lanes[4 * kLanes];
  std::fill(lanes, lanes + 4 * kLanes, identity);
  const int64_t j = detail::fold_four_rows_avx2(body, x, cols, cols, lanes);
  for (int r = 0; r < 4; ++r) {
    out[r] = finish_fold(x + r * cols, j, cols, lanes + r * kLanes, identity, combine);
  }
}

// One [outer, count, inner] reduction: dst[o * inner + i] = fold over r of
// x[(o * count + r) * inner + i].
struct ReduceView {
  int64_t outer, count, inner;
};

// How the work is cut: column blocks of `width` and `chunks` pieces of the reduced dim.
struct ReduceCut {
  int64_t width, blocks, chunks;
};

ReduceCut cut_work(const ReduceView& v) {
  const int64_t width = v.inner == 1 ? 1 : std::min<int64_t>(v.inner, 2048);
  const int64_t blocks = (v.inner + width - 1) / width;
  const int64_t tasks = v.outer * blocks;
  // A fixed count, not the thread count: the chunks fix the summation order, which must not
  // change with the number of threads.
  constexpr int64_t wanted = 64;
  int64_t chunks = tasks >= wanted ? 1 : std::min<int64_t>(64, (wanted + tasks - 1) / tasks);
  // A chunk is worth a task only with some thousands of elements in it.
  chunks = std::min(chunks, std::max<int64_t>(1, v.count * width / 4096));
  return {width, blocks, chunks};
}

// Reduces rows [r0, r1) of columns [i0, i0 + width) of outer index o into dst.
template <class X, class A, class Combine>
void reduce_piece(const X* x, const ReduceView& v, int64_t o, int64_t r0, int64_t r1, int64_t i0,
                  int64_t width, A* dst, A identity, Combine combine, FastBody body) {
  if (v.inner == 1) {
    dst[0] = fold_run(x + o * v.count + r0, r1 - r0, identity, combine, body);
    return;
  }
  A acc[2048];
  std::fill(acc, acc + width, identity);
  for (int64_t r = r0; r < r1; ++r) {
    const X* row = x + (o * v.count + r) * v.inner + i0;
#pragma omp simd
    for (int64_t j = 0; j < width; ++j) acc[j] = combine(acc[j], load(row[j]));
  }
  std::copy(acc, acc + width, dst);
}

template <class X, class A, class Combine>
std::vector<A> reduce_view(const X* x, const ReduceView& v, A identity, Combine combine,
                           FastBody body) {
  const ReduceCut cut = cut_work(v);
  const int64_t size = v.outer * v.inner;
  std::vector<A> partial(static_cast<size_t>(size * cut.chunks), identity);
  const int64_t rows = (v.count + cut.chunks - 1) / cut.chunks;
  const int64_t bytes = rows * cut.width * static_cast<int64_t>(sizeof(X));
  for_each_block(
      v.outer * cut.blocks * cut.chunks, bytes,
      [&](int64_t begin, int64_t end) {
        for (int64_t t = begin; t < end; ++t) {
          const int64_t c = t % cut.chunks, b = (t / cut.chunks) % cut.blocks;
          const int64_t o = t / cut.chunks / cut.blocks;
          const int64_t r0 = std::min(v.count, c * rows), r1 = std::min(v.count, r0 + rows);
          const int64_t i0 = b * cut.width, width = std::min(cut.width, v.inner - i0);
          reduce_piece(x, v, o, r0, r1, i0, width, partial.data() + c * size + o * v.inner + i0,
                       identity, combine, body);
        }
      },
      std::max<int64_t>(1, rows * cut.width));
  for (int64_t c = 1; c < cut.chunks; ++c) {
    for (int64_t e = 0; e < size; ++e) partial[e] = combine(partial[e], partial[c * size + e]);
  }
  partial.resize(static_cast<size_t>(size));
  return partial;
}

// Dims in memory order, size-1 dims dropped and neighbours of the same kind merged.
struct Group {
  int64_t size;
  bool reduced;
};

std::vector<Group> memory_groups(const Shape& shape, const std::vector<bool>& reduced,
                                 bool reversed) {
  std::vector<Group> groups;
  for (size_t n = 0; n < shape.size(); ++n) {
    const size_t k = reversed ? shape.size() - 1 - n : n;
    if (shape[k] == 1) continue;
    if (!groups.empty() && groups.back().reduced == reduced[k]) {
      groups.back().size *= shape[k];
    } else {
      groups.push_back({shape[k], reduced[k]});
    }
  }
  const bool any_reduced =
      std::any_of(groups.begin(), groups.end(), [](const Group& g) { return g.reduced; });
  if (!any_reduced) groups.push_back({1, true});
  return groups;
}

// Reduces the groups one reduced group at a time, innermost first; returns the accumulators.
template <class T, class A, class Combine>
std::vector<A> reduce_groups(const T* x, std::vector<Group> groups, A identity, Combine combine,
                             FastBody body) {
  std::vector<A> current;
  bool first = true;
  for (size_t g = groups.size(); g-- > 0;) {
    if (!groups[g].reduced) continue;
    ReduceView v{1, groups[g].size, 1};
    for (size_t k = 0; k < g; ++k) v.outer *= groups[k].size;
    for (size_t k = g + 1; k < groups.size(); ++k) v.inner *= groups[k].size;
    current = first ? reduce_view(x, v, identity, combine, body)
                    : reduce_view(current.data(), v, identity, combine, body);
    first = false;
    groups.erase(groups.begin() + static_cast<std::ptrdiff_t>(g));
  }
  return current;
}

template <DType D>
Tensor reduce_typed(const Tensor& source, bool reversed, const std::vector<bool>& reduced,
                    const Tensor& init, const Shape& result_shape, FastBody body) {
  using T = typename ElementType<D>::type;
  using A = Compute<T>;
  Tensor result = Tensor::allocate(D, result_shape, Order::kRowMajor);
  T init_value;
  std::memcpy(&init_value, to_host(init).data(), sizeof(T));
  T* out = static_cast<T*>(result.data());
  if (source.numel() == 0) {
    std::fill(out, out + result.numel(), init_value);
    return result;
  }
  with_combiner<D>(body, [&](auto combine) {
    const A identity = identity_of<A>(body, D == DType::kPred);
    const std::vector<A> acc =
        reduce_groups(static_cast<const T*>(source.data()),
                      memory_groups(source.shape(), reduced, reversed), identity, combine, body);
    const A init_acc = load(init_value);
    for (int64_t e = 0; e < result.numel(); ++e) out[e] = store<T>(combine(init_acc, acc[e]));
  });
  return result;
}

template <DType D>
bool fold_rows_typed(FastBody body, const void* rows, int64_t count, int64_t cols, const void* init,
                     void* out) {
  using T = typename ElementType<D>::type;
  using A = Compute<T>;
  bool folded = false;
  with_combiner<D>(body, [&](auto combine) {
    const A identity = identity_of<A>(body, D == DType::kPred);
    const A init_acc = load(*static_cast<const T*>(init));
    const T* x = static_cast<const T*>(rows);
    T* dst = static_cast<T*>(out);
    int64_t r = 0;
    if constexpr (kHasAvx2Fold<T, A>) {
      if (detail::fold_lanes_avx2_usable()) {
        for (A folds[4]; r + 4 <= count; r += 4) {
          fold_four_rows(x + r * cols, cols, identity, combine, body, folds);
          for (int k = 0; k < 4; ++k) dst[r + k] = store<T>(combine(init_acc, folds[k]));
        }
      }
    }
    for (; r < count; ++r) {
      dst[r] = store<T>(combine(init_acc, fold_run(x + r * cols, cols, identity, combine, body)));
    }
    folded = true;
  });
  return folded;
}

template <DType D>
bool fold_columns_typed(FastBody body, const void* first, int64_t count, int64_t cols,
                        int64_t col_stride, const void* init, void* out) {
  using T = typename ElementType<D>::type;
  using A = Compute<T>;
  constexpr int64_t kRows = 256;
  bool folded = false;
  with_combiner<D>(body, [&](auto combine) {
    const A identity = identity_of<A>(body, D == DType::kPred);
    const A init_acc = load(*static_cast<const T*>(init));
    const T* x = static_cast<const T*>(first);
    T* dst = static_cast<T*>(out);
    A acc[kRows];
    for (int64_t r0 = 0; r0 < count; r0 += kRows) {
      const int64_t n = std::min(kRows, count - r0);
      std::fill(acc, acc + n, identity);
      for (int64_t c = 0; c < cols; ++c) {
        const T* column = x + c * col_stride + r0;
#pragma omp simd
        for (int64_t r = 0; r < n; ++r) acc[r] = combine(acc[r], load(column[r]));
      }
      for (int64_t r = 0; r < n; ++r) dst[r0 + r] = store<T>(combine(init_acc, acc[r]));
    }
    folded = true;
  });
  return folded;
}

}  // namespace

bool fold_rows(FastBody body, DType dtype, const void* rows, int64_t count, int64_t cols,
               const void* init, void* out) {
  if (body == FastBody::kNone || body == FastBody::kReplace) return false;
  return dispatch(dtype, [&](auto tag) {
    return fold_rows_typed<decltype(tag)::value>(body, rows, count, cols, init, out);
  });
}

bool fold_columns(FastBody body, DType dtype, const void* first, int64_t count, int64_t cols,
                  int64_t col_stride, const void* init, void* out) {
  if (body == FastBody::kNone || body == FastBody::kReplace) return false;
  return dispatch(dtype, [&](auto tag) {
    return fold_columns_typed<decltype(tag)::value>(body, first, count, cols, col_stride, init,
                                                    out);
  });
}

bool reduces_in_column_order(const Tensor& input, const std::vector<int64_t>& dimensions) {
  if (input.is_contiguous(Order::kRowMajor) || !input.is_contiguous(Order::kColumnMajor)) {
    return false;
  }
  int64_t kept = 0;
  for (size_t k = 0; k < input.rank(); ++k) {
    const bool reduced = std::find(dimensions.begin(), dimensions.end(), static_cast<int64_t>(k)) !=
                         dimensions.end();
    kept += !reduced && input.shape()[k] > 1;
  }
  return kept <= 1;
}

Tensor reduce_associative(const Tensor& input, const Tensor& init,
                          const std::vector<int64_t>& dimensions, const Shape& result_shape,
                          FastBody body) {
  Tensor source = to_host(input);
  std::vector<bool> reduced(source.rank(), false);
  for (int64_t d : dimensions) reduced[d] = true;
  // A column-major tensor is read in its own memory order when that keeps the result's order
  // (at most one kept dim longer than 1); any other layout is made dense row-major first.
  const bool reversed = reduces_in_column_order(source, dimensions);
  if (!reversed && !source.is_contiguous(Order::kRowMajor)) {
    source = make_dense(source, Order::kRowMajor);
  }
  return dispatch(source.dtype(), [&](auto tag) {
    return reduce_typed<decltype(tag)::value>(source, reversed, reduced, init, result_shape, body);
  });
}

}  // namespace ndbuf::program
