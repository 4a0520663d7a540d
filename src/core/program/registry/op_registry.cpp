// The rows of ops.def as OpRow values, and the lookups over them.
#include "program/registry/op_registry.hpp"

#include <algorithm>
#include <cstdlib>
#include <string>
#include <unordered_map>

#include "program/ir/op_names.hpp"

namespace ndbuf::program {
namespace {

OpRow row(std::string_view name, OpId id, OpKind kind, Builder build, TypeRule rule,
          PrettyForm pretty, bool fusible, std::string_view attrs, UnaryOp unary = {},
          BinaryOp binary = {}) {
  return {name, id, kind, build, rule, pretty, fusible, unary, binary, attrs};
}

constexpr PrettyForm kItems = PrettyForm::kItems;

std::vector<OpRow> make_rows() {
  return {
#define NDBUF_OP(name, id, kind, builder, rule, pretty, fusible, attrs) \
  row(name, OpId::id, OpKind::kind, builder, rule, PrettyForm::pretty, fusible, attrs),
#define NDBUF_UNARY(name, e) \
  row(name, OpId::e, OpKind::kUnary, build_unary, unary_types, kItems, true, "", UnaryOp::e),
#define NDBUF_BINARY(name, e)                                                           \
  row(name, OpId::e, OpKind::kBinary, build_binary, binary_types, kItems, true, "", {}, \
      BinaryOp::e),
#define NDBUF_BROADCAST(name, id, e)                                                              \
  row(name, OpId::id, OpKind::kBroadcast, build_broadcast_binary, broadcast_binary_types, kItems, \
      false, "broadcast_dimensions", {}, BinaryOp::e),
#define NDBUF_TERMINATOR(name) \
  row(name, OpId::kReturn, OpKind::kTerminator, nullptr, return_types, kItems, false, ""),
#include "program/registry/ops.def"
  };
}

using NameIndex = std::unordered_map<std::string_view, const OpRow*>;

const NameIndex& name_index() {
  static const NameIndex index = [] {
    NameIndex out;
    for (const OpRow& row : op_rows()) out.emplace(row.name, &row);
    return out;
  }();
  return index;
}

struct StructuredRow {
  std::string_view name;
  StructuredForm form;
};

constexpr StructuredRow kStructured[] = {
#define NDBUF_STRUCTURED_ATTR(name, form) {name, StructuredForm::form},
#include "program/registry/ops.def"
};

}  // namespace

const std::vector<OpRow>& op_rows() {
  static const std::vector<OpRow> rows = [] {
    std::vector<OpRow> made = make_rows();
    for (size_t k = 0; k < made.size(); ++k) {
      if (static_cast<size_t>(made[k].id) != k) std::abort();  // ids follow the table's order
    }
    return made;
  }();
  return rows;
}

const OpRow* find_op(std::string_view name) {
  const NameIndex& index = name_index();
  auto it = index.find(name);
  return it == index.end() ? nullptr : it->second;
}

const OpRow& op_row(OpId id) { return op_rows()[static_cast<size_t>(id)]; }

OpId op_id(const std::string& name) {
  const OpRow* row = find_op(name);
  return row == nullptr ? OpId::kUnknown : row->id;
}

std::vector<AttrName> attr_names(const OpRow& row) {
  std::vector<AttrName> out;
  std::string_view rest = row.attrs;
  while (!rest.empty()) {
    const size_t end = std::min(rest.find(' '), rest.size());
    const std::string_view item = rest.substr(0, end);
    rest.remove_prefix(std::min(end + 1, rest.size()));
    if (item.empty()) continue;
    const size_t colon = item.find(':');
    if (colon == std::string_view::npos) {
      out.push_back({item, item});
    } else {
      out.push_back({item.substr(0, colon), item.substr(colon + 1)});
    }
  }
  return out;
}

std::string_view generic_attr_name(const OpRow& row, std::string_view pretty) {
  if (row.attrs.find(':') == std::string_view::npos) return pretty;  // no renames: no walk
  for (const AttrName& attr : attr_names(row)) {
    if (attr.pretty == pretty) return attr.name;
  }
  return pretty;
}

const std::vector<std::pair<std::string_view, std::string_view>>& op_aliases() {
  static const std::vector<std::pair<std::string_view, std::string_view>> aliases = {
#define NDBUF_ALIAS(alias, canonical) {alias, canonical},
#include "program/registry/ops.def"
  };
  return aliases;
}

const StructuredForm* structured_attr_form(std::string_view name) {
  for (const StructuredRow& row : kStructured) {
    if (row.name == name) return &row.form;
  }
  return nullptr;
}

std::string canonical_op_name(const std::string& name) {
  for (const auto& [alias, canonical] : op_aliases()) {
    if (alias == name) return std::string(canonical);
  }
  return name;
}

bool is_supported_op(const std::string& name) { return find_op(name) != nullptr; }

std::vector<std::string> supported_op_names() {
  std::vector<std::string> out;
  for (const OpRow& row : op_rows()) out.emplace_back(row.name);
  return out;
}

std::vector<std::string_view> structured_attr_names() {
  std::vector<std::string_view> out;
  for (const StructuredRow& row : kStructured) out.push_back(row.name);
  return out;
}

}  // namespace ndbuf::program
