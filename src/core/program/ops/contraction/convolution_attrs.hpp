// stablehlo.convolution's operands and attributes decoded into the kernel's ConvConfig, with
// the spec's checks of each attribute (errors at the op's line:column).
#pragma once

#include "program/ir/module.hpp"
#include "program/ops/contraction/convolution.hpp"

namespace ndbuf::program {

// Checks two operands of one element type and one result, then decodes the dimension numbers,
// window attributes and group counts. The shapes are checked by convolution_shape().
ConvConfig convolution_config(const Op& op);

}  // namespace ndbuf::program
