// stream_copy() copies every byte whatever the alignment of either end and the length (the
// aligned middle with non-temporal stores, the ends with plain ones), and touches nothing else.
// Offsets up to 32 and lengths up to 140 give the 32-byte path heads, middles and tails of every
// size.
#include "memory/stream_store.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace ndbuf {
namespace {

TEST(StreamStore, CopiesEveryByteAtEveryAlignmentAndLength) {
  std::vector<uint8_t> from(300);
  for (size_t k = 0; k < from.size(); ++k) from[k] = static_cast<uint8_t>(k * 7 + 1);
  for (size_t to_offset = 0; to_offset < 33; ++to_offset) {
    for (size_t from_offset = 0; from_offset < 3; ++from_offset) {
      for (size_t bytes = 0; bytes <= 140; ++bytes) {
        std::vector<uint8_t> to(200, 0xEE);
        stream_copy(to.data() + to_offset, from.data() + from_offset, bytes);
        stream_fence();
        for (size_t k = 0; k < to.size(); ++k) {
          const bool inside = k >= to_offset && k < to_offset + bytes;
          const uint8_t expect = inside ? from[from_offset + k - to_offset] : 0xEE;
          ASSERT_EQ(to[k], expect) << to_offset << " " << from_offset << " " << bytes << " " << k;
        }
      }
    }
  }
}

}  // namespace
}  // namespace ndbuf
