// Transpose sinking (sink_transposes.hpp): per region, inner regions first, each transpose
// whose operand an element-wise op of the same region makes for it alone is moved onto that
// op's operands, until none moves. Each move puts transposes earlier in the region, so the
// rewriting ends; the region is searched again from its start after each move (regions with
// no transpose are not searched at all).
#include "program/passes/sink_transposes.hpp"

#include <unordered_map>
#include <utility>
#include <vector>

#include "ndbuf/base/dtype.hpp"
#include "ndbuf/base/shape.hpp"
#include "program/ir/attr_access.hpp"
#include "program/passes/value_uses.hpp"
#include "program/registry/op_registry.hpp"

namespace ndbuf::program {
namespace {

bool is_elementwise(const Op& op) {
  if (!op.regions.empty() || op.id == OpId::kUnknown || op.id == OpId::kBitcastConvert) {
    return false;
  }
  switch (op_row(op.id).kind) {
    case OpKind::kUnary:
    case OpKind::kBinary:
    case OpKind::kCompare:
    case OpKind::kElementwise:
      return true;
    default:
      return false;
  }
}

// The parser has checked that every declared tensor's bytes fit int64: this never throws.
int64_t tensor_bytes(const Type& type) {
  return checked_nbytes(checked_numel(type.shape), itemsize(type.dtype));
}

// Whether `transpose` may move onto the operands of `producer`, the op making its operand:
// an element-wise op whose one result only the transpose reads, whose operands all have its
// result's shape (or are scalars, which need no transpose), small enough to read strided.
bool sinkable(const Op& producer, const Op& transpose, const std::vector<int>& uses) {
  if (!is_elementwise(producer) || producer.results.size() != 1 ||
      uses[static_cast<size_t>(producer.results[0])] != 1 || transpose.result_types.size() != 1 ||
      !transpose.result_types[0].is_tensor() ||
      tensor_bytes(transpose.result_types[0]) > kSinkableBytes) {
    return false;
  }
  const Type& made = producer.result_types[0];
  for (const Type& operand : producer.operand_types) {
    if (!operand.is_tensor() || (!operand.shape.empty() && operand.shape != made.shape)) {
      return false;
    }
  }
  return true;
}

class Sinker {
 public:
  explicit Sinker(Function& fn) : fn_(fn), uses_(value_uses(fn)) {}

  int run() {
    sink_in(fn_.body);
    return moved_;
  }

 private:
  void sink_in(Region& region) {
    bool any_transpose = false;
    for (Op& op : region.ops) {
      for (Region& nested : op.regions) sink_in(nested);
      any_transpose = any_transpose || op.id == OpId::kTranspose;
    }
    while (any_transpose && move_one(region)) ++moved_;
  }

  // Moves the first transpose that can move; false when none can.
  bool move_one(Region& region) {
    std::unordered_map<int, size_t> made_at;
    for (size_t k = 0; k < region.ops.size(); ++k) {
      const Op& op = region.ops[k];
      if (op.id == OpId::kTranspose && op.operands.size() == 1) {
        const auto producer = made_at.find(op.operands[0]);
        if (producer != made_at.end() && sinkable(region.ops[producer->second], op, uses_)) {
          move(region, producer->second, k);
          return true;
        }
      }
      for (const int result : op.results) made_at[result] = k;
    }
    return false;
  }

  // The producer at `at` now reads transposes of its operands (inserted right before it) and
  // makes the transpose's result; the transpose at `transpose_at` goes.
  void move(Region& region, size_t at, size_t transpose_at) {
    Op transpose = std::move(region.ops[transpose_at]);
    region.ops.erase(region.ops.begin() + static_cast<std::ptrdiff_t>(transpose_at));
    Op& producer = region.ops[at];
    std::vector<Op> inserted;
    for (size_t j = 0; j < producer.operands.size(); ++j) {
      if (producer.operand_types[j].shape.empty()) continue;  // a scalar reads the same
      inserted.push_back(transposed(transpose, producer.operands[j], producer.operand_types[j]));
      producer.operands[j] = inserted.back().results[0];
      producer.operand_types[j] = inserted.back().result_types[0];
    }
    uses_[static_cast<size_t>(producer.results[0])] = 0;
    producer.results[0] = transpose.results[0];
    producer.result_types[0] = transpose.result_types[0];
    region.ops.insert(region.ops.begin() + static_cast<std::ptrdiff_t>(at),
                      std::make_move_iterator(inserted.begin()),
                      std::make_move_iterator(inserted.end()));
  }

  // A copy of `model` (its permutation and location) reading `operand`, making a new value.
  Op transposed(const Op& model, int operand, const Type& operand_type) {
    const std::vector<int64_t> order = attr_ints(model, "permutation");  // verified
    Type type = operand_type;
    for (size_t k = 0; k < order.size(); ++k) {
      type.shape[k] = operand_type.shape[static_cast<size_t>(order[k])];
    }
    Op op;
    op.name = model.name;
    op.id = model.id;
    op.loc = model.loc;
    op.attrs = model.attrs;
    op.operands = {operand};
    op.operand_types = {operand_type};
    op.results = {fn_.num_values++};
    op.result_types = {type};
    fn_.value_types.push_back(type);
    uses_.push_back(1);
    return op;
  }

  Function& fn_;
  std::vector<int> uses_;  // [value] -> how many operands read it, nested regions included
  int moved_ = 0;
};

}  // namespace

int sink_transposes(Module& module) {
  int moved = 0;
  for (Function& fn : module.functions) {
    if (fn.has_body) moved += Sinker(fn).run();
  }
  return moved;
}

}  // namespace ndbuf::program
