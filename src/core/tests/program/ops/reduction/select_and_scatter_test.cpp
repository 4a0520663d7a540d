// Tests of select_and_scatter: hand-worked pooling gradients, ties, padding-only windows.
#include "program/ops/reduction/select_and_scatter.hpp"

#include <gtest/gtest.h>

#include "ndbuf/base/error.hpp"
#include "tests/program/kernel_tensors.hpp"

namespace ndbuf::program {
namespace {

using namespace testing;

const FastComparator kGe{ComparatorOrder::kGreaterEqual, false};
const RegionFn kGeRegion = comparator_region<int64_t>([](int64_t a, int64_t b) { return a >= b; });
const RegionFn kAdd =
    binary_region<int64_t>(DType::kI64, [](int64_t a, int64_t b) { return a + b; });

TEST(ProgramSelectAndScatter, MaxPoolGradientByHand) {
  // Column 0 windows pick row 2 (8) twice; column 1 picks row 1 (9), then row 3 (5).
  const Tensor operand = i64({4, 2}, {7, 1, 3, 9, 8, 2, 0, 5});
  const Tensor source = i64({2, 2}, {1, 2, 3, 4});
  const WindowConfig w{{3, 1}, {2, 1}, {}, {}, {{0, 1}, {0, 0}}};
  const std::vector<int64_t> expected = {0, 0, 0, 2, 4, 0, 0, 4};
  EXPECT_EQ(values<int64_t>(select_and_scatter(operand, source, i64({}, {0}), w, nullptr, nullptr,
                                               kGe, FastBody::kAdd)),
            expected);
  EXPECT_EQ(values<int64_t>(select_and_scatter(column_major(operand), source, i64({}, {0}), w,
                                               kGeRegion, kAdd)),
            expected);
}

TEST(ProgramSelectAndScatter, TiesFollowTheComparator) {
  const Tensor operand = f32({2}, {5, 5});
  const WindowConfig w{{2}, {}, {}, {}, {}};
  const Tensor source = f32({1}, {3});
  EXPECT_EQ(
      values<float>(select_and_scatter(operand, source, scalar_f32(0), w, nullptr, nullptr,
                                       {ComparatorOrder::kGreaterEqual, false}, FastBody::kAdd)),
      (std::vector<float>{3, 0}));
  EXPECT_EQ(
      values<float>(select_and_scatter(operand, source, scalar_f32(0), w, nullptr, nullptr,
                                       {ComparatorOrder::kGreaterThan, false}, FastBody::kAdd)),
      (std::vector<float>{0, 3}));
}

TEST(ProgramSelectAndScatter, PaddingOnlyWindowsSelectNothing) {
  // Padded [p p 4]: window 0 holds only padding, window 1 picks the element.
  const Tensor r = select_and_scatter(i64({1}, {4}), i64({2}, {10, 20}), i64({}, {1}),
                                      {{2}, {}, {}, {}, {{2, 0}}}, kGeRegion, kAdd);
  EXPECT_EQ(values<int64_t>(r), (std::vector<int64_t>{21}));
}

TEST(ProgramSelectAndScatter, RejectsMismatches) {
  const Tensor operand = i64({4}, {1, 2, 3, 4});
  const WindowConfig w{{2}, {2}, {}, {}, {}};
  EXPECT_THROW(select_and_scatter(operand, i64({3}, {1, 2, 3}), i64({}, {0}), w, kGeRegion, kAdd),
               Error);
  EXPECT_THROW(select_and_scatter(operand, f32({2}, {1, 2}), i64({}, {0}), w, kGeRegion, kAdd),
               Error);
  EXPECT_THROW(select_and_scatter(operand, i64({2}, {1, 2}), i64({}, {0}), {{2}, {2}, {2}, {}, {}},
                                  kGeRegion, kAdd),
               Error);
  EXPECT_THROW(select_and_scatter(operand, i64({2}, {1, 2}), i64({}, {0}), w, nullptr, kAdd),
               Error);
  EXPECT_THROW(select_and_scatter(operand, i64({2}, {1, 2}), i64({}, {0}), w, kGeRegion, nullptr),
               Error);
}

}  // namespace
}  // namespace ndbuf::program
