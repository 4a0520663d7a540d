// Run-time check of op results against their declared types (result_check.hpp).
#include "program/exec/result_check.hpp"

#include <string>

namespace ndbuf::program {
namespace {

bool matches(const Type& type, const Value& value) {
  switch (type.kind) {
    case Type::Kind::kTensor:
      return value.tensor && value.tensor->dtype() == type.dtype &&
             value.tensor->shape() == type.shape;
    case Type::Kind::kTuple:
      if (!value.tuple || value.tuple->size() != type.elements.size()) return false;
      for (size_t k = 0; k < type.elements.size(); ++k) {
        if (!matches(type.elements[k], (*value.tuple)[k])) return false;
      }
      return true;
    case Type::Kind::kToken:
      return true;
  }
  return false;
}

std::string describe(const Value& value) {
  if (value.tensor) {
    return type_to_string(Type::tensor(value.tensor->dtype(), value.tensor->shape()));
  }
  if (value.tuple) return "a " + std::to_string(value.tuple->size()) + "-element tuple";
  return "no value";
}

[[noreturn]] void internal_error(const Op& op, const std::string& what) {
  fail_at(op.loc, "internal error: '" + op.name + "' " + what +
                      "; this is a bug in the runtime, please report it");
}

}  // namespace

void check_op_results(const Op& op, const Values& results) {
  if (results.size() != op.results.size()) {
    internal_error(op, "gave " + std::to_string(results.size()) + " results where it declares " +
                           std::to_string(op.results.size()));
  }
  for (size_t k = 0; k < results.size(); ++k) {
    if (!matches(op.result_types[k], results[k])) {
      internal_error(op, "gave " + describe(results[k]) + " for result " + std::to_string(k + 1) +
                             ", which is declared " + type_to_string(op.result_types[k]));
    }
  }
}

}  // namespace ndbuf::program
