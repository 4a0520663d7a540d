// stablehlo.custom_call. Its builder decodes the op's attributes into a CustomCallSite,
// looks its target up in the registry (ndbuf/program/custom_call.hpp) and binds the kernel
// the target returns. Everything the spec and XLA define about the op is checked here, once,
// at compile time; the target checks what it needs of the types.
#include "ndbuf/program/custom_call.hpp"
#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {
namespace {

std::vector<int64_t> row_major_layout(size_t rank) {
  std::vector<int64_t> layout;
  for (size_t k = rank; k-- > 0;) layout.push_back(static_cast<int64_t>(k));
  return layout;
}

// operand_layouts / result_layouts: a list of 1-d integer dense<...> or [..], each a
// permutation of the dims of its tensor (minor-to-major). Absent: row-major everywhere.
std::vector<std::vector<int64_t>> decode_layouts(const Op& op, const std::string& key,
                                                 const std::vector<TensorType>& types) {
  std::vector<std::vector<int64_t>> layouts;
  const Attribute* attr = find_attr(op.attrs, key);
  if (attr == nullptr) {
    for (const TensorType& t : types) layouts.push_back(row_major_layout(t.shape.size()));
    return layouts;
  }
  if (attr->kind != Attribute::Kind::kList && attr->kind != Attribute::Kind::kArray) {
    op_error(op, "attribute '" + key + "' must be a list of layouts");
  }
  if (attr->items.size() != types.size()) {
    op_error(op, "attribute '" + key + "' has " + std::to_string(attr->items.size()) +
                     " layouts for " + std::to_string(types.size()) + " tensors");
  }
  for (size_t k = 0; k < types.size(); ++k) {
    Op holder;  // reuse the integer-list reader on one item
    holder.name = op.name;
    holder.loc = op.loc;
    holder.attrs.emplace_back(key, attr->items[k]);
    std::vector<int64_t> layout = attr_ints(holder, key);
    const std::string what = "layout " + std::to_string(k + 1) + " of '" + key + "'";
    if (layout.size() != types[k].shape.size()) {
      op_error(op, what + " has " + std::to_string(layout.size()) +
                       " entries for a tensor of rank " + std::to_string(types[k].shape.size()));
    }
    std::vector<bool> seen(layout.size(), false);
    for (int64_t d : layout) {
      if (d < 0 || d >= static_cast<int64_t>(layout.size()) || seen[static_cast<size_t>(d)]) {
        op_error(op, what + " is not a permutation of the dimensions 0 to " +
                         std::to_string(static_cast<int64_t>(layout.size()) - 1));
      }
      seen[static_cast<size_t>(d)] = true;
    }
    layouts.push_back(std::move(layout));
  }
  return layouts;
}

void add_attributes(const Op& op, const Attribute& dict, CustomCallSite& site) {
  for (const auto& [name, value] : dict.fields) {
    CustomCallAttribute a;
    a.name = name;
    switch (value.kind) {
      case Attribute::Kind::kInt:
        a.kind = CustomCallAttribute::Kind::kInt;
        a.integer = value.integer;
        a.number = value.number;
        break;
      case Attribute::Kind::kFloat:
        a.kind = CustomCallAttribute::Kind::kFloat;
        a.number = value.number;
        break;
      case Attribute::Kind::kBool:
        a.kind = CustomCallAttribute::Kind::kBool;
        a.integer = value.flag ? 1 : 0;
        break;
      case Attribute::Kind::kString:
        a.kind = CustomCallAttribute::Kind::kString;
        a.text = value.text;
        break;
      default:
        continue;  // nested dictionaries, lists: not passed on (pjrt_custom_call.h)
    }
    if (site.attribute(name) != nullptr) op_error(op, "has the attribute '" + name + "' twice");
    site.attributes.push_back(std::move(a));
  }
}

void decode_config(const Op& op, CustomCallSite& site) {
  const Attribute* version = find_attr(op.attrs, "api_version");
  if (version != nullptr) {
    if (version->kind != Attribute::Kind::kInt || version->integer < 0 || version->integer > 4) {
      op_error(op, "attribute 'api_version' must be an integer from 0 to 4");
    }
    site.api_version = static_cast<int>(version->integer);
  }
  site.has_side_effect = attr_bool_or(op, "has_side_effect", false);
  const Attribute* config = find_attr(op.attrs, "backend_config");
  if (config != nullptr && config->kind == Attribute::Kind::kString) {
    if (site.api_version == 4 && !config->text.empty()) {
      op_error(op, "backend_config must be a dictionary when api_version is 4");
    }
    site.backend_config = config->text;
  } else if (config != nullptr && config->kind == Attribute::Kind::kStruct) {
    if (site.api_version != 4) {
      op_error(op, "backend_config may be a dictionary only when api_version is 4");
    }
    add_attributes(op, *config, site);
  } else if (config != nullptr) {
    op_error(op, "attribute 'backend_config' must be a string or a dictionary");
  }
  // JAX's exports carry typed-FFI attributes in mhlo.backend_config.
  const Attribute* mhlo = find_attr(op.attrs, "mhlo.backend_config");
  if (mhlo != nullptr && mhlo->kind == Attribute::Kind::kStruct) add_attributes(op, *mhlo, site);
}

// Built-in targets return fresh results, so an output_operand_aliases entry (XLA's leave to
// write a result into an operand's buffer, which JAX gives lapack_*trsm_ffi) changes no value
// for them; a C handler could rely on the aliased memory, so it is refused there.
void refuse_unsupported(const Op& op, bool builtin) {
  for (const char* key : {"called_computations", "output_operand_aliases"}) {
    if (builtin && std::string(key) == "output_operand_aliases") continue;
    const Attribute* attr = find_attr(op.attrs, key);
    if (attr != nullptr && !attr->items.empty()) {
      op_error(op, "attribute '" + std::string(key) + "' is not supported by this runtime");
    }
  }
  if (!op.regions.empty()) op_error(op, "takes no regions");
}

CustomCallSite decode_site(const Op& op) {
  CustomCallSite site;
  const Attribute& name = required_attr(op, "call_target_name");
  if (name.kind != Attribute::Kind::kString && name.kind != Attribute::Kind::kSymbol) {
    op_error(op, "attribute 'call_target_name' must be a string");
  }
  site.target = name.text;
  refuse_unsupported(op, is_builtin_custom_call(site.target));
  for (size_t k = 0; k < op.operand_types.size(); ++k) {
    const Type& t = operand_tensor(op, k);
    site.operands.push_back(TensorType{t.dtype, t.shape});
  }
  for (size_t k = 0; k < op.result_types.size(); ++k) {
    const Type& t = result_tensor(op, k);
    site.results.push_back(TensorType{t.dtype, t.shape});
  }
  site.operand_layouts = decode_layouts(op, "operand_layouts", site.operands);
  site.result_layouts = decode_layouts(op, "result_layouts", site.results);
  decode_config(op, site);
  return site;
}

}  // namespace

// The target decides its result types: the builder checks the op's operands, results and
// attributes against the target when the op is planned, so nothing is determined here.
void custom_call_types(const Op&, const Module&) {}

OpFn build_custom_call(const Op& op, const Planning&) {
  const CustomCallSite site = decode_site(op);
  const CustomCallTarget target = find_custom_call(site.target);
  if (!target) op_error(op, "target " + quote_text(site.target) + " is not registered");
  const CustomCallKernel kernel = [&] {
    try {
      return target(site);
    } catch (const Error& e) {
      if (e.kind() == ErrorKind::kInterrupted || e.kind() == ErrorKind::kOutOfMemory) throw;
      op_error(op, "@" + site.target + ": " + e.what());
    }
  }();
  return [kernel](Interpreter&, const Values& args) { return values_of(kernel(tensors_of(args))); };
}

}  // namespace ndbuf::program
