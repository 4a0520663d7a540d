// Tests of the dtype table, name parsing and dispatch.
#include "ndbuf/base/dtype.hpp"

#include <gtest/gtest.h>

#include "ndbuf/base/error.hpp"

namespace ndbuf {
namespace {

TEST(DType, TableIsIndexedByEnum) {
  for (size_t k = 0; k < kNumDTypes; ++k) {
    EXPECT_EQ(static_cast<size_t>(kDTypeTable[k].dtype), k);
  }
}

TEST(DType, ItemSizesMatchElementTypes) {
  for (const auto& info : kDTypeTable) {
    const size_t size =
        dispatch(info.dtype, [](auto tag) { return sizeof(typename decltype(tag)::type); });
    EXPECT_EQ(size, info.itemsize) << info.name;
  }
}

TEST(DType, ProgramOnlyTableFollowsTheBufferDTypes) {
  for (size_t k = 0; k < kNumProgramOnlyDTypes; ++k) {
    const DType d = kProgramDTypeTable[k].dtype;
    EXPECT_EQ(static_cast<size_t>(d), kNumDTypes + k);
    EXPECT_TRUE(is_program_only(d));
    EXPECT_EQ(dtype_info(d).name, minifloat_format_of(d).name);
    EXPECT_EQ(itemsize(d), 1u);
  }
  EXPECT_FALSE(is_program_only(DType::kF8E5M2));
  EXPECT_EQ(minifloat_format_of(DType::kF8E4M3FN).name, "f8E4M3FN");
  EXPECT_EQ(minifloat_format_of(DType::kF8E5M2).name, "f8E5M2");
}

TEST(DType, DispatchRefusesProgramOnlyDTypes) {
  try {
    dispatch(DType::kF6E2M3FN, [](auto tag) { return sizeof(typename decltype(tag)::type); });
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
    EXPECT_STREQ(e.what(),
                 "element type f6E2M3FN is supported only by constants, convert and the check "
                 "ops of a program");
  }
}

TEST(DType, ParsesNamesAndAliases) {
  EXPECT_EQ(parse_dtype("f32"), DType::kF32);
  EXPECT_EQ(parse_dtype("ui64"), DType::kU64);
  EXPECT_EQ(parse_dtype("bool"), DType::kPred);
  EXPECT_EQ(parse_dtype("i1"), DType::kPred);
  EXPECT_EQ(parse_dtype("s16"), DType::kI16);
  EXPECT_EQ(parse_dtype("u8"), DType::kU8);
  EXPECT_EQ(parse_dtype("bf16"), DType::kBF16);
  EXPECT_EQ(parse_dtype("c128"), DType::kC128);
  EXPECT_EQ(parse_dtype("f8e4m3fn"), DType::kF8E4M3FN);
  EXPECT_EQ(parse_dtype("f8E5M2"), DType::kF8E5M2);
  EXPECT_FALSE(parse_dtype("f8E4M3FNUZ").has_value());  // program-only: never a buffer's dtype
  EXPECT_FALSE(parse_dtype("float32").has_value());
  EXPECT_FALSE(parse_dtype("").has_value());
  EXPECT_FALSE(parse_dtype("F32").has_value());
}

TEST(DType, UnknownNameErrorListsValidNames) {
  try {
    parse_dtype_or_throw("float");
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
    EXPECT_STREQ(e.what(),
                 "Unknown dtype \"float\"; valid dtypes are pred, i8, i16, i32, i64, ui8, ui16, "
                 "ui32, ui64, f16, bf16, f32, f64, c64, c128, f8e4m3fn, f8e5m2.");
  }
}

TEST(DType, SafetensorsTagsRoundTrip) {
  for (const auto& info : kDTypeTable) {
    EXPECT_EQ(dtype_from_safetensors(info.safetensors), info.dtype);
  }
  EXPECT_EQ(dtype_from_safetensors("F8_E4M3"), DType::kF8E4M3FN);
  EXPECT_EQ(dtype_from_safetensors("F8_E5M2"), DType::kF8E5M2);
  EXPECT_FALSE(dtype_from_safetensors("F8_E8M0").has_value());
}

TEST(DType, AliasesNameOtherDTypesThanTheirSpelling) {
  for (const auto& alias : kDTypeAliases) {
    EXPECT_NE(dtype_name(alias.dtype), alias.spelling);
    EXPECT_EQ(parse_dtype(alias.spelling), alias.dtype) << alias.spelling;
  }
}

TEST(DType, HArrayNamesAreTheFourFloatAndComplexTypes) {
  EXPECT_EQ(dtype_info(DType::kF32).harray, "Float32");
  EXPECT_EQ(dtype_info(DType::kF64).harray, "Float64");
  EXPECT_EQ(dtype_info(DType::kC64).harray, "Complex32");
  EXPECT_EQ(dtype_info(DType::kC128).harray, "Complex64");
  int named = 0;
  for (const auto& info : kDTypeTable) named += info.harray.empty() ? 0 : 1;
  EXPECT_EQ(named, 4);
}

}  // namespace
}  // namespace ndbuf
