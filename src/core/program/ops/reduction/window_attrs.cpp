// Window attributes, read with the attribute readers' errors (attr_access.hpp).
#include "program/ops/reduction/window_attrs.hpp"

#include "program/ir/attr_access.hpp"

namespace ndbuf::program {

WindowConfig window_config(const Op& op, size_t rank) {
  WindowConfig w;
  w.window_dimensions = attr_ints(op, "window_dimensions");
  w.window_strides = attr_ints_or(op, "window_strides", std::vector<int64_t>(rank, 1));
  w.base_dilations = attr_ints_or(op, "base_dilations", std::vector<int64_t>(rank, 1));
  w.window_dilations = attr_ints_or(op, "window_dilations", std::vector<int64_t>(rank, 1));
  w.padding = attr_padding(op, "padding", rank);
  return w;
}

}  // namespace ndbuf::program
