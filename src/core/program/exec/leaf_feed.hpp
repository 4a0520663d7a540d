// How fused loops read their leaves tile by tile (fused_run.cpp, row_fused_run.cpp): a leaf's
// elements reach an element program's argument register in place where they are already laid
// out as the tile's (a dense operand, a broadcast over leading axes), else are gathered, a
// leaf read across its memory's order (a column-major operand) whole rows at a time.
#pragma once

#include <cstdint>
#include <vector>

#include "program/element/element_program.hpp"
#include "program/exec/fusion.hpp"

namespace ndbuf::program {

// A leaf's tensor and its strides over an output of rank `rank`, from the run's operands
// (which must outlive it). read_leaf() fills `source` in place, reusing its memory.
LeafSource leaf_source(const FusedLeaf& leaf, const Values& args, size_t rank);
void read_leaf(LeafSource& source, const FusedLeaf& leaf, const Values& args, size_t rank);

// The period of a leaf whose strides are zero over leading axes and row-major dense over the
// rest (element i of the output reads element i % period from the leaf's first), or 0 for
// any other layout. A 0-d leaf has period 1; a dense one the whole output.
int64_t leaf_period(const LeafSource& leaf, const Shape& shape);

// How the tiles read one leaf: a period (contiguous runs, laid out once over a tile and a
// period when the period is shorter than a tile, so every tile reads in place) or a walk
// over the leaf's strides.
struct LeafFeed {
  const unsigned char* base = nullptr;  // the leaf's element at output index 0
  size_t item = 1;
  int64_t period = 0;
  std::vector<unsigned char> repeated;
  const Strides* strides = nullptr;
};

// The feed of `source` over an output of `shape` read `lanes` elements at a time (the source
// must outlive it). prepare_feed() fills `feed` in place, reusing its memory.
LeafFeed leaf_feed(const LeafSource& source, const Shape& shape, int64_t lanes);
void prepare_feed(LeafFeed& feed, const LeafSource& source, const Shape& shape, int64_t lanes);

// Whether a leaf is read across its memory's order (a column-major operand, a transposing
// broadcast): its tiles gather whole rows at a time, column by column.
bool is_transposing(const LeafFeed& feed);

// The lanes of output elements [start, start + count) of `shape`: in place where the leaf's
// memory already holds them in order, else written into `own` (count elements).
const void* feed_lanes(const LeafFeed& feed, const Shape& shape, int64_t start, int64_t count,
                       void* own);

// Argument k of `tile` over output elements [start, start + count) of `shape`.
void feed_argument(const LeafFeed& feed, size_t k, const Shape& shape, int64_t start, int64_t count,
                   ElementTile& tile);

}  // namespace ndbuf::program
