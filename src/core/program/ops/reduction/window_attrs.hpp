// The window attributes of reduce_window and select_and_scatter (window_dimensions, strides,
// dilations, padding) decoded into the kernels' WindowConfig; the type rules and the builders
// both read them.
#pragma once

#include "program/ir/module.hpp"
#include "program/ops/reduction/reduce_window.hpp"

namespace ndbuf::program {

// Absent strides and dilations are 1, absent padding 0, for an operand of rank `rank`.
WindowConfig window_config(const Op& op, size_t rank);

}  // namespace ndbuf::program
