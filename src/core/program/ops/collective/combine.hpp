// A collective's computation region applied element by element to two whole tensors: the
// step of all_reduce, reduce_scatter and collective_reduce that folds in one more peer's part.
#pragma once

#include <optional>

#include "program/exec/builders.hpp"
#include "program/exec/region_patterns.hpp"
#include "program/ops/elementwise/elementwise.hpp"

namespace ndbuf::program {

class Combine {
 public:
  Combine(const Region& body, DType dtype, const Planning& planning);
  // body(a[i], b[i]) for every i; a and b of one shape and of the region's element type.
  Tensor operator()(Interpreter& in, const Tensor& a, const Tensor& b) const;
  // The parts in order, folded from the left: ((p0 . p1) . p2) ... , the same order on every
  // member of a group, so they all hold the same bits.
  Tensor fold(Interpreter& in, const std::vector<Tensor>& parts) const;
  // A recognised body that runs as one element-wise kernel (add, multiply, maximum, minimum,
  // and, or): into() then applies.
  bool is_native() const { return native_op().has_value(); }
  // That kernel's op, if the body is recognised.
  std::optional<BinaryOp> native_op() const;
  // body(a[i], b[i]) written into `target` (dense, of a's shape and the region's type; it may
  // be `a` itself); returns `target`. Only where is_native().
  Tensor into(const Tensor& a, const Tensor& b, const Tensor& target) const;

 private:
  BodyCall body_;
  DType dtype_;
};

}  // namespace ndbuf::program
