// The nested-bracket layout of Rust's ndarray (harmonium's HArray print()), for a tensor of
// any dtype and layout, axes taken in the tensor's own order:
//
//   [[1, 2, 3],
//    [4, 5, 6]]
//
// - 0-d: the bare value; 1-d: "[1, 2, 3]"; a tensor with any empty axis: one bracket pair
//   per axis ("[[]]" for 2-d).
// - Items of an axis are joined by "," and a newline, then one blank line per axis below the
//   next one (3-d blocks are separated by a blank line), then depth + 1 spaces of indent.
// - A tensor of `elide_from` (500) elements or more elides: an axis longer than its limit
//   (11 for the last two axes, 6 for the others) shows its first limit/2 items, "...", and
//   its last limit/2 items. Printing cost depends on the printed items only.
// - Values: floats as format_shortest() writes them, integers in decimal, pred true/false.
#pragma once

#include <cstdint>
#include <string>

#include "ndbuf/memory/tensor.hpp"

namespace ndbuf {

struct NestedFormatOptions {
  int64_t elide_from = 500;  // element count from which long axes are elided
  int64_t limit_last = 11;   // the last axis (a row)
  int64_t limit_next_to_last = 11;
  int64_t limit_other = 6;
};

// A tensor on another device is read through to_host().
std::string format_nested(const Tensor& tensor, const NestedFormatOptions& options = {});

// One element at `data` of `dtype` as the nested printer writes it.
void append_element(std::string& out, DType dtype, const void* data);

}  // namespace ndbuf
