#include "ndbuf/base/environment.hpp"

#include <cctype>
#include <cstdlib>

namespace ndbuf {

WholeNumberSetting whole_number_setting(const char* name) noexcept {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return {};
  // strtoll() would skip leading spaces: a setting is the number alone.
  if (std::isspace(static_cast<unsigned char>(*text))) {
    return {WholeNumberSetting::State::kMalformed, 0};
  }
  char* end = nullptr;
  const long long value = std::strtoll(text, &end, 10);
  if (end == text || *end != '\0') return {WholeNumberSetting::State::kMalformed, 0};
  // On overflow strtoll() has already clamped to LLONG_MIN / LLONG_MAX.
  return {WholeNumberSetting::State::kValid, value};
}

}  // namespace ndbuf
