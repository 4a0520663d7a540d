// Attributes the passes (program/passes/) set on ops for their kernels to read: how a rewritten
// op must behave. Their names start with "ndbuf.", which no StableHLO producer writes.
#pragma once

namespace ndbuf::program {

// On a stablehlo.cholesky that now makes its masked factor (passes/mask_factors.hpp): a failed
// factorisation gives NaN in the factor's triangle and zeros in the other, as the mask did.
inline constexpr const char* kMaskedFactorAttr = "ndbuf.masked_factor";

}  // namespace ndbuf::program
