# General reduce_window windows in the forms JAX lowers them to (a trailing moving sum, a 3 x 3
# max-pool over NHWC images with SAME padding, a 2 x 2 stride-2 pool), checked against base R.

# One reduce_window of `body` with `init` over `type`, with the attributes JAX prints.
window_program <- function(type, result_type, body, init, window, strides, padding) {
  rank <- length(window)
  pjrt_program(paste(
    sprintf("func.func public @main(%%arg0: %s) -> %s {", type, result_type),
    sprintf("  %%cst = stablehlo.constant dense<%s> : tensor<f32>", init),
    sprintf(paste0("  %%0 = \"stablehlo.reduce_window\"(%%arg0, %%cst) <{padding = dense<[%s]> : ",
                   "tensor<%dx2xi64>, window_dimensions = array<i64: %s>, ",
                   "window_strides = array<i64: %s>}> ({"),
            paste(sprintf("[%d, %d]", padding[, 1], padding[, 2]), collapse = ", "), rank,
            paste(window, collapse = ", "), paste(strides, collapse = ", ")),
    "  ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):",
    sprintf("    %%1 = stablehlo.%s %%arg1, %%arg2 : tensor<f32>", body),
    "    stablehlo.return %1 : tensor<f32>",
    sprintf("  }) : (%s, tensor<f32>) -> %s", type, result_type),
    sprintf("  return %%0 : %s", result_type),
    "}", sep = "\n"))
}

test_that("a moving sum of window 1000 over 1e5 samples matches base R", {
  set.seed(29)
  n <- 1e5; w <- 1000
  x <- pjrt_buffer(runif(n), "f32")
  values <- as.vector(as_array(x))  # the f32 values, as doubles
  program <- window_program(sprintf("tensor<%dxf32>", n), sprintf("tensor<%dxf32>", n), "add",
                            "0.000000e+00", w, 1, matrix(c(w - 1, 0), 1))
  got <- as.vector(as_array(run_program(program, x)))
  full <- as.vector(stats::filter(values, rep(1, w), sides = 1))  # NA before a full window
  partial <- cumsum(values[seq_len(w - 1)])
  expected <- c(partial, full[w:n])
  # f32 folds of 1000 terms in [0, 1): a relative error far below 1e-5 of the sums (~500).
  expect_equal(got, expected, tolerance = 1e-5)
  expect_equal(got[w:n], full[w:n], tolerance = 1e-5)
})

# A hand max-pool of `x` (n, h, w, c) with window k x k, stride s, `pad` low and high on h, w.
max_pool_in_r <- function(x, k, s, pad) {
  d <- dim(x)
  out_h <- (d[2] + 2 * pad - k) %/% s + 1
  out_w <- (d[3] + 2 * pad - k) %/% s + 1
  out <- array(0, c(d[1], out_h, out_w, d[4]))
  for (i in seq_len(out_h)) for (j in seq_len(out_w)) {
    rows <- intersect((i - 1) * s - pad + seq_len(k), seq_len(d[2]))
    cols <- intersect((j - 1) * s - pad + seq_len(k), seq_len(d[3]))
    out[, i, j, ] <- apply(x[, rows, cols, , drop = FALSE], c(1, 4), max)
  }
  out
}

test_that("a 3 x 3 max-pool (flax SAME padding) and a 2 x 2 stride-2 pool match base R", {
  set.seed(3)
  x <- array(rnorm(2 * 17 * 13 * 3), c(2, 17, 13, 3))
  buffer <- pjrt_buffer(x, "f32")
  values <- as_array(buffer)
  type <- "tensor<2x17x13x3xf32>"
  same <- window_program(type, type, "maximum", "0xFF800000", c(1, 3, 3, 1), c(1, 1, 1, 1),
                         rbind(c(0, 0), c(1, 1), c(1, 1), c(0, 0)))
  expect_identical(as_array(run_program(same, buffer)), max_pool_in_r(values, 3, 1, 1))
  valid <- window_program(type, "tensor<2x8x6x3xf32>", "maximum", "0xFF800000", c(1, 2, 2, 1),
                          c(1, 2, 2, 1), matrix(0, 4, 2))
  expect_identical(as_array(run_program(valid, buffer)), max_pool_in_r(values, 2, 2, 0))
})

test_that("a moving minimum keeps NaN where the window holds one", {
  x <- c(4, NaN, 3, 1, 2, 5)
  program <- window_program("tensor<6xf32>", "tensor<4xf32>", "minimum", "0x7F800000", 3, 1,
                            matrix(0, 1, 2))
  got <- as.vector(as_array(run_program(program, pjrt_buffer(x, "f32"))))
  expect_identical(got, c(NaN, NaN, 1, 1))
})
