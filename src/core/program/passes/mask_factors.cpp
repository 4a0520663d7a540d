// Factor masks folded into the factor (mask_factors.hpp): per region, inner regions first,
// each select is matched against the pattern through the ops of its region that made its
// operands.
#include "program/passes/mask_factors.hpp"

#include <cstring>
#include <unordered_map>
#include <vector>

#include "ndbuf/base/dtype.hpp"
#include "program/ir/attr_access.hpp"
#include "program/passes/value_uses.hpp"

namespace ndbuf::program {
namespace {

// Whether every byte of the (at most one distinct) element of `t` is zero: a scalar, or a
// splat whose strides are all zero.
bool is_zero_splat(const Tensor& t) {
  for (const int64_t stride : t.strides()) {
    if (stride != 0) return false;
  }
  if (t.numel() == 0) return false;
  const auto* bytes = static_cast<const unsigned char*>(t.data());
  for (size_t k = 0; k < itemsize(t.dtype()); ++k) {
    if (bytes[k] != 0) return false;
  }
  return true;
}

class MaskFolder {
 public:
  explicit MaskFolder(const Function& fn) : uses_(value_uses(fn)) {}

  int run(Region& region) {
    int folded = 0;
    for (Op& op : region.ops) {
      for (Region& nested : op.regions) folded += run(nested);
    }
    std::unordered_map<int, size_t> made_at;
    std::vector<bool> dead(region.ops.size(), false);
    for (size_t k = 0; k < region.ops.size(); ++k) {
      Op& op = region.ops[k];
      if (op.id == OpId::kSelect && fold(region, made_at, op)) {
        dead[k] = true;
        ++folded;
        continue;
      }
      for (const int result : op.results) made_at[result] = k;
    }
    size_t kept = 0;
    for (size_t k = 0; k < region.ops.size(); ++k) {
      if (dead[k]) continue;
      if (kept != k) region.ops[kept] = std::move(region.ops[k]);
      ++kept;
    }
    region.ops.resize(kept);
    return folded;
  }

 private:
  // The op of this region (before the one being looked at) that made `value`, with `id`.
  static Op* made_by(Region& region, const std::unordered_map<int, size_t>& made_at, int value,
                     OpId id) {
    const auto it = made_at.find(value);
    if (it == made_at.end()) return nullptr;
    Op& op = region.ops[it->second];
    return op.id == id && op.results.size() == 1 ? &op : nullptr;
  }

  // The dimension of an integer iota over the whole `shape`, or -1.
  static int64_t iota_dim(const Op* iota, const Shape& shape) {
    if (iota == nullptr || iota->result_types[0].shape != shape ||
        !is_integer(iota->result_types[0].dtype)) {
      return -1;
    }
    return attr_int(*iota, "iota_dimension");
  }

  // Whether `pred` keeps exactly the lower (row >= column) or the upper triangle of the last
  // two dimensions of `shape`.
  bool keeps_triangle(Region& region, const std::unordered_map<int, size_t>& made_at,
                      const Op* pred, const Shape& shape, bool lower) const {
    if (pred == nullptr || pred->operands.size() != 2 || shape.size() < 2) return false;
    const std::string direction = attr_word(*pred, "comparison_direction");
    if (direction != "GE" && direction != "LE") return false;
    const int64_t row = static_cast<int64_t>(shape.size()) - 2;
    const int64_t left = iota_dim(made_by(region, made_at, pred->operands[0], OpId::kIota), shape);
    const int64_t right = iota_dim(made_by(region, made_at, pred->operands[1], OpId::kIota), shape);
    // lhs >= rhs keeps row >= column with the row iota on the left, row <= column on the right.
    const bool row_left = left == row && right == row + 1;
    const bool row_right = left == row + 1 && right == row;
    if (!row_left && !row_right) return false;
    const bool keeps_lower = (direction == "GE") == row_left;
    return keeps_lower == lower;
  }

  bool is_zeros(Region& region, const std::unordered_map<int, size_t>& made_at, int value) const {
    if (const Op* splat = made_by(region, made_at, value, OpId::kBroadcastInDim)) {
      value = splat->operands[0];
    }
    const Op* constant = made_by(region, made_at, value, OpId::kConstant);
    if (constant == nullptr) return false;
    const Attribute* literal = find_attr(constant->attrs, "value");
    return literal != nullptr && literal->dense && is_zero_splat(*literal->dense);
  }

  // Folds `select` into the cholesky it masks; false when it is not such a mask.
  bool fold(Region& region, const std::unordered_map<int, size_t>& made_at, const Op& select) {
    if (select.operands.size() != 3 || select.results.size() != 1) return false;
    Op* factor = made_by(region, made_at, select.operands[1], OpId::kCholesky);
    if (factor == nullptr || uses_[static_cast<size_t>(factor->results[0])] != 1 ||
        factor->result_types[0] != select.result_types[0]) {
      return false;
    }
    const Shape& shape = select.result_types[0].shape;
    const Op* pred = made_by(region, made_at, select.operands[0], OpId::kCompare);
    if (!keeps_triangle(region, made_at, pred, shape, attr_bool_or(*factor, "lower", false)) ||
        !is_zeros(region, made_at, select.operands[2])) {
      return false;
    }
    uses_[static_cast<size_t>(factor->results[0])] = 0;
    factor->results[0] = select.results[0];
    Attribute flag;
    flag.kind = Attribute::Kind::kBool;
    flag.flag = true;
    set_attr(factor->attrs, kMaskedFactorAttr, flag);
    for (const int operand : select.operands) --uses_[static_cast<size_t>(operand)];
    return true;
  }

  std::vector<int> uses_;  // [value] -> how many operands read it, nested regions included
};

}  // namespace

int mask_factors(Module& module) {
  int folded = 0;
  for (Function& fn : module.functions) {
    if (fn.has_body) folded += MaskFolder(fn).run(fn.body);
  }
  return folded;
}

}  // namespace ndbuf::program
