// The dimension numbers of dot_general, gather and scatter decoded from their struct
// attributes (#stablehlo.dot / gather / scatter<...>), with the attribute checks at the op's
// line:column. The type rules and the builders both read them.
#pragma once

#include "program/ir/module.hpp"
#include "program/ops/contraction/dot_general.hpp"
#include "program/ops/indexing/gather.hpp"
#include "program/ops/indexing/scatter.hpp"

namespace ndbuf::program {

DotDimensions dot_general_dimensions(const Op& op);
GatherDimensions gather_dimensions(const Op& op);
ScatterDimensions scatter_dimensions(const Op& op);

}  // namespace ndbuf::program
