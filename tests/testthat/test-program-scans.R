# Cumulative reductions in the form JAX lowers them to (reduce_window with a window the axis's
# length and padding (n - 1, 0), or (0, n - 1) for reverse = TRUE), checked against base R's
# cumsum(), cumprod(), cummax() and cummin() along every axis.

# reduce_window of `body` (an element-wise op name) with `init` along `axis` of `shape`.
cumulative_program <- function(shape, axis, body, init, dtype = "f64", reverse = FALSE) {
  type <- sprintf("tensor<%sx%s>", paste(shape, collapse = "x"), dtype)
  window <- replace(rep(1L, length(shape)), axis, as.integer(shape[axis]))
  padding <- matrix(0, length(shape), 2)
  padding[axis, if (reverse) 2 else 1] <- shape[axis] - 1
  rows <- paste(sprintf("[%d, %d]", padding[, 1], padding[, 2]), collapse = ", ")
  pjrt_program(paste(
    sprintf("func.func @main(%%x: %s) -> %s {", type, type),
    sprintf("  %%init = stablehlo.constant dense<%s> : tensor<%s>", init, dtype),
    "  %r = \"stablehlo.reduce_window\"(%x, %init) ({",
    sprintf("  ^bb0(%%a: tensor<%s>, %%b: tensor<%s>):", dtype, dtype),
    sprintf("    %%s = stablehlo.%s %%a, %%b : tensor<%s>", body, dtype),
    sprintf("    stablehlo.return %%s : tensor<%s>", dtype),
    sprintf("  }) {window_dimensions = array<i64: %s>, padding = dense<[%s]> : tensor<%dx2xi64>}",
            paste(window, collapse = ", "), rows, length(shape)),
    sprintf("      : (%s, tensor<%s>) -> %s", type, dtype, type),
    sprintf("  return %%r : %s", type),
    "}", sep = "\n"))
}

# base R's `f` along `axis` of array `x` (reversed when asked), keeping x's dims.
cumulative_in_r <- function(x, axis, f, reverse = FALSE) {
  g <- if (reverse) function(v) rev(f(rev(v))) else f
  if (length(dim(x)) <= 1) return(array(g(as.vector(x)), dim(x)))
  margins <- setdiff(seq_along(dim(x)), axis)
  aperm(apply(x, margins, g), order(c(axis, margins)))
}

test_that("cumsum, cumprod, cummax and cummin match base R along every axis", {
  set.seed(1)
  x <- array(round(runif(3 * 4 * 5, -3, 3), 1), c(3, 4, 5))
  bodies <- list(add = list(cumsum, "0.0"), multiply = list(cumprod, "1.0"),
                 maximum = list(cummax, "0xFFF0000000000000"),
                 minimum = list(cummin, "0x7FF0000000000000"))
  for (axis in 1:3) for (reverse in c(FALSE, TRUE)) for (body in names(bodies)) {
    f <- bodies[[body]][[1]]
    program <- cumulative_program(dim(x), axis, body, bodies[[body]][[2]], reverse = reverse)
    got <- as_array(run_program(program, pjrt_buffer(x, "f64")))
    expect_equal(got, cumulative_in_r(x, axis, f, reverse), tolerance = 1e-12,
                 label = sprintf("%s along axis %d (reverse = %s)", body, axis, reverse))
  }
})

test_that("integer cumulative sums wrap and keep their dtype", {
  x <- c(2147483647L, 1L, 5L)
  got <- as_array(run_program(cumulative_program(3, 1, "add", "0", "i32"),
                              pjrt_buffer(x, "i32")), check = "ignore")
  expect_identical(as.vector(got), c(2147483647L, NA, -2147483643L))  # INT_MIN reads as NA in R
})

test_that("a cumulative sum of 16384 elements and 4096 x 64 columns is exact on integers", {
  n <- 16384
  got <- as_array(run_program(cumulative_program(n, 1, "add", "0.0", "f32"),
                              pjrt_buffer(rep(1, n), "f32")))
  expect_identical(as.vector(got), as.double(seq_len(n)))
  x <- matrix(rep(1:64, each = 4096) %% 3, 4096, 64)
  got <- as_array(run_program(cumulative_program(dim(x), 1, "add", "0.0"), pjrt_buffer(x, "f64")))
  expect_identical(got, apply(x, 2, cumsum))
})

test_that("long float cumulative sums stay within rounding of base R's, whatever the thread count", {
  # Lines from 8448 elements on are summed in chunks (ndbuf's window_scan.hpp): the order
  # differs from a left-to-right sum, the error bound is of the same order, and the chunks do
  # not depend on the thread count.
  set.seed(3)
  n <- 600000L
  x <- runif(n, -1, 3)
  for (reverse in c(FALSE, TRUE)) {
    program <- cumulative_program(n, 1, "add", "0.0", "f32", reverse = reverse)
    stored <- array(as.double(as_array(pjrt_buffer(x, "f32"))), n)  # the f32 values summed
    want <- cumulative_in_r(stored, 1, cumsum, reverse)
    sums <- function(threads) {
      withr::local_options(pjrt.threads = threads)
      as_array(run_program(program, pjrt_buffer(x, "f32")))
    }
    one <- sums(1L)
    two <- sums(2L)
    expect_identical(one, two)
    magnitude <- cumulative_in_r(abs(stored), 1, cumsum, reverse)
    # (chunk length + chunk count) roundings of at most 2^-24 of the running magnitude
    expect_true(all(abs(as.vector(one) - want) <= (528 + n / 528 + 2) * 2^-24 * magnitude))
  }
})

test_that("an init value that is not the body's identity is folded once per padding element", {
  # Window i of a length-3 prefix holds 2 - i padding elements, each the init value 1.
  got <- as_array(run_program(cumulative_program(3, 1, "add", "1.0"), pjrt_buffer(c(1, 2, 3), "f64")))
  expect_identical(as.vector(got), c(1, 3, 6) + 1 + c(2, 1, 0))
})
