// Look-ups over the IR.
#include "program/ir/module.hpp"

namespace ndbuf::program {

const Attribute* Attribute::field(const std::string& key) const {
  for (const auto& [k, v] : fields) {
    if (k == key) return &v;
  }
  return nullptr;
}

const Attribute* find_attr(const AttrDict& attrs, const std::string& key) {
  for (const auto& [k, v] : attrs) {
    if (k == key) return &v;
  }
  return nullptr;
}

void set_attr(AttrDict& attrs, const std::string& key, Attribute value) {
  for (auto& [k, v] : attrs) {
    if (k == key) {
      v = std::move(value);
      return;
    }
  }
  attrs.emplace_back(key, std::move(value));
}

const Function* Module::find(const std::string& name) const {
  auto it = by_name.find(name);
  return it == by_name.end() ? nullptr : &functions[it->second];
}

const Tensor& Value::get() const {
  if (!tensor) fail(ErrorKind::kInvalidArgument, "a tuple value was used where a tensor is needed");
  return *tensor;
}

}  // namespace ndbuf::program
