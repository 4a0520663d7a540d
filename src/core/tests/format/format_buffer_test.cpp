// Tests of the PJRTBuffer printer against golden files and hand-written lines.
#include "ndbuf/format/format_buffer.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <sys/mman.h>
#include <unistd.h>
#define NDBUF_HAVE_MMAP 1
#endif

#include "ndbuf/base/error.hpp"

namespace ndbuf {
namespace {

using Lines = std::vector<std::string>;

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::nan("");

// ---- building tensors -----------------------------------------------------------------------

// A dense column-major tensor (R's layout) holding `values` in R's order.
Tensor make(DType dtype, Shape shape, const std::vector<double>& values) {
  Tensor t = Tensor::allocate(dtype, std::move(shape), Order::kColumnMajor);
  if (static_cast<int64_t>(values.size()) != t.numel()) {
    throw std::logic_error("test tensor: values do not match the shape");
  }
  dispatch(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    auto* out = static_cast<T*>(t.data());
    for (size_t k = 0; k < values.size(); ++k) {
      if constexpr (kIsNarrowFloat<T>) {
        out[k] = narrow_float_from_double<T>(values[k]);
      } else if constexpr (std::is_same_v<T, std::complex<float>> ||
                           std::is_same_v<T, std::complex<double>>) {
        out[k] = T(static_cast<typename T::value_type>(values[k]), 0);
      } else {
        out[k] = static_cast<T>(values[k]);
      }
    }
  });
  return t;
}

template <class C>
Tensor make_complex(DType dtype, Shape shape, const std::vector<std::complex<double>>& values) {
  Tensor t = Tensor::allocate(dtype, std::move(shape), Order::kColumnMajor);
  auto* out = static_cast<C*>(t.data());
  for (size_t k = 0; k < values.size(); ++k) out[k] = C(values[k]);
  return t;
}

std::vector<double> seq(double from, double to) {
  std::vector<double> out;
  for (double v = from; v <= to; v += 1) out.push_back(v);
  return out;
}

std::vector<double> rep(double value, size_t n) { return std::vector<double>(n, value); }

Lines print(const Tensor& t, BufferPrintOptions options = {}) { return format_buffer(t, options); }

BufferPrintOptions opts(int64_t max_rows, int64_t max_width, int64_t max_rows_slice) {
  BufferPrintOptions o;
  o.max_rows = max_rows;
  o.max_width = max_width;
  o.max_rows_slice = max_rows_slice;
  return o;
}

// ---- golden files ---------------------------------------------------------------------------
// tests/data/print/<name>.txt holds the printed lines exactly (trailing spaces included), one
// per line. Run with NDBUF_UPDATE_GOLDEN=1 to rewrite them, then review the diff by hand.

std::string golden_path(const std::string& name) {
  return std::string(NDBUF_TEST_DATA_DIR) + "/print/" + name + ".txt";
}

std::string joined(const Lines& lines) {
  std::string out;
  for (const std::string& line : lines) out += line + "\n";
  return out;
}

void expect_golden(const std::string& name, const Lines& lines) {
  const std::string path = golden_path(name);
  const char* update = std::getenv("NDBUF_UPDATE_GOLDEN");
  if (update != nullptr && std::string(update) == "1") {
    std::ofstream(path, std::ios::binary) << joined(lines);
    return;
  }
  std::ifstream in(path, std::ios::binary);
  ASSERT_TRUE(in.good()) << "missing golden file " << path;
  std::stringstream expected;
  expected << in.rdbuf();
  EXPECT_EQ(joined(lines), expected.str()) << "golden file " << path;
}

// ---- the seed's examples, written out -------------------------------------------------------

TEST(FormatBuffer, SeedVector) {
  EXPECT_EQ(print(make(DType::kF32, {4}, {1, 2, 3, 4})),
            (Lines{"PJRTBuffer ", " 1", " 2", " 3", " 4", "[ CPUf32{4} ] "}));
}

TEST(FormatBuffer, SeedIntegerMatrix) {
  EXPECT_EQ(print(make(DType::kI32, {2, 3}, seq(1, 6))),
            (Lines{"PJRTBuffer ", " 1 3 5", " 2 4 6", "[ CPUi32{2x3} ] "}));
}

TEST(FormatBuffer, SeedScalar) {
  EXPECT_EQ(print(make(DType::kF32, {}, {42})), (Lines{"PJRTBuffer ", " 42", "[ CPUf32{} ] "}));
}

TEST(FormatBuffer, SeedThreeDimensional) {
  EXPECT_EQ(
      print(make(DType::kF32, {2, 3, 4}, seq(1, 24))),
      (Lines{"PJRTBuffer ", "(1,.,.) =", "  1  7 13 19", "  3  9 15 21", "  5 11 17 23", "",
             "(2,.,.) =", "  2  8 14 20", "  4 10 16 22", "  6 12 18 24", "[ CPUf32{2x3x4} ] "}));
}

TEST(FormatBuffer, SeedNegativeExponentScaleLine) {
  EXPECT_EQ(print(make(DType::kF32, {1, 3}, rep(1e-7, 3))),
            (Lines{"PJRTBuffer ", "1e-07 *", " 1.0000 1.0000 1.0000", "[ CPUf32{1x3} ] "}));
}

// ---- integer types --------------------------------------------------------------------------

TEST(FormatBuffer, IntegerSixDigitRule) {
  expect_golden(
      "int_six_digits",
      print(make(DType::kI32, {2, 3}, {123456, -123456, 999999, 1000000, 1234567, -1234567})));
}

TEST(FormatBuffer, IntegerMixedWidthsAlignRight) {
  expect_golden("int_mixed_widths", print(make(DType::kI32, {1, 4}, {1000, 1, 10, 100})));
  expect_golden("int_large_difference", print(make(DType::kI32, {2, 2}, {1e7, 2e7, 3e7, 1})));
}

TEST(FormatBuffer, IntegerExtremes) {
  Tensor i64 = Tensor::allocate(DType::kI64, {3}, Order::kColumnMajor);
  const int64_t i64_values[] = {std::numeric_limits<int64_t>::min(),
                                std::numeric_limits<int64_t>::max(), -7};
  std::memcpy(i64.data(), i64_values, sizeof i64_values);
  expect_golden("int_i64_extremes", print(i64));

  Tensor u64 = Tensor::allocate(DType::kU64, {2}, Order::kColumnMajor);
  const uint64_t u64_values[] = {std::numeric_limits<uint64_t>::max(), 998};
  std::memcpy(u64.data(), u64_values, sizeof u64_values);
  expect_golden("int_u64_extremes", print(u64));

  expect_golden("int_i8_range", print(make(DType::kI8, {2, 2}, {-128, 127, 0, -1})));
}

TEST(FormatBuffer, PredPrintsOneAndZero) {
  expect_golden("pred_matrix", print(make(DType::kPred, {2, 2}, {1, 0, 1, 0})));
  // pjrt_empty() bytes print as they are: any non-zero byte is true.
  Tensor t = Tensor::allocate(DType::kPred, {3}, Order::kColumnMajor);
  const uint8_t bytes[] = {0, 7, 255};
  std::memcpy(t.data(), bytes, sizeof bytes);
  EXPECT_EQ(print(t), (Lines{"PJRTBuffer ", " 0", " 1", " 1", "[ CPUpred{3} ] "}));
}

// ---- float modes ----------------------------------------------------------------------------

TEST(FormatBuffer, FloatIntegerValued) {
  expect_golden("float_integer_valued", print(make(DType::kF64, {10}, seq(1, 10))));
  // Whole floats follow the integer 6-digit rule: the switch to scientific is at 7 digits.
  expect_golden("float_integer_seven_digits",
                print(make(DType::kF32, {2, 2}, {999999, -100000, 1e6, -1234567})));
}

TEST(FormatBuffer, FloatFixed) {
  expect_golden("float_fixed", print(make(DType::kF64, {2, 2}, {1, 2.5, -10.1213, 999.125})));
}

TEST(FormatBuffer, FloatScientificSingleElement) {
  expect_golden("float_scientific_single", print(make(DType::kF32, {1}, {1e-10})));
  expect_golden("float_scientific_scalar_large", print(make(DType::kF64, {}, {1234567.5})));
}

TEST(FormatBuffer, FloatScaledPositiveExponent) {
  expect_golden("float_scaled_positive",
                print(make(DType::kF64, {2, 2}, {1.5e6 + 0.25, 2.25e6, 9.875e6, 0})));
}

TEST(FormatBuffer, FloatScaledNegativeExponent) {
  expect_golden("float_scaled_negative", print(make(DType::kF64, {3}, {1.5e-7, -2.5e-7, 9.99e-7})));
}

TEST(FormatBuffer, FloatScientificMixed) {
  expect_golden("float_scientific_mixed", print(make(DType::kF32, {2}, {1e10, 1e-10})));
  expect_golden("float_scientific_mixed_matrix",
                print(make(DType::kF64, {2, 3}, {0.5, 1e-5, 123.25, 2e7, -3.5, 0})));
}

TEST(FormatBuffer, FloatInfNaNMixes) {
  expect_golden("float_inf_nan_integer", print(make(DType::kF32, {4}, {kInf, -kInf, kNaN, 1})));
  expect_golden("float_inf_nan_fixed",
                print(make(DType::kF32, {4}, {kInf, kInf, kNaN, 100011.234567})));
  expect_golden("float_inf_nan_row",
                print(make(DType::kF32, {1, 4}, {kInf, kInf, kNaN, 100011.234567})));
  expect_golden("float_all_nan", print(make(DType::kF64, {2, 2}, rep(kNaN, 4))));
  expect_golden("float_inf_nan_scaled",
                print(make(DType::kF64, {2, 2}, {kNaN, 2.5e-9, -kInf, 7.5e-9})));
}

TEST(FormatBuffer, NegativeNaNNeverPrintsMinusNan) {
  const double negative_nan = std::copysign(kNaN, -1.0);
  EXPECT_EQ(print(make(DType::kF64, {2}, {negative_nan, 0.5})),
            (Lines{"PJRTBuffer ", "    nan", " 0.5000", "[ CPUf64{2} ] "}));
  EXPECT_EQ(print(make(DType::kF32, {2}, {negative_nan, -0.0})),
            (Lines{"PJRTBuffer ", " nan", "   0", "[ CPUf32{2} ] "}));
}

TEST(FormatBuffer, ModeComesFromPrintedElementsOnly) {
  // The 1e10 in row 40 is not printed (max_rows 30), so the column prints as integers.
  std::vector<double> values = seq(1, 50);
  values[39] = 1e10 + 0.5;
  expect_golden("float_mode_printed_only", print(make(DType::kF64, {50}, values)));
  // ... but with every row printed it decides the mode.
  const Lines all = print(make(DType::kF64, {50}, values), opts(-1, 85, -1));
  EXPECT_EQ(all[1], " 1.0000e+00");
  EXPECT_EQ(all[40], " 1.0000e+10");
}

TEST(FormatBuffer, ModeComesFromPrintedColumnsOnly) {
  // One row of 2000 columns, 30 chunks of one row each. Column 1000 holds 1e10 + 0.5: in
  // scientific mode (7 cells a chunk) it would not be printed, and in the fixed mode the
  // printed cells call for (12 cells a chunk) neither, so the fixed mode is used.
  std::vector<double> values = rep(0.5, 2000);
  values[999] = 1e10 + 0.5;
  const Lines lines = print(make(DType::kF64, {1, 2000}, values));
  EXPECT_EQ(lines[1], "Columns 1 to 12");
  EXPECT_EQ(lines[2], " " + std::string("0.5000 0.5000 0.5000 0.5000 0.5000 0.5000 0.5000 0.5000 "
                                        "0.5000 0.5000 0.5000 0.5000"));
  EXPECT_EQ(lines[lines.size() - 4], "Columns 349 to 360");
  EXPECT_EQ(lines[lines.size() - 2], kTruncationLine);
  // With every column printed, the large value decides.
  const Lines all = print(make(DType::kF64, {1, 2000}, values), opts(-1, -1, -1));
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[1].substr(0, 12), " 5.0000e-01 ");
}

TEST(FormatBuffer, ModeIsChosenPerMatrix) {
  expect_golden("float_mode_per_slice",
                print(make(DType::kF32, {2, 1, 2}, {1e-6, 1e-9, 1e-6, 1e-9})));
  expect_golden("float_width_per_slice",
                print(make(DType::kF32, {2, 2, 2}, {1, 100, 2, 200, 3, 300, 4, 400})));
}

TEST(FormatBuffer, HalfAndBFloat16FormatLikeF32) {
  expect_golden("float_f16", print(make(DType::kF16, {2, 2}, {1, 0.5, -2.25, 65504})));
  expect_golden("float_bf16", print(make(DType::kBF16, {3}, {1, 0.5, -kInf})));
}

TEST(FormatBuffer, Complex) {
  expect_golden("complex_integer",
                print(make_complex<std::complex<float>>(DType::kC64, {2, 2},
                                                        {{1, 2}, {3, -4}, {-5, 0}, {0, -0.0}})));
  expect_golden("complex_fixed", print(make_complex<std::complex<double>>(
                                     DType::kC128, {2}, {{1.5, -0.25}, {kNaN, kInf}})));
  expect_golden("complex_scaled", print(make_complex<std::complex<double>>(
                                      DType::kC128, {2}, {{1.5e-8, 2e-8}, {-3e-8, 9e-8}})));
  expect_golden("complex_scalar_scientific",
                print(make_complex<std::complex<double>>(DType::kC128, {}, {{1e-10, 5e9}})));
}

// ---- shapes ---------------------------------------------------------------------------------

TEST(FormatBuffer, SevenDimensional) {
  expect_golden("rank7", print(make(DType::kI32, {1, 1, 1, 1, 1, 5, 4}, seq(1, 20))));
  expect_golden("rank7_several_slices",
                print(make(DType::kI16, {2, 1, 1, 1, 2, 2, 2}, seq(1, 16))));
}

TEST(FormatBuffer, EmptyBuffers) {
  EXPECT_EQ(print(make(DType::kF32, {0, 3}, {})), (Lines{"PJRTBuffer ", "[ CPUf32{0x3} ] "}));
  EXPECT_EQ(print(make(DType::kI32, {0}, {})), (Lines{"PJRTBuffer ", "[ CPUi32{0} ] "}));
  EXPECT_EQ(print(make(DType::kPred, {2, 0, 3}, {})),
            (Lines{"PJRTBuffer ", "[ CPUpred{2x0x3} ] "}));
}

TEST(FormatBuffer, EveryDTypeFooter) {
  for (const DTypeInfo& info : kDTypeTable) {
    const Tensor t = make(info.dtype, {1, 2}, {1, 0});
    const Lines lines = print(t);
    EXPECT_EQ(lines.back(), "[ CPU" + std::string(info.name) + "{1x2} ] ") << info.name;
    EXPECT_EQ(lines.back(), default_buffer_footer(t));
  }
  EXPECT_EQ(default_buffer_footer(make(DType::kC128, {}, {0})), "[ CPUc128{} ] ");
}

TEST(FormatBuffer, EveryDTypeGolden) {
  Lines all;
  for (const DTypeInfo& info : kDTypeTable) {
    const Lines lines = print(make(info.dtype, {2, 2}, {1, 0, 100, 7}));
    all.insert(all.end(), lines.begin(), lines.end());
  }
  expect_golden("every_dtype", all);
}

// ---- width ----------------------------------------------------------------------------------

TEST(FormatBuffer, ColumnChunksAtDefaultWidth) {
  expect_golden("chunks_default_width", print(make(DType::kF32, {2, 50}, seq(1, 100))));
  expect_golden("chunks_3d", print(make(DType::kI32, {1, 2, 50}, seq(1, 100))));
}

TEST(FormatBuffer, ColumnChunksWithRowBudget) {
  // 2 rows per chunk: a budget of 30 lines shows 15 chunks, then the truncation line.
  expect_golden("chunks_budget", print(make(DType::kI32, {1, 2, 500}, seq(1, 1000))));
}

TEST(FormatBuffer, TinyWidths) {
  const Tensor t = make(DType::kI32, {1, 3}, {100, 100, 100});
  expect_golden("width_7", print(t, opts(1, 7, 1)));
  expect_golden("width_8", print(t, opts(1, 8, 1)));
  expect_golden("width_8_all_rows", print(t, opts(-1, 8, -1)));
  EXPECT_EQ(print(make(DType::kI32, {1, 1}, {100}), opts(1, 3, 1)),
            (Lines{"PJRTBuffer ", " 100", "[ CPUi32{1x1} ] "}));
  // Widths of 0 and 1 leave no room at all: still one column per chunk.
  expect_golden("width_1", print(make(DType::kI32, {2, 2}, {1, 2, 3, 4}), opts(30, 1, 30)));
  EXPECT_EQ(print(make(DType::kI32, {2, 2}, {1, 2, 3, 4}), opts(30, 0, 30)),
            print(make(DType::kI32, {2, 2}, {1, 2, 3, 4}), opts(30, 1, 30)));
}

TEST(FormatBuffer, ColumnChunksShareTheScaleLine) {
  expect_golden("chunks_scaled",
                print(make(DType::kF32, {2, 2, 5},
                           {1e-6, 1e-9, 1e-6, 1e-9, 1e-6, 1e-9, 1e-6, 1e-9, 1e-6, 1e-9,
                            1e-6, 1e-9, 1e-6, 1e-9, 1e-6, 1e-9, 1e-6, 1e-9, 1e-6, 1e-9}),
                      opts(30, 15, 30)));
}

TEST(FormatBuffer, NegativeWidthIsUnlimited) {
  const Lines lines = print(make(DType::kF32, {1, 50}, rep(1e-7, 50)), opts(30, -1, 30));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[1], "1e-07 *");
  EXPECT_EQ(lines[2].size(), 1 + 50 * 6 + 49u);
  expect_golden("width_unlimited", lines);
}

TEST(FormatBuffer, WidthRuleIsExact) {
  // Cells of width 2: k columns need 3k - 1 characters after the leading space.
  const Tensor t = make(DType::kI32, {1, 10}, seq(10, 19));
  EXPECT_EQ(print(t, opts(30, 1 + 29, 30))[1], " 10 11 12 13 14 15 16 17 18 19");
  EXPECT_EQ(print(t, opts(30, 1 + 28, 30))[1], "Columns 1 to 9");
  EXPECT_EQ(print(t, opts(30, 1 + 26, 30))[1], "Columns 1 to 9");
  EXPECT_EQ(print(t, opts(30, 1 + 25, 30))[1], "Columns 1 to 8");
}

// ---- rows -----------------------------------------------------------------------------------

TEST(FormatBuffer, TruncationByMaxRows) {
  expect_golden("rows_vector_50", print(make(DType::kI32, {50}, seq(1, 50))));
  expect_golden("rows_max_10", print(make(DType::kI32, {100}, seq(1, 100)), opts(10, 85, 10)));
  expect_golden("rows_column_matrix",
                print(make(DType::kF32, {11, 1}, seq(1, 11)), opts(10, 85, 10)));
}

TEST(FormatBuffer, MaxRowsMinusOneIsUnlimited) {
  const Lines lines = print(make(DType::kI32, {100}, seq(1, 100)), opts(-1, 85, -1));
  ASSERT_EQ(lines.size(), 102u);
  EXPECT_EQ(lines[1], "   1");
  EXPECT_EQ(lines[100], " 100");
  EXPECT_EQ(lines[101], "[ CPUi32{100} ] ");
  expect_golden("rows_unlimited_3d",
                print(make(DType::kI32, {3, 20, 2}, seq(1, 120)), opts(-1, 85, -1)));
}

TEST(FormatBuffer, MaxRowsSliceCapsEachMatrix) {
  expect_golden("rows_slice_cap", print(make(DType::kI32, {2, 5, 3}, seq(1, 30)), opts(30, 85, 2)));
  // Unlimited per slice, but the budget still counts.
  expect_golden("rows_slice_unlimited_budget",
                print(make(DType::kI32, {3, 4, 2}, seq(1, 24)), opts(10, 85, -1)));
}

TEST(FormatBuffer, BudgetRunsAcrossSlices) {
  // Exactly used up at the end: no truncation line.
  const Lines exact = print(make(DType::kI32, {2, 15, 1}, seq(1, 30)));
  EXPECT_NE(exact[exact.size() - 2], kTruncationLine);
  EXPECT_EQ(exact.size(), 1 + 2 + 2 * 15 + 1 + 1u);
  // A third slice gets no row: it is not announced, and the output is marked as cut.
  expect_golden("rows_budget_slices", print(make(DType::kI32, {3, 15, 1}, seq(1, 45))));
}

TEST(FormatBuffer, BudgetRunsOutInsideAChunk) {
  // 20 rows per chunk, 30 lines: the second chunk shows 10 rows.
  std::vector<double> values(20 * 60);
  for (size_t k = 0; k < values.size(); ++k) values[k] = static_cast<double>(k % 97);
  expect_golden("rows_budget_chunk", print(make(DType::kI32, {20, 60}, values)));
}

TEST(FormatBuffer, MaxRowsZeroPrintsNoData) {
  EXPECT_EQ(print(make(DType::kI32, {3}, {1, 2, 3}), opts(0, 85, 0)),
            (Lines{"PJRTBuffer ", kTruncationLine, "[ CPUi32{3} ] "}));
  EXPECT_EQ(print(make(DType::kI32, {3}, {1, 2, 3}), opts(-1, 85, 0)),
            (Lines{"PJRTBuffer ", kTruncationLine, "[ CPUi32{3} ] "}));
}

// ---- header and footer ----------------------------------------------------------------------

TEST(FormatBuffer, HeaderAndFooterOptions) {
  const Tensor t = make(DType::kI32, {2}, {1, 2});
  BufferPrintOptions o;
  o.header = false;
  EXPECT_EQ(print(t, o), (Lines{" 1", " 2", "[ CPUi32{2} ] "}));
  o.footer = "txt";
  EXPECT_EQ(print(t, o), (Lines{" 1", " 2", "txt "}));
  o.footer = "";
  EXPECT_EQ(print(t, o), (Lines{" 1", " 2"}));
  o.header = true;
  EXPECT_EQ(print(t, o), (Lines{"PJRTBuffer ", " 1", " 2"}));
}

// ---- layouts other than dense column-major ---------------------------------------------------

TEST(FormatBuffer, ReadsThroughStrides) {
  // The same 2x3 matrix stored row-major, and as a reversed view of a 3x2 column-major tensor.
  Tensor row_major = Tensor::allocate(DType::kI32, {2, 3}, Order::kRowMajor);
  const int32_t c_order[] = {1, 3, 5, 2, 4, 6};
  std::memcpy(row_major.data(), c_order, sizeof c_order);
  const Lines expected{"PJRTBuffer ", " 1 3 5", " 2 4 6", "[ CPUi32{2x3} ] "};
  EXPECT_EQ(print(row_major), expected);
  EXPECT_EQ(print(make(DType::kI32, {3, 2}, {1, 3, 5, 2, 4, 6}).reversed_axes()), expected);

  // A strided view with an offset and a negative stride: every other element, backwards.
  const Tensor base = make(DType::kF64, {6}, {0.5, 1, 1.5, 2, 2.5, 3});
  const Tensor view(base.storage(), DType::kF64, {3}, {-2}, 4);
  EXPECT_EQ(print(view), (Lines{"PJRTBuffer ", " 2.5000", " 1.5000", " 0.5000", "[ CPUf64{3} ] "}));
}

#ifdef NDBUF_HAVE_MMAP
// Storage whose first `readable` bytes can be read and whose rest faults when touched: a
// printer that reads an element it does not print crashes the test.
std::shared_ptr<Storage> guarded_storage(size_t nbytes, size_t readable) {
  void* p = mmap(nullptr, nbytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  EXPECT_NE(p, MAP_FAILED);
  EXPECT_EQ(mprotect(p, readable, PROT_READ | PROT_WRITE), 0);
  std::memset(p, 0, readable);
  return std::make_shared<Storage>(
      p, nbytes, Device{}, [nbytes](void* q) noexcept { munmap(q, nbytes); }, false);
}

TEST(FormatBuffer, TouchesOnlyPrintedElements) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t readable = 16 * page;
  const size_t nbytes = size_t{400} << 20;  // 10^8 f32 elements
  auto storage = guarded_storage(nbytes, readable);
  float* data = static_cast<float*>(storage->data());
  for (size_t k = 0; k < readable / sizeof(float); ++k) data[k] = 0.5f * static_cast<float>(k);

  const int64_t n = 100000000;
  const Lines column = format_buffer(Tensor::dense(storage, DType::kF32, {n}, Order::kColumnMajor),
                                     BufferPrintOptions{});
  EXPECT_EQ(column.size(), 1 + 30 + 1 + 1u);
  EXPECT_EQ(column[2], "  0.5000");
  // A row of 10^8 columns: 30 chunks of default width.
  const Lines row = format_buffer(Tensor::dense(storage, DType::kF32, {1, n}, Order::kColumnMajor),
                                  BufferPrintOptions{});
  EXPECT_EQ(row.back(), "[ CPUf32{1x100000000} ] ");
  EXPECT_EQ(row[row.size() - 2], kTruncationLine);
  // 10^8 / 4 matrices of 2x2: 15 are printed.
  const Lines slices = format_buffer(
      Tensor::dense(storage, DType::kF32, {n / 4, 2, 2}, Order::kRowMajor), BufferPrintOptions{});
  EXPECT_EQ(slices[slices.size() - 5], "(15,.,.) =");
}
#endif

TEST(FormatBuffer, DeviceBufferFooterNamesItsPlatform) {
  // No elements: nothing is copied from the device, and the footer still says CUDA.
  auto storage = std::make_shared<Storage>(nullptr, 0, Device{Platform::kCuda, 0}, nullptr, true);
  const Tensor t = Tensor::dense(storage, DType::kF32, {0, 3}, Order::kColumnMajor);
  EXPECT_EQ(format_buffer(t, BufferPrintOptions{}),
            (std::vector<std::string>{"PJRTBuffer ", "[ CUDAf32{0x3} ] "}));
}

}  // namespace
}  // namespace ndbuf
