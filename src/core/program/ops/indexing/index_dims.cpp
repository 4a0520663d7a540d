// Reading the dimension numbers of dot_general, gather and scatter (index_dims.hpp).
#include "program/ops/indexing/index_dims.hpp"

#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "program/ir/attr_access.hpp"

namespace ndbuf::program {
namespace {

const Attribute& struct_attr(const Op& op, const std::string& key) {
  const Attribute& attr = required_attr(op, key);
  if (attr.kind != Attribute::Kind::kStruct) {
    op_error(op, "attribute '" + key + "' must be a structure");
  }
  return attr;
}

// Each listed integer-list field of the struct attribute `attr`, in order, then
// index_vector_dim (0 when absent).
template <class Dims>
Dims read_index_dims(
    const Op& op, const char* attr,
    std::initializer_list<std::pair<const char*, std::vector<int64_t> Dims::*>> lists) {
  const Attribute& s = struct_attr(op, attr);
  Dims dims;
  for (const auto& [field, member] : lists) dims.*member = field_ints(op, s, field);
  const std::vector<int64_t> index_dim = field_ints(op, s, "index_vector_dim");
  dims.index_vector_dim = index_dim.empty() ? 0 : index_dim[0];
  return dims;
}

}  // namespace

DotDimensions dot_general_dimensions(const Op& op) {
  const Attribute& s = struct_attr(op, "dot_dimension_numbers");
  return {field_ints(op, s, "lhs_batching_dimensions"),
          field_ints(op, s, "rhs_batching_dimensions"),
          field_ints(op, s, "lhs_contracting_dimensions"),
          field_ints(op, s, "rhs_contracting_dimensions")};
}

GatherDimensions gather_dimensions(const Op& op) {
  using G = GatherDimensions;
  return read_index_dims<G>(op, "dimension_numbers",
                            {{"offset_dims", &G::offset_dims},
                             {"collapsed_slice_dims", &G::collapsed_slice_dims},
                             {"operand_batching_dims", &G::operand_batching_dims},
                             {"start_indices_batching_dims", &G::start_indices_batching_dims},
                             {"start_index_map", &G::start_index_map}});
}

ScatterDimensions scatter_dimensions(const Op& op) {
  using S = ScatterDimensions;
  return read_index_dims<S>(op, "scatter_dimension_numbers",
                            {{"update_window_dims", &S::update_window_dims},
                             {"inserted_window_dims", &S::inserted_window_dims},
                             {"input_batching_dims", &S::input_batching_dims},
                             {"scatter_indices_batching_dims", &S::scatter_indices_batching_dims},
                             {"scatter_dims_to_operand_dims", &S::scatter_dims_to_operand_dims}});
}

}  // namespace ndbuf::program
