// Whole-number settings read from environment variables (thread counts, memory limits, device
// counts), parsed one way everywhere.
#pragma once

namespace ndbuf {

struct WholeNumberSetting {
  enum class State { kUnset, kMalformed, kValid };
  State state = State::kUnset;
  // Meaningful when kValid; a number beyond long long's range is clamped to it.
  long long value = 0;

  bool valid() const { return state == State::kValid; }
};

// The setting in environment variable `name`: unset or empty is kUnset; anything but an
// optionally signed run of decimal digits (surrounding text, spaces, a fraction) is kMalformed.
// Never throws: some callers run where no error can be reported.
WholeNumberSetting whole_number_setting(const char* name) noexcept;

}  // namespace ndbuf
