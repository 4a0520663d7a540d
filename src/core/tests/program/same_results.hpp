// The check the optimisation tests share: two runs of one program (optimised and plain) give
// the same results, byte for byte.
#pragma once

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "ndbuf/memory/tensor.hpp"
#include "ndbuf/memory/transfer.hpp"

namespace ndbuf::program::testing {

// Expects as many results, each of one dtype and shape and with the same bytes read row-major;
// `runs` names the two runs in a failure ("fused and unfused").
inline void expect_same_results(const std::vector<Tensor>& a, const std::vector<Tensor>& b,
                                const std::string& runs) {
  ASSERT_EQ(a.size(), b.size()) << runs;
  for (size_t k = 0; k < a.size(); ++k) {
    EXPECT_EQ(a[k].dtype(), b[k].dtype()) << "result " << k << ", " << runs;
    ASSERT_EQ(a[k].shape(), b[k].shape()) << "result " << k << ", " << runs;
    const Tensor x = make_dense(a[k], Order::kRowMajor);
    const Tensor y = make_dense(b[k], Order::kRowMajor);
    EXPECT_EQ(0, std::memcmp(x.data(), y.data(), static_cast<size_t>(x.nbytes())))
        << "result " << k << " differs between " << runs;
  }
}

}  // namespace ndbuf::program::testing
