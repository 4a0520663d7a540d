// The name-keyed table of type rules, assembled from the families once.
#include "program/verify/type_rules.hpp"

#include <unordered_map>

namespace ndbuf::program {
namespace {

const std::unordered_map<std::string, TypeRule>& rule_table() {
  static const std::unordered_map<std::string, TypeRule> table = [] {
    std::unordered_map<std::string, TypeRule> out;
    for (auto family :
         {structure_type_rules, elementwise_type_rules, chlo_type_rules, indexing_type_rules,
          convolution_type_rules, reduction_type_rules, control_type_rules, linalg_type_rules}) {
      for (const TypeRuleEntry& entry : family()) out.emplace(entry.name, entry.rule);
    }
    return out;
  }();
  return table;
}

}  // namespace

TypeRule find_type_rule(const std::string& name) {
  const auto& table = rule_table();
  auto it = table.find(name);
  return it == table.end() ? nullptr : it->second;
}

}  // namespace ndbuf::program
