// Moving elements by size alone: the one switch on element size of every kernel that copies
// values without looking at them (memory copies, gather, sort).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ndbuf {

// A trivially copyable 16-byte element (c128).
struct Cell16 {
  unsigned char bytes[16];
};

// Calls f(Cell{}) with a trivially copyable type of `itemsize` bytes (1, 2, 4, 8 or 16).
template <class F>
void with_cell(size_t itemsize, F&& f) {
  switch (itemsize) {
    case 1:
      return f(uint8_t{});
    case 2:
      return f(uint16_t{});
    case 4:
      return f(uint32_t{});
    case 8:
      return f(uint64_t{});
    default:
      return f(Cell16{});
  }
}

}  // namespace ndbuf
