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

std::vector<Tensor> tensors_of(const Values& values) {
  return tensors_of(values, 0, values.size());
}

std::vector<Tensor> tensors_of(const Values& values, size_t first, size_t count) {
  std::vector<Tensor> out;
  out.reserve(count);
  for (size_t k = first; k < first + count; ++k) out.push_back(values[k].get());
  return out;
}

Values one_value(Tensor tensor) {
  Values out;
  out.reserve(1);
  out.emplace_back(std::move(tensor));
  return out;
}

Values values_of(std::vector<Tensor> tensors) {
  Values out;
  out.reserve(tensors.size());
  for (Tensor& t : tensors) out.emplace_back(std::move(t));
  return out;
}

}  // namespace ndbuf::program
