# The model-shaped programs of bench/realsize.R (softmax and layer norm, a logistic-regression
# SGD step, an MLP's forward and backward pass), in JAX's lowered form, and the list of rows.

# A row-wise reduce of `x` (rows x cols) into `out` with `body` (add or maximum).
row_reduce <- function(out, x, body, init_name, rows, cols) {
  sprintf("%s = stablehlo.reduce(%s init: %s) applies stablehlo.%s across dimensions = [1] : (%s, tensor<f32>) -> %s",
          out, x, init_name, body, f32(rows, cols), f32(rows))
}

# `v` (rows) broadcast over the columns as JAX does: to rows x 1, then to rows x cols.
row_broadcast <- function(out, v, rows, cols) c(
  sprintf("%s_r = stablehlo.broadcast_in_dim %s, dims = [0] : (%s) -> %s", out, v, f32(rows),
          f32(rows, 1)),
  sprintf("%s = stablehlo.broadcast_in_dim %s_r, dims = [0, 1] : (%s) -> %s", out, out,
          f32(rows, 1), f32(rows, cols)))

# jax.nn.softmax(x, axis=-1) and a layer norm of x (flax's: mean, mean of squares, rsqrt of
# their variance + 1e-6, scale and bias), 2048 x 512.
softmax_layer_norm_spec <- function() {
  rows <- 2048; cols <- 512
  m <- f32(rows, cols)
  x <- f32_data(matrix(rnorm(rows * cols), rows))
  scale <- f32_data(runif(cols, 0.5, 1.5))
  bias <- f32_data(rnorm(cols, sd = 0.1))
  text <- jax_module("softmax_layer_norm", c(m, f32(cols), f32(cols)), c(
    "%cst = stablehlo.constant dense<0xFF800000> : tensor<f32>",
    row_reduce("%0", "%arg0", "maximum", "%cst", rows, cols),
    sprintf("%%1 = stablehlo.broadcast_in_dim %%cst, dims = [] : (tensor<f32>) -> %s", f32(rows)),
    sprintf("%%2 = stablehlo.maximum %%1, %%0 : %s", f32(rows)),
    row_broadcast("%3", "%2", rows, cols),
    sprintf("%%4 = stablehlo.subtract %%arg0, %%3 : %s", m),
    sprintf("%%5 = stablehlo.exponential %%4 : %s", m),
    "%cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>",
    row_reduce("%6", "%5", "add", "%cst_0", rows, cols),
    row_broadcast("%7", "%6", rows, cols),
    sprintf("%%8 = stablehlo.divide %%5, %%7 : %s", m),
    row_reduce("%9", "%arg0", "add", "%cst_0", rows, cols),
    sprintf("%%cst_1 = stablehlo.constant dense<%s> : tensor<f32>", format(cols)),
    sprintf("%%10 = stablehlo.broadcast_in_dim %%cst_1, dims = [] : (tensor<f32>) -> %s", f32(rows)),
    sprintf("%%11 = stablehlo.divide %%9, %%10 : %s", f32(rows)),
    sprintf("%%12 = stablehlo.multiply %%arg0, %%arg0 : %s", m),
    row_reduce("%13", "%12", "add", "%cst_0", rows, cols),
    sprintf("%%14 = stablehlo.divide %%13, %%10 : %s", f32(rows)),
    sprintf("%%15 = stablehlo.multiply %%11, %%11 : %s", f32(rows)),
    sprintf("%%16 = stablehlo.subtract %%14, %%15 : %s", f32(rows)),
    sprintf("%%17 = stablehlo.broadcast_in_dim %%cst_0, dims = [] : (tensor<f32>) -> %s", f32(rows)),
    sprintf("%%18 = stablehlo.maximum %%17, %%16 : %s", f32(rows)),
    "%cst_2 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>",
    sprintf("%%19 = stablehlo.broadcast_in_dim %%cst_2, dims = [] : (tensor<f32>) -> %s", f32(rows)),
    sprintf("%%20 = stablehlo.add %%18, %%19 : %s", f32(rows)),
    sprintf("%%21 = stablehlo.rsqrt %%20 : %s", f32(rows)),
    row_broadcast("%22", "%11", rows, cols),
    sprintf("%%23 = stablehlo.subtract %%arg0, %%22 : %s", m),
    row_broadcast("%24", "%21", rows, cols),
    sprintf("%%25 = stablehlo.multiply %%23, %%24 : %s", m),
    sprintf("%%26 = stablehlo.broadcast_in_dim %%arg1, dims = [1] : (%s) -> %s", f32(cols), m),
    sprintf("%%27 = stablehlo.multiply %%25, %%26 : %s", m),
    sprintf("%%28 = stablehlo.broadcast_in_dim %%arg2, dims = [1] : (%s) -> %s", f32(cols), m),
    sprintf("%%29 = stablehlo.add %%27, %%28 : %s", m)), c("%8", "%29"), c(m, m))
  reference <- function() {
    v <- x$values
    e <- exp(v - apply(v, 1, max))
    mean <- rowMeans(v)
    variance <- pmax(rowMeans(v * v) - mean^2, 0)
    normed <- (v - mean) / sqrt(variance + 1e-6)
    list(e / rowSums(e), sweep(sweep(normed, 2, scale$values, `*`), 2, bias$values, `+`))
  }
  spec("softmax + layer norm, 2048 x 512", text, list(x$buffer, scale$buffer, bias$buffer),
       reference, 1e-4)
}

# One SGD step of logistic regression (lr 0.1, mean log-loss) on 4096 x 512, as jax.grad's
# lowering gives it: the forward product, the logistic, the cotangent scaled by 1 / n, the
# transposed product for the weights' gradient and a reduce for the bias's.
logistic_step_spec <- function() {
  n <- 4096; p <- 512
  x <- f32_data(matrix(rnorm(n * p), n))
  y <- f32_data(as.numeric(runif(n) < 0.5))
  w <- f32_data(rnorm(p, sd = 0.05))
  b_buffer <- pjrt_scalar(0.1, dtype = "f32")
  b <- list(buffer = b_buffer, values = as.numeric(as_array(b_buffer)))
  text <- jax_module("sgd_step", c(f32(p), "tensor<f32>", f32(n, p), f32(n)), c(
    dot_line("%0", "%arg2", "%arg0", "contracting_dims = [1] x [0]", f32(n, p), f32(p), f32(n)),
    sprintf("%%1 = stablehlo.broadcast_in_dim %%arg1, dims = [] : (tensor<f32>) -> %s", f32(n)),
    sprintf("%%2 = stablehlo.add %%0, %%1 : %s", f32(n)),
    sprintf("%%3 = stablehlo.logistic %%2 : %s", f32(n)),
    sprintf("%%4 = stablehlo.subtract %%3, %%arg3 : %s", f32(n)),
    "%cst = stablehlo.constant dense<2.44140625E-4> : tensor<f32>",
    sprintf("%%5 = stablehlo.broadcast_in_dim %%cst, dims = [] : (tensor<f32>) -> %s", f32(n)),
    sprintf("%%6 = stablehlo.multiply %%4, %%5 : %s", f32(n)),
    dot_line("%7", "%6", "%arg2", "contracting_dims = [0] x [0]", f32(n), f32(n, p), f32(p)),
    "%cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>",
    sprintf("%%8 = stablehlo.reduce(%%6 init: %%cst_0) applies stablehlo.add across dimensions = [0] : (%s, tensor<f32>) -> tensor<f32>", f32(n)),
    "%cst_1 = stablehlo.constant dense<1.000000e-01> : tensor<f32>",
    sprintf("%%9 = stablehlo.broadcast_in_dim %%cst_1, dims = [] : (tensor<f32>) -> %s", f32(p)),
    sprintf("%%10 = stablehlo.multiply %%9, %%7 : %s", f32(p)),
    sprintf("%%11 = stablehlo.subtract %%arg0, %%10 : %s", f32(p)),
    "%12 = stablehlo.multiply %cst_1, %8 : tensor<f32>",
    "%13 = stablehlo.subtract %arg1, %12 : tensor<f32>"), c("%11", "%13"),
    c(f32(p), "tensor<f32>"))
  reference <- function() {
    z <- drop(x$values %*% w$values) + b$values
    g <- (1 / (1 + exp(-z)) - y$values) / n
    list(w$values - 0.1 * drop(crossprod(x$values, g)), b$values - 0.1 * sum(g))
  }
  spec("logistic regression SGD step, 4096 x 512", text,
       list(w$buffer, b$buffer, x$buffer, y$buffer), reference, 1e-5)
}

# Loss and gradients of a 2-layer MLP (1024 x 512 -> tanh 256 -> 16, mean squared error), the
# backward pass as dot_generals contracting the batch or the outputs.
mlp_lines <- function(n, p, h, o) c(
  dot_line("%0", "%arg0", "%arg1", "contracting_dims = [1] x [0]", f32(n, p), f32(p, h), f32(n, h)),
  sprintf("%%1 = stablehlo.broadcast_in_dim %%arg2, dims = [1] : (%s) -> %s", f32(h), f32(n, h)),
  sprintf("%%2 = stablehlo.add %%0, %%1 : %s", f32(n, h)),
  sprintf("%%3 = stablehlo.tanh %%2 : %s", f32(n, h)),
  dot_line("%4", "%3", "%arg3", "contracting_dims = [1] x [0]", f32(n, h), f32(h, o), f32(n, o)),
  sprintf("%%5 = stablehlo.broadcast_in_dim %%arg4, dims = [1] : (%s) -> %s", f32(o), f32(n, o)),
  sprintf("%%6 = stablehlo.add %%4, %%5 : %s", f32(n, o)),
  sprintf("%%7 = stablehlo.subtract %%6, %%arg5 : %s", f32(n, o)),
  sprintf("%%8 = stablehlo.multiply %%7, %%7 : %s", f32(n, o)),
  "%cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>",
  sprintf("%%9 = stablehlo.reduce(%%8 init: %%cst) applies stablehlo.add across dimensions = [0, 1] : (%s, tensor<f32>) -> tensor<f32>", f32(n, o)),
  sprintf("%%cst_0 = stablehlo.constant dense<%s> : tensor<f32>", format(1 / (n * o), digits = 9)),
  "%10 = stablehlo.multiply %9, %cst_0 : tensor<f32>",
  sprintf("%%cst_1 = stablehlo.constant dense<%s> : tensor<f32>", format(2 / (n * o), digits = 9)),
  sprintf("%%11 = stablehlo.broadcast_in_dim %%cst_1, dims = [] : (tensor<f32>) -> %s", f32(n, o)),
  sprintf("%%12 = stablehlo.multiply %%11, %%7 : %s", f32(n, o)),
  sprintf("%%13 = stablehlo.reduce(%%12 init: %%cst) applies stablehlo.add across dimensions = [0] : (%s, tensor<f32>) -> %s", f32(n, o), f32(o)),
  dot_line("%14", "%3", "%12", "contracting_dims = [0] x [0]", f32(n, h), f32(n, o), f32(h, o)),
  dot_line("%15", "%12", "%arg3", "contracting_dims = [1] x [1]", f32(n, o), f32(h, o), f32(n, h)),
  sprintf("%%16 = stablehlo.multiply %%3, %%3 : %s", f32(n, h)),
  "%cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>",
  sprintf("%%17 = stablehlo.broadcast_in_dim %%cst_2, dims = [] : (tensor<f32>) -> %s", f32(n, h)),
  sprintf("%%18 = stablehlo.subtract %%17, %%16 : %s", f32(n, h)),
  sprintf("%%19 = stablehlo.multiply %%15, %%18 : %s", f32(n, h)),
  sprintf("%%20 = stablehlo.reduce(%%19 init: %%cst) applies stablehlo.add across dimensions = [0] : (%s, tensor<f32>) -> %s", f32(n, h), f32(h)),
  dot_line("%21", "%arg0", "%19", "contracting_dims = [0] x [0]", f32(n, p), f32(n, h), f32(p, h)))

mlp_spec <- function() {
  n <- 1024; p <- 512; h <- 256; o <- 16
  x <- f32_data(matrix(rnorm(n * p), n))
  w1 <- f32_data(matrix(rnorm(p * h, sd = 0.05), p))
  b1 <- f32_data(rnorm(h, sd = 0.1))
  w2 <- f32_data(matrix(rnorm(h * o, sd = 0.1), h))
  b2 <- f32_data(rnorm(o, sd = 0.1))
  y <- f32_data(matrix(rnorm(n * o), n))
  text <- jax_module("mlp_grad", c(f32(n, p), f32(p, h), f32(h), f32(h, o), f32(o), f32(n, o)),
                     mlp_lines(n, p, h, o), c("%10", "%21", "%20", "%14", "%13"),
                     c("tensor<f32>", f32(p, h), f32(h), f32(h, o), f32(o)))
  reference <- function() {
    a <- tanh(x$values %*% w1$values + rep(b1$values, each = n))
    d <- a %*% w2$values + rep(b2$values, each = n) - y$values
    g <- 2 / (n * o) * d
    dh <- (g %*% t(w2$values)) * (1 - a * a)
    list(mean(d * d), crossprod(x$values, dh), colSums(dh), crossprod(a, g), colSums(g))
  }
  spec("MLP forward + backward, 1024 x 512 -> 256 -> 16", text,
       list(x$buffer, w1$buffer, b1$buffer, w2$buffer, b2$buffer, y$buffer), reference, 1e-4)
}

realsize_specs <- function() {
  c(cumulative_specs(), list(argminmax_spec("GT"), argminmax_spec("LT")),
    lapply(c(1e5, 1e6), sort_spec, with_indices = FALSE),
    lapply(c(1e5, 1e6), sort_spec, with_indices = TRUE),
    list(top_k_spec(), einsum_spec(), matmul_spec("f32"), matmul_spec("bf16"),
         segment_sum_spec(), embedding_spec(), power_iteration_spec(), rnn_spec(),
         softmax_layer_norm_spec(), logistic_step_spec(), mlp_spec()), window_specs())
}
