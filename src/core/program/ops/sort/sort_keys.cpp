// Finding the key form of a comparator: the compare's two sides must be equal step for step,
// with argument 2k on the left wherever argument 2k + 1 is on the right.
#include "program/ops/sort/sort_keys.hpp"

#include <map>

namespace ndbuf::program {
namespace {

bool same_attributes(const ElementStep& a, const ElementStep& b) {
  return a.op == b.op && a.dtype == b.dtype && a.unary == b.unary && a.binary == b.binary &&
         a.direction == b.direction && a.compare_type == b.compare_type && a.constant == b.constant;
}

struct KeyExtractor {
  const ElementProgram& from;
  std::map<std::pair<int32_t, int32_t>, bool> mirrored_memo;
  std::map<int32_t, int32_t> copied;  // comparator register -> key register
  ElementProgram key;

  // Whether register l (a-side) and register r (b-side) compute the same function.
  bool mirrored(int32_t l, int32_t r) {
    const auto memo = mirrored_memo.find({l, r});
    if (memo != mirrored_memo.end()) return memo->second;
    const ElementStep& a = from.steps[l];
    const ElementStep& b = from.steps[r];
    bool same = same_attributes(a, b);
    if (same && a.op == ElementOp::kArgument) {
      same = a.argument % 2 == 0 && b.argument == a.argument + 1;
    }
    for (size_t k = 0; same && k < a.operands.size(); ++k) {
      if ((a.operands[k] < 0) != (b.operands[k] < 0)) same = false;
      if (same && a.operands[k] >= 0) same = mirrored(a.operands[k], b.operands[k]);
    }
    mirrored_memo[{l, r}] = same;
    return same;
  }

  // Copies the a-side computation of register l into `key` (post-order).
  int32_t copy(int32_t l) {
    const auto done = copied.find(l);
    if (done != copied.end()) return done->second;
    ElementStep step = from.steps[l];
    if (step.op == ElementOp::kArgument) {
      const int32_t r = step.argument / 2;  // the key program's argument steps come first
      copied[l] = r;
      return r;
    }
    for (int32_t& operand : step.operands) {
      if (operand >= 0) operand = copy(operand);
    }
    const auto r = static_cast<int32_t>(key.steps.size());
    key.steps.push_back(step);
    copied[l] = r;
    return r;
  }
};

}  // namespace

std::optional<ComparatorKeys> comparator_keys(const ElementProgram& comparator) {
  if (comparator.results.size() != 1 || comparator.arguments.size() % 2 != 0) return std::nullopt;
  const ElementStep& root = comparator.steps[comparator.results[0]];
  if (root.op != ElementOp::kCompare) return std::nullopt;
  const DType key_dtype = comparator.steps[root.operands[0]].dtype;
  if (key_dtype == DType::kC64 || key_dtype == DType::kC128) return std::nullopt;
  KeyExtractor extractor{comparator, {}, {}, {}};
  if (!extractor.mirrored(root.operands[0], root.operands[1])) return std::nullopt;
  ComparatorKeys keys;
  for (size_t k = 0; k < comparator.arguments.size(); k += 2) {
    ElementStep argument;
    argument.dtype = comparator.arguments[k];
    argument.argument = static_cast<int32_t>(k / 2);
    extractor.key.steps.push_back(argument);
    extractor.key.arguments.push_back(argument.dtype);
  }
  extractor.key.results.push_back(extractor.copy(root.operands[0]));
  keys.key = std::move(extractor.key);
  keys.direction = root.direction;
  keys.type = root.compare_type;
  return keys;
}

}  // namespace ndbuf::program
