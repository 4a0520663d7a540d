// Binds every op to its builder's run function (the execution plan).
#include <unordered_map>

#include "program/exec/attr_access.hpp"
#include "program/exec/builders.hpp"
#include "program/ir/op_names.hpp"

namespace ndbuf::program {
namespace {

const std::unordered_map<std::string, Builder>& builder_table() {
  static const std::unordered_map<std::string, Builder> table = [] {
    std::unordered_map<std::string, Builder> t;
    for (auto family : {structure_builders, control_builders, check_builders, elementwise_builders,
                        indexing_builders, reduction_builders}) {
      for (const BuilderEntry& entry : family()) t[entry.name] = entry.build;
    }
    return t;
  }();
  return table;
}

void plan_region(Region& region, const Module& module) {
  for (Op& op : region.ops) {
    for (Region& nested : op.regions) plan_region(nested, module);
    if (op.name == "return") continue;
    auto it = builder_table().find(op.name);
    if (it == builder_table().end()) {
      fail_at(op.loc, "op '" + op.name + "' is not supported by this runtime");
    }
    op.run = it->second(op, module);
  }
}

}  // namespace

void plan_module(Module& module) {
  for (Function& fn : module.functions) plan_region(fn.body, module);
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
