// The body is evaluated once per situation on abstract registers: a boolean for a predicate,
// and for a value or index register which argument it holds (the first pair's or the second's).
#include "program/ops/reduction/arg_body.hpp"

#include <utility>
#include <vector>

namespace ndbuf::program {
namespace {

enum class Kind : uint8_t { kPred, kValue, kIndex };

bool natural_compare(DType dtype, CompareType type) {
  if (is_floating(dtype)) return type == CompareType::kFloat;
  if (dtype_info(dtype).cls == DTypeClass::kSigned) return type == CompareType::kSigned;
  return dtype_info(dtype).cls == DTypeClass::kUnsigned && type == CompareType::kUnsigned;
}

bool orderable(DType dtype) { return is_floating(dtype) || is_integer(dtype); }

// The steps the results depend on.
std::vector<bool> live_steps(const ElementProgram& body) {
  std::vector<bool> live(body.steps.size(), false);
  for (int32_t r : body.results) live[static_cast<size_t>(r)] = true;
  for (size_t r = body.steps.size(); r-- > 0;) {
    if (!live[r]) continue;
    for (int32_t operand : body.steps[r].operands) {
      if (operand >= 0) live[static_cast<size_t>(operand)] = true;
    }
  }
  return live;
}

// Kinds of every register, or an empty vector when a step the results depend on is outside the
// recognised form (dead steps are never run: their kind is left a predicate's).
std::vector<Kind> register_kinds(const ElementProgram& body) {
  const std::vector<bool> live = live_steps(body);
  std::vector<Kind> kinds;
  for (const ElementStep& s : body.steps) {
    const auto kind_of = [&](int k) { return kinds[static_cast<size_t>(s.operands[k])]; };
    if (!live[kinds.size()] && s.op != ElementOp::kArgument) {
      kinds.push_back(Kind::kPred);
      continue;
    }
    switch (s.op) {
      case ElementOp::kArgument:
        kinds.push_back(s.argument % 2 == 0 ? Kind::kValue : Kind::kIndex);
        break;
      case ElementOp::kConstant:
        if (s.dtype != DType::kPred) return {};
        kinds.push_back(Kind::kPred);
        break;
      case ElementOp::kCompare:
        if (kind_of(0) == Kind::kPred || kind_of(0) != kind_of(1)) return {};
        if (!natural_compare(body.arguments[kind_of(0) == Kind::kValue ? 0 : 1], s.compare_type)) {
          return {};
        }
        kinds.push_back(Kind::kPred);
        break;
      case ElementOp::kUnary:
        if (s.unary != UnaryOp::kNot || kind_of(0) != Kind::kPred) return {};
        kinds.push_back(Kind::kPred);
        break;
      case ElementOp::kBinary:
        if (s.binary != BinaryOp::kAnd && s.binary != BinaryOp::kOr && s.binary != BinaryOp::kXor) {
          return {};
        }
        if (kind_of(0) != Kind::kPred || kind_of(1) != Kind::kPred) return {};
        kinds.push_back(Kind::kPred);
        break;
      case ElementOp::kSelect:
        if (kind_of(0) != Kind::kPred || kind_of(1) == Kind::kPred || kind_of(1) != kind_of(2)) {
          return {};
        }
        kinds.push_back(kind_of(1));
        break;
      default:
        return {};
    }
  }
  return kinds;
}

// A comparison's outcome from the order of its operands: -1 less, 0 equal, 1 greater, 2
// unordered (a NaN).
bool compare_outcome(CompareDirection direction, int order) {
  switch (direction) {
    case CompareDirection::kEQ:
      return order == 0;
    case CompareDirection::kNE:
      return order != 0;
    case CompareDirection::kLT:
      return order == -1;
    case CompareDirection::kLE:
      return order == -1 || order == 0;
    case CompareDirection::kGT:
      return order == 1;
    case CompareDirection::kGE:
      return order == 1 || order == 0;
  }
  return false;
}

// The order of argument `x` against `y` (0: the first pair's, 1: the second's) in a value
// situation (0-5, see the header) or an index situation (0-2).
int order_in(int situation, int x, int y) {
  const bool first_nan = situation == 3 || situation == 5;
  const bool second_nan = situation == 4 || situation == 5;
  if ((x == 0 ? first_nan : second_nan) || (y == 0 ? first_nan : second_nan)) return 2;
  if (x == y) return 0;
  const int first_against_second = situation - 1;  // 0, 1, 2 -> -1, 0, 1
  return x == 0 ? first_against_second : -first_against_second;
}

// Runs the body in one situation; returns which pair its value and index results come from.
std::pair<int, int> run_abstract(const ElementProgram& body, const std::vector<Kind>& kinds,
                                 const std::vector<bool>& live, int value_situation,
                                 int index_situation) {
  std::vector<int> reg(body.steps.size(), 0);  // a predicate's truth or an argument's pair
  for (size_t r = 0; r < body.steps.size(); ++r) {
    const ElementStep& s = body.steps[r];
    const auto in = [&](int k) { return reg[static_cast<size_t>(s.operands[k])]; };
    if (!live[r]) continue;
    switch (s.op) {
      case ElementOp::kArgument:
        reg[r] = s.argument / 2;
        break;
      case ElementOp::kConstant:
        reg[r] = s.constant[0] != 0;
        break;
      case ElementOp::kCompare: {
        const bool values = kinds[static_cast<size_t>(s.operands[0])] == Kind::kValue;
        reg[r] = compare_outcome(
            s.direction, order_in(values ? value_situation : index_situation, in(0), in(1)));
        break;
      }
      case ElementOp::kUnary:
        reg[r] = !in(0);
        break;
      case ElementOp::kBinary:
        reg[r] = s.binary == BinaryOp::kAnd  ? (in(0) && in(1))
                 : s.binary == BinaryOp::kOr ? (in(0) || in(1))
                                             : (in(0) != in(1));
        break;
      default:  // kSelect
        reg[r] = in(0) ? in(1) : in(2);
        break;
    }
  }
  return {reg[static_cast<size_t>(body.results[0])], reg[static_cast<size_t>(body.results[1])]};
}

}  // namespace

std::optional<ArgPickTable> recognise_arg_pick(const ElementProgram& body) {
  if (body.arguments.size() != 4 || body.results.size() != 2) return std::nullopt;
  const DType value = body.arguments[0], index = body.arguments[1];
  if (body.arguments[2] != value || body.arguments[3] != index) return std::nullopt;
  if (!orderable(value) || !is_integer(index)) return std::nullopt;
  const std::vector<Kind> kinds = register_kinds(body);
  if (kinds.empty() || kinds[static_cast<size_t>(body.results[0])] != Kind::kValue ||
      kinds[static_cast<size_t>(body.results[1])] != Kind::kIndex) {
    return std::nullopt;
  }
  const std::vector<bool> live = live_steps(body);
  ArgPickTable table;
  for (int v = 0; v < 6; ++v) {
    for (int i = 0; i < 3; ++i) {
      const auto [value_from, index_from] = run_abstract(body, kinds, live, v, i);
      table.take_value |= static_cast<uint32_t>(value_from) << (3 * v + i);
      table.take_index |= static_cast<uint32_t>(index_from) << (3 * v + i);
    }
  }
  return table;
}

}  // namespace ndbuf::program
