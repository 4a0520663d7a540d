// Floats over the whole range for the element-function tests: every step-th bit pattern, NaNs,
// infinities, subnormals and both zeros among them.
#pragma once

#include <cstdint>
#include <cstring>
#include <vector>

namespace ndbuf::program::testing {

inline std::vector<float> spread_float_patterns(uint32_t step) {
  std::vector<float> x;
  for (uint64_t bits = 0; bits <= UINT32_MAX; bits += step) {
    const auto b = static_cast<uint32_t>(bits);
    float v;
    std::memcpy(&v, &b, sizeof v);
    x.push_back(v);
  }
  return x;
}

}  // namespace ndbuf::program::testing
