// The Fortran BLAS matrix products (and matrix-vector products) the core calls (the BLAS library R
// links, $(BLAS_LIBS)), declared here so the core needs no R header.
#pragma once

#include <cstddef>

// Fortran passes every argument by reference; each CHARACTER argument adds a hidden length
// argument at the end (size_t in gfortran 8 and later, the convention R's headers follow).
extern "C" {
void sgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const float* alpha, const float* a, const int* lda, const float* b, const int* ldb,
            const float* beta, float* c, const int* ldc, size_t transa_length,
            size_t transb_length);
void dgemm_(const char* transa, const char* transb, const int* m, const int* n, const int* k,
            const double* alpha, const double* a, const int* lda, const double* b, const int* ldb,
            const double* beta, double* c, const int* ldc, size_t transa_length,
            size_t transb_length);
void sgemv_(const char* trans, const int* m, const int* n, const float* alpha, const float* a,
            const int* lda, const float* x, const int* incx, const float* beta, float* y,
            const int* incy, size_t trans_length);
void dgemv_(const char* trans, const int* m, const int* n, const double* alpha, const double* a,
            const int* lda, const double* x, const int* incx, const double* beta, double* y,
            const int* incy, size_t trans_length);
}
