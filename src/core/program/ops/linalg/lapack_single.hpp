// The single-precision LAPACK and BLAS routines the triangular kernels use where the linked
// libraries have them (OpenBLAS, a reference LAPACK): spotrf / cpotrf and strsm / ctrsm, found
// at run time in the library that holds dpotrf_ (dtrsm_ for the BLAS ones), since R's own
// LAPACK has only the double-precision routines. A missing one is nullptr: the kernels then
// widen to double as before.
#pragma once

#include <complex>
#include <cstddef>

namespace ndbuf::program {

using SpotrfFn = void (*)(const char* uplo, const int* n, float* a, const int* lda, int* info,
                          size_t uplo_length);
using CpotrfFn = void (*)(const char* uplo, const int* n, std::complex<float>* a, const int* lda,
                          int* info, size_t uplo_length);
using StrsmFn = void (*)(const char* side, const char* uplo, const char* transa, const char* diag,
                         const int* m, const int* n, const float* alpha, const float* a,
                         const int* lda, float* b, const int* ldb, size_t, size_t, size_t, size_t);
using CtrsmFn = void (*)(const char* side, const char* uplo, const char* transa, const char* diag,
                         const int* m, const int* n, const std::complex<float>* alpha,
                         const std::complex<float>* a, const int* lda, std::complex<float>* b,
                         const int* ldb, size_t, size_t, size_t, size_t);

struct SinglePrecisionLapack {
  SpotrfFn spotrf = nullptr;
  CpotrfFn cpotrf = nullptr;
  StrsmFn strsm = nullptr;
  CtrsmFn ctrsm = nullptr;
};

// The routines found (looked up once), or none while switched off for tests.
const SinglePrecisionLapack& single_precision_lapack();
// Tests compare the single-precision routines with the widening fallback.
void use_single_precision_lapack(bool enabled);

}  // namespace ndbuf::program
