// Canonicalisation (canonicalise.hpp): one walk per function in program order, resolving each
// operand through the values forwarded so far, shortening chains, forwarding identities and
// merging equal pure ops (a scoped table: an op may reuse one of its region or of an enclosing
// region that came before it); then one backward walk removing dead pure ops (and
// reductions, sorts, scatters, maps and conditionals whose bodies are pure).
#include "program/passes/canonicalise.hpp"

#include <numeric>
#include <unordered_map>
#include <utility>

#include "ndbuf/memory/parallel.hpp"
#include "program/passes/op_key.hpp"
#include "program/passes/value_uses.hpp"
#include "program/registry/op_registry.hpp"

namespace ndbuf::program {
namespace {

bool is_pure(const Op& op) {
  if (!op.regions.empty() || op.id == OpId::kUnknown || op.id == OpId::kOptimizationBarrier) {
    return false;
  }
  switch (op_row(op.id).kind) {
    case OpKind::kStructure:
    case OpKind::kUnary:
    case OpKind::kBinary:
    case OpKind::kCompare:
    case OpKind::kElementwise:
    case OpKind::kBroadcast:
    case OpKind::kContraction:
    case OpKind::kIndexing:  // gather and top_k: sort and scatter have regions
    case OpKind::kFft:
      return true;
    default:
      return false;
  }
}

// Whether an op nothing reads may go: a pure op, or a reduction, scatter, sort, map, if or case
// whose bodies hold only such ops. A while loop stays (it might never end), and so does
// anything whose body reaches beyond its results (collectives, custom calls, checks).
bool is_removable(const Op& op) {
  if (op.regions.empty()) return is_pure(op);
  switch (op.id) {
    case OpId::kReduce:
    case OpId::kReduceWindow:
    case OpId::kSelectAndScatter:
    case OpId::kScatter:
    case OpId::kSort:
    case OpId::kMap:
    case OpId::kIf:
    case OpId::kCase:
      break;
    default:
      return false;
  }
  for (const Region& region : op.regions) {
    for (const Op& inner : region.ops) {
      // An op the table does not know (kept for the verifier to name) has no row to read.
      if (inner.id == OpId::kUnknown) return false;
      if (op_row(inner.id).kind != OpKind::kTerminator && !is_removable(inner)) return false;
    }
  }
  return true;
}

// The integers of an `array<i64: ...>` attribute, or nullptr (absent or spelled otherwise).
const std::vector<int64_t>* int_list(const Op& op, const char* key) {
  const Attribute* attr = find_attr(op.attrs, key);
  return attr != nullptr && attr->kind == Attribute::Kind::kArray ? &attr->ints : nullptr;
}

void set_int_list(Op& op, const char* key, std::vector<int64_t> ints) {
  Attribute attr = *find_attr(op.attrs, key);
  attr.ints = std::move(ints);
  set_attr(op.attrs, key, std::move(attr));
}

bool is_identity(const std::vector<int64_t>& dims) {
  for (size_t k = 0; k < dims.size(); ++k) {
    if (dims[k] != static_cast<int64_t>(k)) return false;
  }
  return true;
}

class Canonicaliser {
 public:
  Canonicaliser(Function& fn, CanonicaliseCounts& counts)
      : fn_(fn),
        counts_(counts),
        forward_(static_cast<size_t>(fn.num_values)),
        producer_(static_cast<size_t>(fn.num_values), nullptr) {
    std::iota(forward_.begin(), forward_.end(), 0);
  }

  void run() {
    walk(fn_.body);
    std::vector<int> uses(forward_.size(), 0);
    count_uses(fn_.body, uses);
    remove_dead(fn_.body, uses);
  }

 private:
  void walk(Region& region) {
    const size_t scope = merged_log_.size();
    for (Op& op : region.ops) {
      if ((++visited_ & 0xFFF) == 0) check_interrupt();
      for (int& operand : op.operands) operand = forward_[static_cast<size_t>(operand)];
      for (Region& nested : op.regions) walk(nested);
      if (is_pure(op) && !simplify(op)) merge(op);
      for (int result : op.results) {
        if (forward_[static_cast<size_t>(result)] == result)
          producer_[static_cast<size_t>(result)] = &op;
      }
    }
    while (merged_log_.size() > scope) {
      forget(merged_log_.back());
      merged_log_.pop_back();
    }
  }

  // The op that made `value` when it is an `id` op, else nullptr.
  const Op* made_by(int value, OpId id) const {
    const Op* op = producer_[static_cast<size_t>(value)];
    return op != nullptr && op->id == id ? op : nullptr;
  }

  // `op` now reads `from`'s operand in place of `from`'s result.
  static void read_through(Op& op, const Op& from) {
    op.operands[0] = from.operands[0];
    op.operand_types[0] = from.operand_types[0];
  }

  // Shortens a chain ending in `op`; true when `op` then forwards its operand.
  bool simplify(Op& op) {
    if (op.operands.size() != 1 || op.results.size() != 1) return false;
    switch (op.id) {
      case OpId::kTranspose:
        return simplify_chain(op, "permutation", compose_permutations);
      case OpId::kReshape:
        if (const Op* inner = made_by(op.operands[0], OpId::kReshape)) {
          read_through(op, *inner);
          ++counts_.rewritten;
        }
        return forward_if_same_type(op, true);
      case OpId::kBroadcastInDim:
        return simplify_chain(op, "broadcast_dimensions", compose_broadcasts);
      case OpId::kConvert:
        return forward_if_same_type(op, true);
      default:
        return false;
    }
  }

  // Reads through an inner op of `op`'s kind whose `key` list composes with `op`'s as
  // `compose(inner, outer)`; true when what is left is the identity and forwards.
  template <class Compose>
  bool simplify_chain(Op& op, const char* key, Compose compose) {
    const std::vector<int64_t>* outer = int_list(op, key);
    if (outer == nullptr) return false;
    if (const Op* inner = made_by(op.operands[0], op.id)) {
      if (const std::vector<int64_t>* first = int_list(*inner, key)) {
        std::vector<int64_t> composed = compose(*first, *outer);
        read_through(op, *inner);
        set_int_list(op, key, std::move(composed));
        outer = int_list(op, key);
        ++counts_.rewritten;
      }
    }
    return forward_if_same_type(op, is_identity(*outer));
  }

  // Result dim k of the outer transpose is its operand's dim outer[k], the inner one's
  // operand's dim first[outer[k]].
  static std::vector<int64_t> compose_permutations(const std::vector<int64_t>& first,
                                                   const std::vector<int64_t>& outer) {
    std::vector<int64_t> composed(outer.size());
    for (size_t k = 0; k < composed.size(); ++k) {
      composed[k] = first[static_cast<size_t>(outer[k])];
    }
    return composed;
  }

  // Operand dim k of the inner broadcast lands on its result's dim first[k], then on the
  // outer result's dim outer[first[k]].
  static std::vector<int64_t> compose_broadcasts(const std::vector<int64_t>& first,
                                                 const std::vector<int64_t>& outer) {
    std::vector<int64_t> composed(first.size());
    for (size_t k = 0; k < composed.size(); ++k) {
      composed[k] = outer[static_cast<size_t>(first[k])];
    }
    return composed;
  }

  // Forwards `op`'s operand when `identity` holds and the types agree.
  bool forward_if_same_type(const Op& op, bool identity) {
    const int operand = op.operands[0];
    if (!identity || fn_.value_types[static_cast<size_t>(operand)] != op.result_types[0]) {
      return false;
    }
    forward_[static_cast<size_t>(op.results[0])] = operand;
    ++counts_.forwarded;
    return true;
  }

  void merge(const Op& op) {
    const std::optional<size_t> hash = op_hash(op);
    if (!hash) return;
    auto [begin, end] = seen_.equal_range(*hash);
    for (auto it = begin; it != end; ++it) {
      if (!equal_ops(*it->second, op)) continue;
      for (size_t k = 0; k < op.results.size(); ++k) {
        forward_[static_cast<size_t>(op.results[k])] = it->second->results[k];
      }
      ++counts_.merged;
      return;
    }
    seen_.emplace(*hash, &op);
    merged_log_.emplace_back(*hash, &op);
  }

  void forget(const std::pair<size_t, const Op*>& entry) {
    auto [begin, end] = seen_.equal_range(entry.first);
    for (auto it = begin; it != end; ++it) {
      if (it->second == entry.second) {
        seen_.erase(it);
        return;
      }
    }
  }

  // Backwards, so that a dead op's operands may die with it.
  void remove_dead(Region& region, std::vector<int>& uses) {
    std::vector<bool> dead(region.ops.size(), false);
    for (size_t k = region.ops.size(); k-- > 0;) {
      Op& op = region.ops[k];
      for (auto nested = op.regions.rbegin(); nested != op.regions.rend(); ++nested) {
        remove_dead(*nested, uses);
      }
      if (!is_removable(op)) continue;
      bool used = false;
      for (int result : op.results) used = used || uses[static_cast<size_t>(result)] > 0;
      if (used) continue;
      dead[k] = true;
      for (int operand : op.operands) --uses[static_cast<size_t>(operand)];
      ++counts_.removed;
    }
    size_t kept = 0;
    for (size_t k = 0; k < region.ops.size(); ++k) {
      if (!dead[k]) {
        if (kept != k) region.ops[kept] = std::move(region.ops[k]);
        ++kept;
      }
    }
    region.ops.resize(kept);
  }

  Function& fn_;
  CanonicaliseCounts& counts_;
  std::vector<int> forward_;         // [value] -> the value that replaces it (itself if none)
  std::vector<const Op*> producer_;  // [value] -> its op, while the walk runs
  std::unordered_multimap<size_t, const Op*> seen_;
  std::vector<std::pair<size_t, const Op*>> merged_log_;  // seen_'s entries, innermost last
  int64_t visited_ = 0;
};

}  // namespace

CanonicaliseCounts canonicalise(Module& module) {
  CanonicaliseCounts counts;
  for (Function& fn : module.functions) {
    if (fn.has_body) Canonicaliser(fn, counts).run();
  }
  return counts;
}

}  // namespace ndbuf::program
