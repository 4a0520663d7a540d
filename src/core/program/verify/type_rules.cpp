// An op's type rule is a column of its row in the op table.
#include "program/verify/type_rules.hpp"

#include "program/registry/op_registry.hpp"

namespace ndbuf::program {

TypeRule find_type_rule(const std::string& name) {
  const OpRow* row = find_op(name);
  return row == nullptr ? nullptr : row->rule;
}

}  // namespace ndbuf::program
