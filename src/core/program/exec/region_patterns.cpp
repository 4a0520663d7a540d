// Pattern matching of two-op region bodies.
#include "program/exec/region_patterns.hpp"

#include <string>

#include "program/element/element_compile.hpp"
#include "program/element/element_region.hpp"

namespace ndbuf::program {
namespace {

// The one op computing the region's result from its first two arguments, or null.
const Op* single_binary_op(const Region& region) {
  if (region.args.size() < 2 || region.ops.size() != 2) return nullptr;
  const Op& op = region.ops[0];
  const Op& ret = region.ops[1];
  if (op.operands.size() != 2 || op.results.size() != 1 || ret.operands.size() != 1 ||
      ret.operands[0] != op.results[0]) {
    return nullptr;
  }
  return &op;
}

std::string attr_text(const Op& op, const std::string& key) {
  const Attribute* attr = find_attr(op.attrs, key);
  return attr == nullptr ? "" : attr->text;
}

}  // namespace

FastBody recognise_body(const Region& region) {
  if (region.args.size() != 2) return FastBody::kNone;
  if (region.ops.size() == 1 && region.ops[0].operands.size() == 1 &&
      region.ops[0].operands[0] == region.args[1]) {
    return FastBody::kReplace;
  }
  const Op* op = single_binary_op(region);
  if (op == nullptr) return FastBody::kNone;
  const bool in_order = op->operands[0] == region.args[0] && op->operands[1] == region.args[1];
  const bool swapped = op->operands[0] == region.args[1] && op->operands[1] == region.args[0];
  if (!in_order && !swapped) return FastBody::kNone;
  if (op->id == OpId::kAdd) return FastBody::kAdd;
  if (op->id == OpId::kMultiply) return FastBody::kMultiply;
  if (op->id == OpId::kMaximum) return FastBody::kMaximum;
  if (op->id == OpId::kMinimum) return FastBody::kMinimum;
  if (op->id == OpId::kAnd) return FastBody::kAnd;
  if (op->id == OpId::kOr) return FastBody::kOr;
  return FastBody::kNone;
}

FastComparator recognise_comparator(const Region& region) {
  FastComparator fast;
  const Op* op = single_binary_op(region);
  if (op == nullptr || op->id != OpId::kCompare || op->operands[0] != region.args[0] ||
      op->operands[1] != region.args[1]) {
    return fast;
  }
  const std::string direction = attr_text(*op, "comparison_direction");
  const std::string type = attr_text(*op, "compare_type");
  if (direction == "LT") fast.direction = ComparatorOrder::kLessThan;
  if (direction == "LE") fast.direction = ComparatorOrder::kLessEqual;
  if (direction == "GT") fast.direction = ComparatorOrder::kGreaterThan;
  if (direction == "GE") fast.direction = ComparatorOrder::kGreaterEqual;
  fast.total_order = type == "TOTALORDER";
  return fast;
}

RegionFn BodyCall::fn(Interpreter& in) const {
  return program ? element_region_fn(*program) : in.region_fn(*plan);
}

std::optional<ElementProgram> region_program(const Region& body, const Planning& planning) {
  if (!planning.passes.region_bodies) return std::nullopt;
  return compile_element_program(body);
}

BodyCall body_call(const Region& body, const Planning& planning, bool recognise) {
  BodyCall call;
  call.fast = recognise ? recognise_body(body) : FastBody::kNone;
  if (call.fast == FastBody::kNone) call.program = region_program(body, planning);
  call.plan = &planning.plan.region(body);
  return call;
}

}  // namespace ndbuf::program
