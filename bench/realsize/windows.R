# General reduce_window windows at real sizes (sourced by bench/realsize.R): a moving sum
# (lax.reduce_window with add, window 1000, padding (999, 0)) and flax's 3 x 3 max-pool with
# SAME padding over NHWC images, in the text JAX prints.

window_module <- function(name, type, body, init, window, padding) {
  rank <- length(window)
  jax_module(name, type, c(
    sprintf("%%cst = stablehlo.constant dense<%s> : tensor<f32>", init),
    sprintf(paste0("%%0 = \"stablehlo.reduce_window\"(%%arg0, %%cst) <{padding = dense<[%s]> : ",
                   "tensor<%dx2xi64>, window_dimensions = array<i64: %s>, ",
                   "window_strides = array<i64: %s>}> ({"),
            paste(sprintf("[%d, %d]", padding[, 1], padding[, 2]), collapse = ", "), rank,
            paste(window, collapse = ", "), paste(rep(1, rank), collapse = ", ")),
    "^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):",
    sprintf("  %%1 = stablehlo.%s %%arg1, %%arg2 : tensor<f32>", body),
    "  stablehlo.return %1 : tensor<f32>",
    sprintf("}) : (%s, tensor<f32>) -> %s", type, type)), "%0", type)
}

# Window 1000 over 1e6 samples; base R: differences of a double cumsum (no cancellation worth
# the name at these magnitudes), the first 999 sums partial as the padding makes them.
moving_sum_spec <- function() {
  n <- 1e6; w <- 1000
  x <- f32_data(runif(n))
  text <- window_module("moving_sum", f32(n), "add", "0.000000e+00", w, matrix(c(w - 1, 0), 1))
  reference <- function() {
    sums <- cumsum(x$values)
    c(sums[seq_len(w - 1)], sums[w:n] - c(0, sums[seq_len(n - w)]))
  }
  spec("moving sum, window 1000 over 1e6", text, list(x$buffer), reference, 1e-5)
}

# Base R: the maximum of the nine shifted views of the image padded with -Inf.
max_pool_spec <- function() {
  d <- c(16, 64, 64, 32)
  x <- f32_data(array(rnorm(prod(d)), d))
  text <- window_module("max_pool", f32(d), "maximum", "0xFF800000", c(1, 3, 3, 1),
                        rbind(c(0, 0), c(1, 1), c(1, 1), c(0, 0)))
  reference <- function() {
    padded <- array(-Inf, d + c(0, 2, 2, 0))
    padded[, 1 + seq_len(d[2]), 1 + seq_len(d[3]), ] <- x$values
    out <- padded[, seq_len(d[2]), seq_len(d[3]), , drop = FALSE]
    for (i in 0:2) for (j in 0:2) {
      out <- pmax(out, padded[, i + seq_len(d[2]), j + seq_len(d[3]), , drop = FALSE])
    }
    out
  }
  spec("max-pool 3 x 3 SAME, 16 x 64 x 64 x 32", text, list(x$buffer), reference, 0)
}

window_specs <- function() list(moving_sum_spec(), max_pool_spec())
