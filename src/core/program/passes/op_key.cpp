// Op equality and hashing for common subexpressions (op_key.hpp).
#include "program/passes/op_key.hpp"

#include <cstring>
#include <functional>
#include <string_view>

namespace ndbuf::program {
namespace {

// Constants larger than this are compared by identity only.
constexpr int64_t kMaxKeyedConstantBytes = 4096;

void mix(size_t& seed, size_t value) {
  seed ^= value + 0x9e3779b97f4a7c15ULL + (seed << 6) + (seed >> 2);
}

bool dense_bytes_keyed(const Tensor& t) {
  return t.nbytes() <= kMaxKeyedConstantBytes && is_host(t.device()) &&
         t.is_contiguous(Order::kRowMajor);
}

std::string_view bytes_of(const Tensor& t) {
  return {static_cast<const char*>(t.data()), static_cast<size_t>(t.nbytes())};
}

bool equal_dense(const std::shared_ptr<const Tensor>& a, const std::shared_ptr<const Tensor>& b) {
  if (a == b) return true;
  if (!a || !b || !dense_bytes_keyed(*a) || !dense_bytes_keyed(*b)) return false;
  return a->dtype() == b->dtype() && a->shape() == b->shape() && bytes_of(*a) == bytes_of(*b);
}

bool equal_attrs(const AttrDict& a, const AttrDict& b);

bool equal_attribute(const Attribute& a, const Attribute& b) {
  if (a.kind != b.kind || a.integer != b.integer || a.flag != b.flag || a.text != b.text ||
      a.name != b.name || a.ints != b.ints || a.items.size() != b.items.size() ||
      std::memcmp(&a.number, &b.number, sizeof a.number) != 0 ||
      (!a.dense && !b.dense && a.literal != b.literal) || !(a.type == b.type) ||
      !equal_attrs(a.fields, b.fields) || !equal_dense(a.dense, b.dense)) {
    return false;
  }
  for (size_t k = 0; k < a.items.size(); ++k) {
    if (!equal_attribute(a.items[k], b.items[k])) return false;
  }
  return true;
}

bool equal_attrs(const AttrDict& a, const AttrDict& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k) {
    if (a[k].first != b[k].first || !equal_attribute(a[k].second, b[k].second)) return false;
  }
  return true;
}

// False when the attribute holds something not keyed (a large or unmaterialised constant).
bool hash_attribute(const Attribute& a, size_t& seed) {
  mix(seed, static_cast<size_t>(a.kind));
  mix(seed, std::hash<int64_t>{}(a.integer));
  mix(seed, std::hash<std::string>{}(a.text));
  for (int64_t v : a.ints) mix(seed, std::hash<int64_t>{}(v));
  if (a.literal && !a.dense) return false;  // not materialised: compared by identity only
  if (a.dense) {
    if (!dense_bytes_keyed(*a.dense)) return false;
    mix(seed, std::hash<std::string_view>{}(bytes_of(*a.dense)));
  }
  for (const Attribute& item : a.items) {
    if (!hash_attribute(item, seed)) return false;
  }
  for (const auto& [key, field] : a.fields) {
    mix(seed, std::hash<std::string>{}(key));
    if (!hash_attribute(field, seed)) return false;
  }
  return true;
}

}  // namespace

std::optional<size_t> op_hash(const Op& op) {
  size_t seed = static_cast<size_t>(op.id);
  for (int operand : op.operands) mix(seed, std::hash<int>{}(operand));
  for (const Type& type : op.result_types) {
    mix(seed, static_cast<size_t>(type.dtype));
    for (int64_t d : type.shape) mix(seed, std::hash<int64_t>{}(d));
  }
  for (const auto& [key, attr] : op.attrs) {
    mix(seed, std::hash<std::string>{}(key));
    if (!hash_attribute(attr, seed)) return std::nullopt;
  }
  return seed;
}

bool equal_ops(const Op& a, const Op& b) {
  return a.id == b.id && a.operands == b.operands && a.result_types == b.result_types &&
         a.results.size() == b.results.size() && equal_attrs(a.attrs, b.attrs);
}

}  // namespace ndbuf::program
