// The LAPACK routines the linear-algebra kernels call (the LAPACK library R links,
// $(LAPACK_LIBS)), declared here so the core needs no R header. Only the double and
// double-complex routines are declared: every LAPACK R can be built with (its own included)
// provides them, while the single-precision ones are missing from some; f32 / c64 operands are
// widened, solved, and narrowed back.
#pragma once

#include <complex>
#include <cstddef>

// Fortran conventions as in fortran_blas.hpp: every argument by reference, one hidden size_t
// length per CHARACTER argument at the end.
extern "C" {
using lapack_complex = std::complex<double>;

void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info,
             size_t uplo_length);
void zpotrf_(const char* uplo, const int* n, lapack_complex* a, const int* lda, int* info,
             size_t uplo_length);

void dgetrf_(const int* m, const int* n, double* a, const int* lda, int* ipiv, int* info);
void zgetrf_(const int* m, const int* n, lapack_complex* a, const int* lda, int* ipiv, int* info);

void dgeqrf_(const int* m, const int* n, double* a, const int* lda, double* tau, double* work,
             const int* lwork, int* info);
void zgeqrf_(const int* m, const int* n, lapack_complex* a, const int* lda, lapack_complex* tau,
             lapack_complex* work, const int* lwork, int* info);

void dorgqr_(const int* m, const int* n, const int* k, double* a, const int* lda, const double* tau,
             double* work, const int* lwork, int* info);
void zungqr_(const int* m, const int* n, const int* k, lapack_complex* a, const int* lda,
             const lapack_complex* tau, lapack_complex* work, const int* lwork, int* info);

void dgesdd_(const char* jobz, const int* m, const int* n, double* a, const int* lda, double* s,
             double* u, const int* ldu, double* vt, const int* ldvt, double* work, const int* lwork,
             int* iwork, int* info, size_t jobz_length);
void zgesdd_(const char* jobz, const int* m, const int* n, lapack_complex* a, const int* lda,
             double* s, lapack_complex* u, const int* ldu, lapack_complex* vt, const int* ldvt,
             lapack_complex* work, const int* lwork, double* rwork, int* iwork, int* info,
             size_t jobz_length);

void dsyevd_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w,
             double* work, const int* lwork, int* iwork, const int* liwork, int* info,
             size_t jobz_length, size_t uplo_length);
void zheevd_(const char* jobz, const char* uplo, const int* n, lapack_complex* a, const int* lda,
             double* w, lapack_complex* work, const int* lwork, double* rwork, const int* lrwork,
             int* iwork, const int* liwork, int* info, size_t jobz_length, size_t uplo_length);

// General (nonsymmetric) eigen-decomposition, Schur form and Hessenberg reduction.
void dgeev_(const char* jobvl, const char* jobvr, const int* n, double* a, const int* lda,
            double* wr, double* wi, double* vl, const int* ldvl, double* vr, const int* ldvr,
            double* work, const int* lwork, int* info, size_t jobvl_length, size_t jobvr_length);
void zgeev_(const char* jobvl, const char* jobvr, const int* n, lapack_complex* a, const int* lda,
            lapack_complex* w, lapack_complex* vl, const int* ldvl, lapack_complex* vr,
            const int* ldvr, lapack_complex* work, const int* lwork, double* rwork, int* info,
            size_t jobvl_length, size_t jobvr_length);

// `select` is never called with sort = 'N'; bwork is not referenced then either.
void dgees_(const char* jobvs, const char* sort, void* select, const int* n, double* a,
            const int* lda, int* sdim, double* wr, double* wi, double* vs, const int* ldvs,
            double* work, const int* lwork, int* bwork, int* info, size_t jobvs_length,
            size_t sort_length);
void zgees_(const char* jobvs, const char* sort, void* select, const int* n, lapack_complex* a,
            const int* lda, int* sdim, lapack_complex* w, lapack_complex* vs, const int* ldvs,
            lapack_complex* work, const int* lwork, double* rwork, int* bwork, int* info,
            size_t jobvs_length, size_t sort_length);

void dgehrd_(const int* n, const int* ilo, const int* ihi, double* a, const int* lda, double* tau,
             double* work, const int* lwork, int* info);
void zgehrd_(const int* n, const int* ilo, const int* ihi, lapack_complex* a, const int* lda,
             lapack_complex* tau, lapack_complex* work, const int* lwork, int* info);

// Tridiagonal reduction of symmetric / Hermitian matrices, and tridiagonal solves.
void dsytrd_(const char* uplo, const int* n, double* a, const int* lda, double* d, double* e,
             double* tau, double* work, const int* lwork, int* info, size_t uplo_length);
void zhetrd_(const char* uplo, const int* n, lapack_complex* a, const int* lda, double* d,
             double* e, lapack_complex* tau, lapack_complex* work, const int* lwork, int* info,
             size_t uplo_length);

void dgtsv_(const int* n, const int* nrhs, double* dl, double* d, double* du, double* b,
            const int* ldb, int* info);
void zgtsv_(const int* n, const int* nrhs, lapack_complex* dl, lapack_complex* d,
            lapack_complex* du, lapack_complex* b, const int* ldb, int* info);

// Triangular solves are BLAS level 3 (in $(BLAS_LIBS)).
void dtrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m,
            const int* n, const double* alpha, const double* a, const int* lda, double* b,
            const int* ldb, size_t side_length, size_t uplo_length, size_t transa_length,
            size_t diag_length);
void ztrsm_(const char* side, const char* uplo, const char* transa, const char* diag, const int* m,
            const int* n, const lapack_complex* alpha, const lapack_complex* a, const int* lda,
            lapack_complex* b, const int* ldb, size_t side_length, size_t uplo_length,
            size_t transa_length, size_t diag_length);
}
