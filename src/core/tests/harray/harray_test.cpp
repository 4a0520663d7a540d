// Tests of HArray views and share groups.
#include "ndbuf/harray/harray.hpp"

#include <gtest/gtest.h>

#include <complex>
#include <numeric>
#include <optional>
#include <vector>

#include "ndbuf/base/error.hpp"

namespace ndbuf {
namespace {

// An R-style buffer: dims `dims`, column-major, holding 1, 2, 3, ... in memory order.
Tensor r_buffer(const Shape& dims, DType dtype = DType::kF64) {
  Tensor t = Tensor::allocate(dtype, dims, Order::kColumnMajor);
  dispatch(dtype, [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
      auto* p = static_cast<T*>(t.data());
      for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<T>(i + 1);
    }
  });
  return t;
}

std::vector<double> collect(const Tensor& t) {
  std::vector<double> out(static_cast<size_t>(t.numel()));
  copy_to_r_row_major(t, out.data());
  return out;
}

const auto R = [](std::optional<int64_t> a, std::optional<int64_t> b, std::optional<int64_t> c) {
  return AxisSlice::range(a, b, c);
};
constexpr std::nullopt_t NA = std::nullopt;

TEST(HArray, AxesAreTheRDimsReversedOverTheSameMemory) {
  const Tensor buffer = r_buffer({3, 4});  // R: array(1:12, c(3, 4))
  const HArray h = HArray::from_buffer(buffer);
  EXPECT_EQ(h.tensor().shape(), Shape({4, 3}));
  EXPECT_EQ(h.tensor().data(), buffer.data());
  EXPECT_TRUE(h.is_standard_layout());
  // Its rows are the R columns.
  EXPECT_EQ(collect(h.tensor()), std::vector<double>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
}

TEST(HArray, OnlyFloatAndComplexDtypes) {
  EXPECT_NO_THROW(HArray::from_buffer(r_buffer({2}, DType::kF32)));
  EXPECT_NO_THROW(HArray::from_buffer(r_buffer({2}, DType::kC64)));
  EXPECT_NO_THROW(HArray::from_buffer(r_buffer({2}, DType::kC128)));
  try {
    HArray::from_buffer(r_buffer({2}, DType::kI32));
    ADD_FAILURE();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
    EXPECT_NE(std::string(e.what()).find("not i32"), std::string::npos) << e.what();
  }
}

// Two storages over one block (as the devices' results of a many-device all_reduce are): the
// HArrays over them share memory, so neither is unique. Empty arrays never share.
TEST(HArray, IsUniqueSeesOneBlockThroughSeveralStorages) {
  const Tensor owner = Tensor::allocate(DType::kF64, {4}, Order::kRowMajor);
  auto alias = std::make_shared<Storage>(
      owner.storage()->data(), owner.storage()->nbytes(), Device{Platform::kCpu, 1},
      [keep = owner.storage()](void*) mutable noexcept { keep.reset(); }, true, true);
  const HArray first(owner);
  std::optional<HArray> second(Tensor::dense(alias, DType::kF64, {4}, Order::kRowMajor));
  EXPECT_FALSE(first.is_unique());
  EXPECT_FALSE(second->is_unique());
  second.reset();
  EXPECT_TRUE(first.is_unique());
  const HArray empty_a(Tensor::allocate(DType::kF64, {0}, Order::kRowMajor));
  const HArray empty_b(Tensor::allocate(DType::kF64, {0}, Order::kRowMajor));
  EXPECT_TRUE(empty_a.is_unique());
  EXPECT_TRUE(empty_b.is_unique());
}

TEST(HArray, IsUniqueCountsLiveClonesAndSlices) {
  const HArray h = HArray::from_buffer(r_buffer({3, 4}));
  EXPECT_TRUE(h.is_unique());
  {
    const HArray c = h.clone();
    EXPECT_FALSE(h.is_unique());
    EXPECT_FALSE(c.is_unique());
    EXPECT_EQ(c.mem_address(), h.mem_address());
  }
  EXPECT_TRUE(h.is_unique());
  std::optional<HArray> s = h.slice({R(1, 3, NA), R(NA, NA, NA)});
  EXPECT_FALSE(h.is_unique());
  EXPECT_FALSE(s->is_unique());
  std::optional<HArray> ss = s->slice({AxisSlice::at(0), R(NA, NA, -1)});
  EXPECT_FALSE(ss->is_unique());
  s.reset();  // the slice of the slice still shares the memory
  EXPECT_FALSE(h.is_unique());
  ss.reset();
  EXPECT_TRUE(h.is_unique());
}

TEST(HArray, HArraysMadeSeparatelyOverOneStorageShareAGroup) {
  const Tensor buffer = r_buffer({5});
  const HArray a = HArray::from_buffer(buffer);
  EXPECT_TRUE(a.is_unique());
  std::optional<HArray> b = HArray::from_buffer(buffer);
  EXPECT_FALSE(a.is_unique());
  b.reset();
  EXPECT_TRUE(a.is_unique());
  // A buffer is not an HArray: holding one does not make the HArray shared.
  const Tensor back = a.to_buffer();
  EXPECT_TRUE(a.is_unique());
  EXPECT_EQ(back.data(), a.tensor().data());
}

TEST(HArray, GroupOutlivesTheFirstMember) {
  std::optional<HArray> a = HArray::from_buffer(r_buffer({2, 2}));
  const HArray b = a->clone();
  a.reset();
  EXPECT_TRUE(b.is_unique());
  const HArray c = HArray::from_buffer(b.to_buffer());
  EXPECT_FALSE(b.is_unique());
  EXPECT_FALSE(c.is_unique());
}

TEST(HArray, MemAddressIsLowercaseHexOfTheFirstElement) {
  const HArray h = HArray::from_buffer(r_buffer({3, 4}));
  const std::string address = h.mem_address();
  ASSERT_EQ(address.substr(0, 2), "0x");
  EXPECT_EQ(address.find_first_not_of("0123456789abcdef", 2), std::string::npos) << address;
  EXPECT_EQ(std::stoull(address.substr(2), nullptr, 16),
            reinterpret_cast<uintptr_t>(h.tensor().data()));
  // A view starting at the first element has the same address; others move by whole elements.
  EXPECT_EQ(h.slice({R(0, 2, NA), R(0, 2, NA)}).mem_address(), address);
  const HArray second_row = h.slice({R(1, NA, NA), R(NA, NA, NA)});
  EXPECT_EQ(std::stoull(second_row.mem_address().substr(2), nullptr, 16),
            reinterpret_cast<uintptr_t>(h.tensor().data()) + 3 * sizeof(double));
}

TEST(HArray, ToBufferSharesContiguousViewsAndCopiesStridedOnes) {
  const Tensor buffer = r_buffer({3, 4});
  const HArray h = HArray::from_buffer(buffer);
  const Tensor same = h.to_buffer();
  EXPECT_EQ(same.shape(), Shape({3, 4}));
  EXPECT_EQ(same.data(), buffer.data());
  EXPECT_EQ(same.strides(), Strides({1, 3}));
  // Rows 1..2 of the HArray are R columns 2..3: contiguous, shared at an offset.
  const Tensor rows = h.slice({R(1, 3, NA), R(NA, NA, NA)}).to_buffer();
  EXPECT_EQ(rows.shape(), Shape({3, 2}));
  EXPECT_EQ(rows.storage(), buffer.storage());
  EXPECT_EQ(static_cast<double*>(rows.data()), static_cast<double*>(buffer.data()) + 3);
  // A single column of the HArray (an R row) is strided: materialised densely.
  const Tensor column = h.slice({R(NA, NA, NA), R(1, 2, NA)}).to_buffer();
  EXPECT_EQ(column.shape(), Shape({1, 4}));
  EXPECT_NE(column.storage(), buffer.storage());
  EXPECT_TRUE(column.is_contiguous(Order::kColumnMajor));
  const auto* p = static_cast<const double*>(column.data());
  EXPECT_EQ(std::vector<double>(p, p + 4), std::vector<double>({2, 5, 8, 11}));
  // Reversed axes are strided too.
  const Tensor reversed = h.slice({R(NA, NA, -1), R(NA, NA, NA)}).to_buffer();
  const auto* q = static_cast<const double*>(reversed.data());
  EXPECT_EQ(std::vector<double>(q, q + 12),
            std::vector<double>({10, 11, 12, 7, 8, 9, 4, 5, 6, 1, 2, 3}));
}

TEST(HArray, LengthOneAxesWithOddStridesGetCanonicalBufferStrides) {
  const HArray h = HArray::from_buffer(r_buffer({3, 4}));
  const HArray v = h.slice({R(2, 3, -1), R(NA, NA, NA)});  // one row, walked "backwards"
  EXPECT_TRUE(v.is_standard_layout());
  const Tensor b = v.to_buffer();
  EXPECT_EQ(b.strides(), Strides({1, 3}));
  EXPECT_EQ(b.storage(), h.tensor().storage());
}

TEST(CopyToR, StridedFloat64AndFloat32Views) {
  const HArray h = HArray::from_buffer(r_buffer({3, 4}));
  const HArray v = h.slice({R(NA, NA, -2), R(1, 3, NA)});
  EXPECT_EQ(collect(v.tensor()), std::vector<double>({11, 12, 5, 6}));
  const HArray f = HArray::from_buffer(r_buffer({3, 4}, DType::kF32));
  const HArray fv = f.slice({R(NA, NA, -2), R(1, 3, NA)});
  EXPECT_EQ(collect(fv.tensor()), std::vector<double>({11, 12, 5, 6}));
  EXPECT_EQ(collect(f.tensor()), std::vector<double>({1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
}

TEST(CopyToR, ZeroDimensionalAndEmpty) {
  const HArray h = HArray::from_buffer(r_buffer({3, 4}));
  EXPECT_EQ(collect(h.slice({AxisSlice::at(-1), AxisSlice::at(0)}).tensor()),
            std::vector<double>({10}));
  EXPECT_EQ(collect(h.slice({R(2, 2, NA), R(NA, NA, NA)}).tensor()), std::vector<double>({}));
}

TEST(CopyToR, ComplexWidensToDoublePairs) {
  Tensor c = Tensor::allocate(DType::kC64, {2}, Order::kColumnMajor);
  auto* p = static_cast<std::complex<float>*>(c.data());
  p[0] = {1.5f, -2.0f};
  p[1] = {0.1f, 3.0f};
  const HArray h = HArray::from_buffer(c);
  std::vector<std::complex<double>> out(2);
  copy_to_r_row_major(h.slice({R(NA, NA, -1)}).tensor(), out.data());
  EXPECT_EQ(out[0], std::complex<double>(static_cast<double>(0.1f), 3.0));
  EXPECT_EQ(out[1], std::complex<double>(1.5, -2.0));
}

}  // namespace
}  // namespace ndbuf
