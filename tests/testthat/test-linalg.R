# The built-in linear-algebra custom calls (geqrf, orgqr, lu, svd, eigh and JAX's lapack_*_ffi
# targets) against base R's qr(), svd(), eigen(), chol(), forwardsolve(), backsolve() and an LU
# reconstruction done in R.

linalg_run <- function(target, x, dtype, results, operands = NULL) {
  type <- function(shape, dt = dtype) {
    paste0("tensor<", paste(c(shape, mlir_dtype(dt)), collapse = "x"), ">")
  }
  in_type <- type(dim(x))
  out_types <- vapply(results, function(r) type(r$shape, r$dtype %||% dtype), "")
  names <- paste0("%0#", seq_along(results) - 1L)
  src <- paste0(
    "func.func @main(%a: ", in_type, ") -> (", paste(out_types, collapse = ", "), ") {\n",
    "  %0:", length(results), " = stablehlo.custom_call @", target, "(%a) {api_version = 4 : i32, ",
    "operand_layouts = [dense<[", paste(rev(seq_along(dim(x)) - 1L), collapse = ", "),
    "]> : tensor<", length(dim(x)), "xindex>]} : (", in_type, ") -> (",
    paste(out_types, collapse = ", "), ")\n",
    "  return ", paste(names, collapse = ", "), " : ", paste(out_types, collapse = ", "), "\n}"
  )
  out <- pjrt_execute(pjrt_compile(pjrt_program(src)), pjrt_buffer(x, dtype = dtype))
  lapply(out, function(b) {
    a <- as_array(b)
    if (length(dim(a)) == 1) as.vector(a) else a
  })
}

mlir_dtype <- function(dtype) switch(dtype, c64 = "complex<f32>", c128 = "complex<f64>", dtype)

set.seed(20261202)
a43 <- matrix(rnorm(12), 4, 3)

test_that("geqrf + orgqr give R's QR up to the signs of R's rows", {
  for (dtype in c("f64", "f32")) {
    tol <- if (dtype == "f64") 1e-12 else 1e-5
    prog <- paste0(
      "func.func @main(%a: tensor<4x3x", dtype, ">) -> (tensor<4x3x", dtype, ">, tensor<4x3x", dtype, ">) {\n",
      "  %0:2 = stablehlo.custom_call @geqrf(%a) : (tensor<4x3x", dtype, ">) -> (tensor<4x3x", dtype,
      ">, tensor<3x", dtype, ">)\n",
      "  %1 = stablehlo.custom_call @orgqr(%0#0, %0#1) : (tensor<4x3x", dtype, ">, tensor<3x", dtype,
      ">) -> tensor<4x3x", dtype, ">\n",
      "  return %0#0, %1 : tensor<4x3x", dtype, ">, tensor<4x3x", dtype, ">\n}"
    )
    out <- pjrt_execute(pjrt_compile(pjrt_program(prog)), pjrt_buffer(a43, dtype = dtype))
    packed <- as_array(out[[1]])
    q <- as_array(out[[2]])
    r <- packed[1:3, ]
    r[lower.tri(r)] <- 0
    expect_equal(q %*% r, a43, tolerance = tol)
    expect_equal(crossprod(q), diag(3), tolerance = tol)
    base <- qr(a43)  # LINPACK: no pivoting for a full-rank matrix
    expect_identical(base$pivot, 1:3)
    signs <- sign(diag(r)) * sign(diag(qr.R(base)))
    expect_equal(r, diag(signs) %*% qr.R(base), tolerance = tol)
  }
})

test_that("lu gives pivots and factors with P A = L U", {
  x <- matrix(c(2, 4, -2, 1, 3, 7, 1, 5, 8, 0, 1, 2), 4, 3)
  out <- linalg_run("lu", x, "f64", list(list(shape = c(4, 3)), list(shape = 3, dtype = "i32")))
  lu <- out[[1]]
  pivots <- out[[2]]
  l <- lu
  l[upper.tri(l, diag = TRUE)] <- 0
  l <- l + diag(1, 4, 3)
  u <- lu[1:3, ]
  u[lower.tri(u)] <- 0
  perm <- seq_len(4)
  for (i in seq_along(pivots)) perm[c(i, pivots[i])] <- perm[c(pivots[i], i)]
  expect_equal(x[perm, ], l %*% u, tolerance = 1e-12)
  # Partial pivoting puts the column's largest entry on the diagonal: |L| <= 1.
  expect_true(all(abs(l) <= 1 + 1e-12))
  expect_identical(pivots[1], 2L)  # 4 is the largest entry of column 1
})

test_that("svd matches base::svd() for real and complex batches", {
  x <- array(rnorm(2 * 3 * 4), c(2, 3, 4))
  for (dtype in c("f64", "f32")) {
    tol <- if (dtype == "f64") 1e-12 else 1e-5
    out <- linalg_run("svd", x, dtype, list(
      list(shape = c(2, 3, 3)), list(shape = c(2, 3)), list(shape = c(2, 3, 4))
    ))
    for (b in 1:2) {
      base <- svd(x[b, , ])
      expect_equal(out[[2]][b, ], base$d, tolerance = tol)
      expect_equal(out[[1]][b, , ] %*% diag(out[[2]][b, ]) %*% out[[3]][b, , ], x[b, , ],
                   tolerance = tol)
    }
  }
  z <- matrix(complex(real = rnorm(6), imaginary = rnorm(6)), 3, 2)
  out <- linalg_run("svd", z, "c128", list(
    list(shape = c(3, 2)), list(shape = 2, dtype = "f64"), list(shape = c(2, 2))
  ))
  expect_equal(out[[2]], svd(z)$d, tolerance = 1e-12)
  expect_equal(out[[1]] %*% diag(out[[2]]) %*% out[[3]], z, tolerance = 1e-12)
})

test_that("eigh matches base::eigen() for symmetric and Hermitian matrices", {
  s <- crossprod(matrix(rnorm(16), 4))
  s[upper.tri(s)] <- 100  # only the lower triangle is read
  sym <- s
  sym[upper.tri(sym)] <- t(s)[upper.tri(s)]
  out <- linalg_run("eigh", s, "f64", list(list(shape = c(4, 4)), list(shape = 4)))
  base <- eigen(sym, symmetric = TRUE)
  expect_equal(out[[2]], rev(base$values), tolerance = 1e-12)
  expect_equal(sym %*% out[[1]], out[[1]] %*% diag(out[[2]]), tolerance = 1e-10)
  h <- matrix(c(2, 1 + 1i, 0, 1 - 1i, 3, 2i, 0, -2i, 1), 3, 3)
  outc <- linalg_run("eigh", h, "c64", list(list(shape = c(3, 3)), list(shape = 3, dtype = "f32")))
  expect_equal(outc[[2]], rev(eigen(h, symmetric = TRUE)$values), tolerance = 1e-5)
  expect_equal(h %*% outc[[1]], outc[[1]] %*% diag(outc[[2]]), tolerance = 1e-5)
})

test_that("linear-algebra targets check their types when compiled", {
  expect_snapshot(error = TRUE, {
    linalg_run("svd", a43, "f64", list(list(shape = c(4, 3)), list(shape = 3), list(shape = c(3, 4))))
    linalg_run("eigh", a43, "f64", list(list(shape = c(4, 3)), list(shape = 3)))
    linalg_run("lu", a43, "f64", list(list(shape = c(4, 3)), list(shape = 3)))
    linalg_run("geqrf", array(1:3, 3), "i32", list(list(shape = 3), list(shape = 1)))
  })
})

# jnp.linalg.cholesky as JAX's CPU export writes it: symmetrise, potrf through LAPACK, NaNs
# where info is nonzero, then the lower triangle.
jax_cholesky_src <- r"(
module @jit_cholesky attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x3xf32>) -> (tensor<3x3xf32> {jax.result_info = ""}) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<3x3xf32>) -> tensor<3x3xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<3x3xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x3xf32>
    %3 = stablehlo.divide %1, %2 : tensor<3x3xf32>
    %4:2 = stablehlo.custom_call @lapack_spotrf_ffi(%3) {mhlo.backend_config = {uplo = 76 : ui8}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>]} : (tensor<3x3xf32>) -> (tensor<3x3xf32>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.compare  EQ, %4#1, %c,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %6 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<i1>) -> tensor<3x3xi1>
    %cst_0 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x3xf32>
    %8 = stablehlo.select %6, %4#0, %7 : tensor<3x3xi1>, tensor<3x3xf32>
    %9 = stablehlo.iota dim = 0 : tensor<3x3xi32>
    %10 = stablehlo.iota dim = 1 : tensor<3x3xi32>
    %11 = stablehlo.compare  GE, %9, %10,  SIGNED : (tensor<3x3xi32>, tensor<3x3xi32>) -> tensor<3x3xi1>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<3x3xf32>
    %13 = stablehlo.select %11, %8, %12 : tensor<3x3xi1>, tensor<3x3xf32>
    return %13 : tensor<3x3xf32>
  }
}
)"

test_that("a jnp.linalg.cholesky export runs through lapack_spotrf_ffi", {
  exe <- pjrt_compile(pjrt_program(jax_cholesky_src))
  a <- crossprod(matrix(c(2, -1, 0, 1, 3, 1, 0.5, 0, 2), 3))
  l <- as_array(pjrt_execute(exe, pjrt_buffer(a, dtype = "f32")))
  expect_equal(l, t(chol(a)), tolerance = 1e-6)
  not_pd <- matrix(c(1, 2, 0, 2, 1, 0, 0, 0, 1), 3)
  expect_true(all(is.nan(as_array(pjrt_execute(exe, pjrt_buffer(not_pd, dtype = "f32")))[lower.tri(not_pd, diag = TRUE)])))
})

test_that("JAX's getrf and syevd targets report info and match base R", {
  src <- r"(
func.func @main(%a: tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xi32>, tensor<i32>, tensor<3xf64>, tensor<i32>) {
  %0:3 = stablehlo.custom_call @lapack_dgetrf_ffi(%a) {operand_layouts = [dense<[0, 1]> : tensor<2xindex>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>]} : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xi32>, tensor<i32>)
  %1:3 = stablehlo.custom_call @lapack_dsyevd_ffi(%a) {mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}} : (tensor<3x3xf64>) -> (tensor<3x3xf64>, tensor<3xf64>, tensor<i32>)
  return %0#0, %0#1, %0#2, %1#1, %1#2 : tensor<3x3xf64>, tensor<3xi32>, tensor<i32>, tensor<3xf64>, tensor<i32>
})"
  exe <- pjrt_compile(pjrt_program(src))
  a <- matrix(c(4, 1, 2, 1, 3, 0, 2, 0, 5), 3)
  out <- lapply(pjrt_execute(exe, pjrt_buffer(a, dtype = "f64")), function(b) as.vector(as_array(b)))
  lu <- matrix(out[[1]], 3)
  l <- lu
  l[upper.tri(l, diag = TRUE)] <- 0
  l <- l + diag(3)
  u <- lu
  u[lower.tri(u)] <- 0
  perm <- 1:3
  for (i in 1:3) perm[c(i, out[[2]][i])] <- perm[c(out[[2]][i], i)]
  expect_equal(a[perm, ], l %*% u, tolerance = 1e-12)
  expect_identical(out[[3]], 0L)
  expect_equal(out[[4]], rev(eigen(a, symmetric = TRUE)$values), tolerance = 1e-12)
  expect_identical(out[[5]], 0L)
  singular <- matrix(c(1, 2, 3, 2, 4, 6, 0, 1, 1), 3)
  info <- as.vector(as_array(pjrt_execute(exe, pjrt_buffer(singular, dtype = "f64"))[[3]]))
  expect_true(info > 0)
})

sort_by_parts <- function(z) z[order(Re(z), Im(z))]

test_that("JAX's geev and gtsv targets match base R's eigen() and solve()", {
  src <- r"(
func.func @main(%a: tensor<3x3xf64>, %dl: tensor<3xf64>, %d: tensor<3xf64>, %du: tensor<3xf64>, %b: tensor<3x2xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3x3xcomplex<f64>>, tensor<i32>, tensor<3x2xf64>, tensor<i32>) {
  %0:5 = stablehlo.custom_call @lapack_dgeev_ffi(%a) {mhlo.backend_config = {compute_left = 78 : ui8, compute_right = 86 : ui8}} : (tensor<3x3xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3x3xcomplex<f64>>, tensor<3x3xcomplex<f64>>, tensor<i32>)
  %1:5 = stablehlo.custom_call @lapack_dgtsv_ffi(%dl, %d, %du, %b) {mhlo.backend_config = {}, output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [3], operand_index = 3, operand_tuple_indices = []>]} : (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3x2xf64>) -> (tensor<3xf64>, tensor<3xf64>, tensor<3xf64>, tensor<3x2xf64>, tensor<i32>)
  return %0#0, %0#1, %0#3, %0#4, %1#3, %1#4 : tensor<3xf64>, tensor<3xf64>, tensor<3x3xcomplex<f64>>, tensor<i32>, tensor<3x2xf64>, tensor<i32>
})"
  exe <- pjrt_compile(pjrt_program(src))
  a <- matrix(c(1, -2, 0, 2, 1, 0, 0.5, 0.25, 3), 3)  # eigenvalues 1 +- 2i and 3
  dl <- c(99, -1, 2)  # the first is not read
  d <- c(4, 5, 6)
  du <- c(1, 1, 99)  # the last is not read
  b <- matrix(c(1, 2, 3, -1, 0, 1), 3)
  out <- lapply(pjrt_execute(exe, pjrt_buffer(a, dtype = "f64"), pjrt_buffer(dl, dtype = "f64"),
                             pjrt_buffer(d, dtype = "f64"), pjrt_buffer(du, dtype = "f64"),
                             pjrt_buffer(b, dtype = "f64")), as_array)
  w <- complex(real = as.vector(out[[1]]), imaginary = as.vector(out[[2]]))
  want <- eigen(a, only.values = TRUE)$values
  expect_equal(sort_by_parts(w), sort_by_parts(want), tolerance = 1e-12)
  expect_equal(a %*% out[[3]], out[[3]] %*% diag(w), tolerance = 1e-12)
  expect_identical(out[[4]], 0L)
  tri <- diag(d)
  tri[cbind(2:3, 1:2)] <- dl[2:3]
  tri[cbind(1:2, 2:3)] <- du[1:2]
  expect_equal(out[[5]], solve(tri, b), tolerance = 1e-12)
  expect_identical(out[[6]], 0L)
})

# jax.scipy.linalg.solve_triangular as JAX's CPU export writes it: lapack_<t>trsm_ffi with the
# LAPACK letters as ui8 codes and b aliased to the result.
jax_trsm_src <- function(t, a_type, b_type, side, uplo, trans, diag) {
  code <- function(letter) utf8ToInt(letter)
  paste0(
    "func.func public @main(%arg0: ", a_type, ", %arg1: ", b_type, ") -> (", b_type,
    " {jax.result_info = \"\"}) {\n",
    "  %0 = stablehlo.custom_call @lapack_", t, "trsm_ffi(%arg0, %arg1) {mhlo.backend_config = {",
    sprintf("diag = %d : ui8, side = %d : ui8, trans_x = %d : ui8, uplo = %d : ui8",
            code(diag), code(side), code(trans), code(uplo)),
    "}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], ",
    "output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], ",
    "operand_index = 1, operand_tuple_indices = []>], ",
    "result_layouts = [dense<[0, 1]> : tensor<2xindex>]} : (", a_type, ", ", b_type, ") -> ",
    b_type, "\n  return %0 : ", b_type, "\n}\n")
}

test_that("JAX's trsm target agrees with forwardsolve() and backsolve()", {
  set.seed(11)
  u <- matrix(rnorm(16), 4)
  u[lower.tri(u)] <- 0
  diag(u) <- diag(u) + 3
  l <- t(u)
  b <- matrix(rnorm(12), 4, 3)
  run <- function(a, side, uplo, trans, diag = "N", bm = b) {
    src <- jax_trsm_src("d", "tensor<4x4xf64>", sprintf("tensor<%dx%dxf64>", nrow(bm), ncol(bm)),
                        side, uplo, trans, diag)
    as_array(run_program(src, pjrt_buffer(a, dtype = "f64"), pjrt_buffer(bm, dtype = "f64")))
  }
  expect_equal(run(l, "L", "L", "N"), forwardsolve(l, b), tolerance = 1e-13)
  expect_equal(run(u, "L", "U", "N"), backsolve(u, b), tolerance = 1e-13)
  expect_equal(run(u, "L", "U", "T"), backsolve(u, b, transpose = TRUE), tolerance = 1e-13)
  unit <- u
  diag(unit) <- 1
  expect_equal(run(u, "L", "U", "N", diag = "U"), backsolve(unit, b), tolerance = 1e-13)
  # Right side: x u = c is t(u) t(x) = t(c).
  c34 <- t(b)
  expect_equal(run(u, "R", "U", "N", bm = c34), t(forwardsolve(t(u), t(c34))), tolerance = 1e-13)
  # Complex, conjugate transpose ('C'): solve(Conj(t(u)), b).
  z <- u + 1i * upper.tri(u, diag = TRUE) * 0.5
  src <- jax_trsm_src("z", "tensor<4x4xcomplex<f64>>", "tensor<4x3xcomplex<f64>>", "L", "U", "C",
                      "N")
  got <- as_array(run_program(src, pjrt_buffer(z, dtype = "c128"), pjrt_buffer(b + 0i, dtype = "c128")))
  expect_equal(got, solve(Conj(t(z)), b), tolerance = 1e-13)
  expect_snapshot(error = TRUE, pjrt_compile(pjrt_program(
    jax_trsm_src("s", "tensor<3x3xf32>", "tensor<3x2xf32>", "R", "L", "N", "N"))))
})

test_that("JAX's trsm target solves batches", {
  set.seed(12)
  a <- array(0, c(2, 3, 3))
  b <- array(rnorm(12), c(2, 3, 2))
  for (i in 1:2) {
    m <- matrix(rnorm(9), 3)
    m[upper.tri(m)] <- 0
    diag(m) <- diag(m) + 4
    a[i, , ] <- m
  }
  src <- jax_trsm_src("d", "tensor<2x3x3xf64>", "tensor<2x3x2xf64>", "L", "L", "N", "N")
  src <- gsub("dense<[0, 1]> : tensor<2xindex>", "dense<[1, 2, 0]> : tensor<3xindex>", src,
              fixed = TRUE)
  got <- as_array(run_program(src, pjrt_buffer(a, dtype = "f64"), pjrt_buffer(b, dtype = "f64")))
  for (i in 1:2) expect_equal(got[i, , ], forwardsolve(a[i, , ], b[i, , ]), tolerance = 1e-13)
})
