// Running an element program over many tiles of lanes in parallel, one ElementTile (register
// set) per block of tiles; kernels must not throw inside parallel loops, so the first failure
// is kept and rethrown on the calling thread after the loop.
#pragma once

#include <algorithm>
#include <cstdint>

#include "ndbuf/memory/parallel.hpp"
#include "program/element/element_program.hpp"

namespace ndbuf::program {

// body(tile, first, count, ElementTile&) for tiles 0..tiles-1 of `lanes` items each out of
// `items` (the last tile may be short). `bytes_per_item` sizes the parallelism.
template <class Body>
void for_each_tile(const ElementProgram& program, int64_t items, int64_t lanes,
                   int64_t bytes_per_item, Body&& body) {
  const int64_t tiles = (items + lanes - 1) / lanes;
  for_each_block_rethrowing(
      tiles, bytes_per_item * lanes,
      [&](int64_t begin, int64_t end) {
        ElementTile tile(program, lanes);
        for (int64_t t = begin; t < end; ++t) {
          const int64_t first = t * lanes;
          body(t, first, std::min(lanes, items - first), tile);
        }
      },
      lanes * std::max<int64_t>(1, bytes_per_item / 4));
}

}  // namespace ndbuf::program
