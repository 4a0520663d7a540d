# cholesky, triangular_solve, rng_bit_generator and the chlo special functions, checked
# against base R (chol(), backsolve(), forwardsolve(), psigamma(), besselI(), tan()) and the
# published values of the random bit generators.

prog <- function(...) paste(c(...), collapse = "\n")
f64 <- function(x) pjrt_buffer(x, dtype = "f64")

cholesky_src <- function(type, lower) {
  prog(sprintf("func.func @main(%%a: %s) -> %s {", type, type),
       sprintf("  %%r = \"stablehlo.cholesky\"(%%a) {lower = %s} : (%s) -> %s",
               tolower(lower), type, type),
       sprintf("  return %%r : %s", type), "}")
}

spd <- matrix(c(4, 12, -16, 12, 37, -43, -16, -43, 98), 3, 3)

test_that("cholesky gives chol()'s factor (upper) and its transpose (lower)", {
  upper <- as_array(run_program(cholesky_src("tensor<3x3xf64>", FALSE), f64(spd)))
  expect_equal(upper, chol(spd), tolerance = 1e-14)
  lower <- as_array(run_program(cholesky_src("tensor<3x3xf64>", TRUE), f64(spd)))
  expect_equal(lower, t(chol(spd)), tolerance = 1e-14)
  set.seed(3)
  m <- crossprod(matrix(rnorm(25), 5)) + diag(5)
  f32 <- as_array(run_program(cholesky_src("tensor<5x5xf32>", FALSE),
                              pjrt_buffer(m, dtype = "f32")))
  expect_equal(f32, chol(m), tolerance = 1e-5)
})

test_that("cholesky of a matrix that is not positive definite is NaN, not an error", {
  batch <- array(0, c(2, 2, 2))
  batch[1, , ] <- diag(c(4, 9))
  batch[2, , ] <- matrix(c(1, 2, 2, 1), 2)
  got <- as_array(run_program(cholesky_src("tensor<2x2x2xf64>", TRUE), f64(batch)))
  expect_equal(got[1, , ], diag(c(2, 3)))
  expect_true(all(is.nan(got[2, , ])))
})

solve_src <- function(a, b, left, lower, unit = FALSE, transpose = "NO_TRANSPOSE") {
  prog(sprintf("func.func @main(%%a: %s, %%b: %s) -> %s {", a, b, b),
       sprintf(paste0("  %%r = \"stablehlo.triangular_solve\"(%%a, %%b) {left_side = %s, ",
                      "lower = %s, unit_diagonal = %s, transpose_a = #stablehlo<transpose %s>} ",
                      ": (%s, %s) -> %s"),
               tolower(left), tolower(lower), tolower(unit), transpose, a, b, b),
       sprintf("  return %%r : %s", b), "}")
}

test_that("triangular_solve agrees with forwardsolve() and backsolve()", {
  set.seed(7)
  u <- matrix(rnorm(16), 4)
  u[lower.tri(u)] <- 0
  diag(u) <- diag(u) + 3
  l <- t(u)
  b <- matrix(rnorm(8), 4, 2)
  a4 <- "tensor<4x4xf64>"
  b42 <- "tensor<4x2xf64>"
  run <- function(src, a) as_array(run_program(src, f64(a), f64(b)))
  expect_equal(run(solve_src(a4, b42, TRUE, TRUE), l), forwardsolve(l, b), tolerance = 1e-13)
  expect_equal(run(solve_src(a4, b42, TRUE, FALSE), u), backsolve(u, b), tolerance = 1e-13)
  expect_equal(run(solve_src(a4, b42, TRUE, FALSE, transpose = "TRANSPOSE"), u),
               backsolve(u, b, transpose = TRUE), tolerance = 1e-13)
  expect_equal(run(solve_src(a4, b42, TRUE, FALSE, transpose = "ADJOINT"), u),
               backsolve(u, b, transpose = TRUE), tolerance = 1e-13)
  # A unit diagonal is assumed, whatever the diagonal holds.
  unit <- u
  diag(unit) <- 1
  expect_equal(run(solve_src(a4, b42, TRUE, FALSE, unit = TRUE), u), backsolve(unit, b),
               tolerance = 1e-13)
  # Right side: x u = b' is t(u) t(x) = t(b').
  b24 <- t(b)
  got <- as_array(run_program(solve_src(a4, "tensor<2x4xf64>", FALSE, FALSE), f64(u),
                              f64(b24)))
  expect_equal(got, t(forwardsolve(t(u), t(b24))), tolerance = 1e-13)
})

test_that("triangular_solve runs batches and f32", {
  a <- array(0, c(2, 2, 2))
  a[1, , ] <- matrix(c(2, 1, 0, 4), 2)
  a[2, , ] <- diag(c(1, 2))
  b <- array(c(2, 3, 5, 4), c(2, 2, 1))
  got <- as_array(run_program(solve_src("tensor<2x2x2xf32>", "tensor<2x2x1xf32>", TRUE, TRUE),
                              pjrt_buffer(a, dtype = "f32"), pjrt_buffer(b, dtype = "f32")))
  expect_equal(got[1, , 1], forwardsolve(a[1, , ], b[1, , 1]))
  expect_equal(got[2, , 1], forwardsolve(a[2, , ], b[2, , 1]))
  # One f32 matrix, from either side, transposed or not: R's column-major matrices as LAPACK
  # reads them.
  set.seed(11)
  l <- matrix(rnorm(25), 5)
  l[upper.tri(l)] <- 0
  diag(l) <- diag(l) + 4
  rhs <- matrix(rnorm(15), 5, 3)
  f32 <- function(x) pjrt_buffer(x, dtype = "f32")
  left <- as_array(run_program(solve_src("tensor<5x5xf32>", "tensor<5x3xf32>", TRUE, TRUE,
                                         transpose = "TRANSPOSE"), f32(l), f32(rhs)))
  expect_equal(left, backsolve(t(l), rhs), tolerance = 1e-5)
  right <- as_array(run_program(solve_src("tensor<5x5xf32>", "tensor<3x5xf32>", FALSE, TRUE),
                                f32(l), f32(t(rhs))))
  expect_equal(right, t(backsolve(t(l), rhs)), tolerance = 1e-5)  # x l = b is t(l) t(x) = t(b)
})

rng_src <- function(algorithm, state, out) {
  prog(sprintf("func.func @main(%%s: %s) -> (%s, %s) {", state, state, out),
       sprintf("  %%0, %%1 = stablehlo.rng_bit_generator %%s, algorithm = %s : (%s) -> (%s, %s)",
               algorithm, state, state, out),
       sprintf("  return %%0, %%1 : %s, %s", state, out), "}")
}

test_that("rng_bit_generator gives the StableHLO spec's THREE_FRY example", {
  out <- run_program(rng_src("THREE_FRY", "tensor<2xui64>", "tensor<2x2xui64>"),
                     pjrt_buffer(c(1, 2), dtype = "ui64"))
  expect_identical(as.vector(format_buffer(out[[1]])), c("1", "6"))
  expect_identical(format_buffer(out[[2]]),
                   matrix(c("9236835810183407956", "18212823393184779219",
                            "16087790271692313299", "2658481902456610144"), 2, 2))
})

test_that("rng_bit_generator lays Threefry words out as XLA does", {
  # Counter i (key 0) gives row i of a 3x2 ui32 output; Random123's known answer for counter
  # 0 is (0x6b200159, 0x99ba4efe).
  out <- run_program(rng_src("THREE_FRY", "tensor<2xui64>", "tensor<3x2xui32>"),
                     pjrt_buffer(c(0, 0), dtype = "ui64"))
  expect_identical(as.vector(format_buffer(out[[1]])), c("0", "3"))
  bits <- matrix(as.double(out[[2]]), 3, 2)
  expect_identical(bits[1, ], c(strtoi("6b200159", 16L), 2579123966))
  # Rows 2 and 3 as XLA's CPU backend gives them for this state and shape (printed to 5
  # significant digits).
  expect_identical(signif(bits[2:3, ], 5), matrix(c(1.3515e9, 1.6886e9, 3.2358e9, 4.2293e9), 2))
  # PHILOX: the first four words of counter 0 under key 0 are Random123's
  # (0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8).
  out <- run_program(rng_src("PHILOX", "tensor<3xui64>", "tensor<4xui32>"),
                     pjrt_buffer(c(0, 0, 0), dtype = "ui64"))
  expect_identical(as.vector(format_buffer(out[[1]])), c("0", "1", "0"))
  expect_identical(as.double(out[[2]]),
                   c(1713891541, 3781805453, 3159862348, 2600524760))
})

test_that("rng_bit_generator refuses states and outputs it cannot use", {
  expect_snapshot(error = TRUE, pjrt_compile(pjrt_program(
    rng_src("THREE_FRY", "tensor<3xui64>", "tensor<4xui32>"))))
  expect_snapshot(error = TRUE, pjrt_compile(pjrt_program(
    rng_src("PHILOX", "tensor<2xui64>", "tensor<4xcomplex<f32>>"))))
})

test_that("linear-algebra ops refuse operands of the wrong shape at compile time", {
  expect_snapshot(error = TRUE, pjrt_compile(pjrt_program(cholesky_src("tensor<2x3xf32>", TRUE))))
  expect_snapshot(error = TRUE, pjrt_compile(pjrt_program(
    solve_src("tensor<3x3xf32>", "tensor<2x1xf32>", TRUE, TRUE))))
  expect_snapshot(error = TRUE, pjrt_compile(pjrt_program(
    solve_src("tensor<2x2xf32>", "tensor<2x1xf64>", TRUE, TRUE))))
})

binary_src <- function(op, type) {
  prog(sprintf("func.func @main(%%a: %s, %%b: %s) -> %s {", type, type, type),
       sprintf("  %%r = %s %%a, %%b : %s", op, type), sprintf("  return %%r : %s", type), "}")
}
unary_src <- function(op, type) {
  prog(sprintf("func.func @main(%%a: %s) -> %s {", type, type),
       sprintf("  %%r = %s %%a : %s", op, type), sprintf("  return %%r : %s", type), "}")
}

test_that("chlo special functions agree with base R", {
  x <- c(0.5, 1, 2.5, 10, 60, 800)
  t6 <- "tensor<6xf64>"
  i1e <- as.vector(run_program(unary_src("chlo.bessel_i1e", t6), f64(x)))
  expect_equal(i1e, besselI(x, 1, expon.scaled = TRUE), tolerance = 1e-14)
  neg <- as.vector(run_program(unary_src("chlo.bessel_i1e", t6), f64(-x)))
  expect_equal(neg, -besselI(x, 1, expon.scaled = TRUE), tolerance = 1e-14)
  n <- c(0, 1, 1, 2, 3, 5)
  y <- c(2.5, 0.5, 3.7, -1.5, 0.25, 1)
  pg <- as.vector(run_program(binary_src("chlo.polygamma", t6), f64(n), f64(y)))
  expect_equal(pg, mapply(psigamma, y, n), tolerance = 1e-12)
  # zeta(n + 1, x) = (-1)^(n + 1) psigamma(x, n) / n!
  s <- c(2, 3, 4, 2, 5, 7)
  q <- c(1, 2, 0.5, 1000, 3.3, 1.1)
  z <- as.vector(run_program(binary_src("chlo.zeta", t6), f64(s), f64(q)))
  k <- s - 1
  expect_equal(z, (-1)^(k + 1) * mapply(psigamma, q, k) / factorial(k), tolerance = 1e-12)
  expect_equal(as.vector(run_program(unary_src("chlo.tan", t6), f64(x / 7))), tan(x / 7),
               tolerance = 1e-15)
  w <- complex(real = c(0.5, -1), imaginary = c(1, 0.25))
  c2 <- "tensor<2xcomplex<f64>>"
  tz <- as.vector(run_program(unary_src("chlo.tan", c2), pjrt_buffer(w, dtype = "c128")))
  expect_equal(tz, tan(w), tolerance = 1e-14)
  cz <- as.vector(run_program(unary_src("chlo.conj", c2), pjrt_buffer(w, dtype = "c128")))
  expect_identical(cz, Conj(w))
})

test_that("chlo.next_after steps one value of the operands' type", {
  got <- as.vector(run_program(binary_src("chlo.next_after", "tensor<3xf64>"),
                              f64(c(1, 1, 2)), f64(c(2, 0, 2))))
  expect_identical(got, c(1 + .Machine$double.eps, 1 - .Machine$double.eps / 2, 2))
  f16 <- as.vector(run_program(binary_src("chlo.next_after", "tensor<2xf16>"),
                              pjrt_buffer(c(1, 0), dtype = "f16"),
                              pjrt_buffer(c(2, -1), dtype = "f16")))
  expect_identical(f16, c(1 + 2^-10, -2^-24))
})

test_that("chlo broadcasting forms and constant_like", {
  src <- prog(
    "func.func @main(%a: tensor<2x3xf64>, %b: tensor<3xf64>)",
    "    -> (tensor<2x3xf64>, tensor<2x3xf64>) {",
    "  %one = \"chlo.constant_like\"(%a) {value = 1.5 : f64}",
    "    : (tensor<2x3xf64>) -> tensor<2x3xf64>",
    "  %s = chlo.broadcast_subtract %a, %b : (tensor<2x3xf64>, tensor<3xf64>) -> tensor<2x3xf64>",
    "  return %s, %one : tensor<2x3xf64>, tensor<2x3xf64>", "}")
  a <- matrix(1:6, 2, 3) + 0
  b <- c(10, 20, 30)
  out <- run_program(src, f64(a), f64(b))
  expect_identical(as_array(out[[1]]), sweep(a, 2, b))
  expect_identical(as_array(out[[2]]), matrix(1.5, 2, 3))
  bad <- prog(
    "func.func @main(%a: tensor<2x3xf64>, %b: tensor<2xf64>) -> tensor<2x3xf64> {",
    "  %s = chlo.broadcast_add %a, %b : (tensor<2x3xf64>, tensor<2xf64>) -> tensor<2x3xf64>",
    "  return %s : tensor<2x3xf64>", "}")
  expect_snapshot(error = TRUE, pjrt_compile(pjrt_program(bad)))
})

test_that("chlo.mulhi is the high half of the 64-bit product, as floor division in R", {
  src <- prog(
    "func.func @main(%a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {",
    "  %r = \"chlo.mulhi\"(%a, %b) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>",
    "  return %r : tensor<4xi32>", "}")
  a <- c(123456789L, -123456789L, 2147483647L, -5L)
  b <- c(-987654L, -987654L, 4096L, 3L)  # products exact in doubles (below 2^53)
  got <- as.vector(run_program(src, pjrt_buffer(a), pjrt_buffer(b)))
  expect_identical(got, as.integer((as.double(a) * b) %/% 2^32))
})
