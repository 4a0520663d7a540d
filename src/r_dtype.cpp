// The dtype table for the R layer: every fact R needs about a dtype, read from the core.
#include <cpp11.hpp>

#include "ndbuf/base/dtype.hpp"
#include "ndbuf/convert/convert.hpp"

namespace {

const char* r_type_name(ndbuf::RVectorType type) {
  switch (type) {
    case ndbuf::RVectorType::kLogical:
      return "logical";
    case ndbuf::RVectorType::kInteger:
      return "integer";
    case ndbuf::RVectorType::kDouble:
      return "double";
    case ndbuf::RVectorType::kComplex:
      return "complex";
    case ndbuf::RVectorType::kInteger64:
      break;
  }
  return "integer64";
}

cpp11::writable::strings alias_targets() {
  cpp11::writable::strings targets(static_cast<R_xlen_t>(ndbuf::kDTypeAliases.size()));
  cpp11::writable::strings spellings(static_cast<R_xlen_t>(ndbuf::kDTypeAliases.size()));
  for (size_t k = 0; k < ndbuf::kDTypeAliases.size(); ++k) {
    const ndbuf::DTypeAlias& alias = ndbuf::kDTypeAliases[k];
    targets[k] = std::string(ndbuf::dtype_name(alias.dtype));
    spellings[k] = std::string(alias.spelling);
  }
  targets.names() = spellings;
  return targets;
}

}  // namespace

// One row per dtype: its name, R type (what as_array() returns), whether R vectors of that
// type share their memory with the buffer, and its HDataType name (NA for none); plus the
// aliases as a named character vector (spelling = name).
[[cpp11::register]] cpp11::list ffi_dtype_table() {
  const auto n = static_cast<R_xlen_t>(ndbuf::kNumDTypes);
  cpp11::writable::strings name(n), r_type(n), harray(n);
  cpp11::writable::logicals zero_copy(n);
  for (size_t k = 0; k < ndbuf::kNumDTypes; ++k) {
    const ndbuf::DTypeInfo& info = ndbuf::kDTypeTable[k];
    const ndbuf::RVectorType type = ndbuf::r_vector_type_for(info.dtype);
    name[k] = std::string(info.name);
    r_type[k] = r_type_name(type);
    zero_copy[k] = ndbuf::is_zero_copy(type, info.dtype) ? TRUE : FALSE;
    harray[k] = info.harray.empty() ? cpp11::r_string(NA_STRING)
                                    : cpp11::r_string(std::string(info.harray));
  }
  using cpp11::literals::operator""_nm;
  return cpp11::writable::list({"name"_nm = name, "r_type"_nm = r_type, "zero_copy"_nm = zero_copy,
                                "harray"_nm = harray, "aliases"_nm = alias_targets()});
}
