// The scan of R integer and integer64 vectors for NA (their sentinel values), which a
// zero-copy buffer keeps as plain numbers: counted in one vectorised, parallel read-only pass.
#include <atomic>
#include <cstdint>
#include <string>

#include "convert/convert_loops.hpp"
#include "ndbuf/base/error.hpp"
#include "ndbuf/convert/convert.hpp"
#include "ndbuf/memory/parallel.hpp"

namespace ndbuf {

namespace {

// Occurrences of `sentinel` in in[begin, end). A function of its own: GCC does not vectorise
// this reduction written inside the scan's lambda (measured scalar in the package build).
template <class T>
int64_t count_equal(const T* in, int64_t begin, int64_t end, T sentinel) {
  int64_t found = 0;
#pragma omp simd reduction(+ : found)
  for (int64_t i = begin; i < end; ++i) found += lane_equal(in[i], sentinel);
  return found;
}

}  // namespace

MissingScan scan_missing(const RVectorView& source) {
  MissingScan scan;
  auto scan_for = [&](auto sentinel) {
    using T = decltype(sentinel);
    const T* in = static_cast<const T*>(source.data);
    std::atomic<int64_t> total{0};
    std::atomic<int64_t> first{source.length};
    for_each_block(source.length, sizeof(T), [&](int64_t begin, int64_t end) {
      const int64_t found = count_equal(in, begin, end, sentinel);
      if (found == 0) return;
      total += found;
      for (int64_t i = begin; i < end; ++i) {
        if (in[i] == sentinel) return lower_to(first, i);
      }
    });
    scan.count = total.load();
    if (scan.count > 0) scan.first = first.load();
  };
  if (source.type == RVectorType::kInteger) scan_for(kRIntegerNA);
  if (source.type == RVectorType::kInteger64) scan_for(kRInteger64NA);
  return scan;
}

int64_t check_zero_copy_missing(const RVectorView& source, DType dtype, MissingCheck check) {
  if (check == MissingCheck::kIgnore || !is_zero_copy(source.type, dtype)) return 0;
  const MissingScan scan = scan_missing(source);
  if (scan.count > 0 && check == MissingCheck::kError) {
    const std::string sentinel = dtype == DType::kI32 ? "-2147483648" : "-9223372036854775808";
    throw ConversionError("Value NA at position " + std::to_string(scan.first + 1) +
                              " cannot be represented as " + std::string(dtype_name(dtype)) +
                              " with check = \"error\" (it would be stored as " + sentinel + ")",
                          scan.first);
  }
  return scan.count;
}

}  // namespace ndbuf
