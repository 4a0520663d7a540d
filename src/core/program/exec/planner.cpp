// Binds every op to its builder's run function (the execution plan).
#include <unordered_map>

#include "ndbuf/memory/parallel.hpp"
#include "program/exec/attr_access.hpp"
#include "program/exec/builders.hpp"
#include "program/exec/fusion.hpp"
#include "program/registry/op_registry.hpp"

namespace ndbuf::program {
namespace {

// Every value an op reads, its nested regions included.
void collect_uses(const Op& op, std::vector<int>& uses) {
  uses.insert(uses.end(), op.operands.begin(), op.operands.end());
  for (const Region& nested : op.regions) {
    for (const Op& inner : nested.ops) collect_uses(inner, uses);
  }
}

// Marks, for each value defined in `region`, the op after which it is no longer read, so the
// interpreter frees intermediates as soon as possible (peak memory stays near the live set).
void plan_releases(Region& region) {
  std::unordered_map<int, size_t> last_use;
  std::vector<int> uses;
  for (size_t k = 0; k < region.ops.size(); ++k) {
    if (region.ops[k].absorbed) continue;
    uses.clear();
    collect_uses(region.ops[k], uses);
    for (int id : uses) last_use[id] = k;
  }
  std::unordered_map<int, bool> local;
  for (int id : region.args) local[id] = true;
  for (const Op& op : region.ops) {
    for (int id : op.results) local[id] = true;
  }
  for (const auto& [id, k] : last_use) {
    if (local.count(id) > 0 && region.ops[k].name != "return") region.ops[k].release.push_back(id);
  }
}

void plan_region(Region& region, const Module& module, bool fuse) {
  for (size_t k = 0; k < region.ops.size(); ++k) {
    Op& op = region.ops[k];
    if ((k & 0xFFF) == 0xFFF) check_interrupt();  // builders may check large attributes
    for (Region& nested : op.regions) plan_region(nested, module, fuse);
    if (op.name == "return") continue;
    const OpRow* row = find_op(op.name);
    if (row == nullptr || row->build == nullptr) {
      fail_at(op.loc, "op '" + op.name + "' is not supported by this runtime");
    }
    op.run = row->build(op, module);
  }
  if (fuse) fuse_elementwise(region);
  plan_releases(region);
}

}  // namespace

void plan_module(Module& module, bool fuse) {
  for (Function& fn : module.functions) plan_region(fn.body, module, fuse);
}

int64_t scalar_index(const Tensor& t) {
  return dispatch(t.dtype(), [&](auto tag) -> int64_t {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_integral_v<T>) {
      const T value = *static_cast<const T*>(t.data());
      if constexpr (std::is_unsigned_v<T> && sizeof(T) == 8) {
        return value > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(value);
      } else {
        return static_cast<int64_t>(value);
      }
    } else {
      fail(ErrorKind::kInvalidArgument, "an index must be an integer tensor");
    }
  });
}

}  // namespace ndbuf::program
