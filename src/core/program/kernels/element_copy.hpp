// Moving elements by size (the indexing kernels copy values without looking at them).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace ndbuf::program {

// Calls f(Cell{}) with a trivially copyable type of `itemsize` bytes (1, 2, 4, 8 or 16).
template <class F>
void with_cell(size_t itemsize, F&& f) {
  struct Cell16 {
    unsigned char bytes[16];
  };
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

}  // namespace ndbuf::program
