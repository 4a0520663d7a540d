// Tests of whole-number environment settings at their parsing boundaries.
#include "ndbuf/base/environment.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <climits>

namespace ndbuf {
namespace {

constexpr const char* kName = "NDBUF_TEST_WHOLE_NUMBER";

class EnvironmentSetting : public ::testing::Test {
 protected:
  void TearDown() override { ::unsetenv(kName); }

  static WholeNumberSetting read(const char* text) {
    ::setenv(kName, text, 1);
    return whole_number_setting(kName);
  }
};

TEST_F(EnvironmentSetting, UnsetAndEmptyAreUnset) {
  ::unsetenv(kName);
  EXPECT_EQ(whole_number_setting(kName).state, WholeNumberSetting::State::kUnset);
  EXPECT_EQ(read("").state, WholeNumberSetting::State::kUnset);
}

TEST_F(EnvironmentSetting, SignedDecimalNumbersAreValid) {
  EXPECT_EQ(read("0").value, 0);
  EXPECT_EQ(read("17").value, 17);
  EXPECT_EQ(read("-3").value, -3);
  EXPECT_EQ(read("+4").value, 4);
  EXPECT_EQ(read("007").value, 7);  // decimal, not octal
  EXPECT_TRUE(read("9223372036854775807").valid());
  EXPECT_EQ(read("9223372036854775807").value, LLONG_MAX);
}

TEST_F(EnvironmentSetting, NumbersBeyondRangeAreClamped) {
  EXPECT_EQ(read("99999999999999999999").value, LLONG_MAX);
  EXPECT_EQ(read("-99999999999999999999").value, LLONG_MIN);
}

TEST_F(EnvironmentSetting, AnythingButTheNumberAloneIsMalformed) {
  for (const char* text : {"two", "3x", "12.5", " 4", "4 ", "-", "+", "1e3", "0x10"}) {
    const WholeNumberSetting setting = read(text);
    EXPECT_EQ(setting.state, WholeNumberSetting::State::kMalformed) << "'" << text << "'";
    EXPECT_FALSE(setting.valid()) << "'" << text << "'";
  }
}

}  // namespace
}  // namespace ndbuf
