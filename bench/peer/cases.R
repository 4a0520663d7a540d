# The computations bench/peer/peer.R times in pjrt and in PyTorch: each case is a JAX-style
# StableHLO program, its inputs made from R arrays as a user makes them (column-major
# matrices and arrays through pjrt_buffer(), of the dtypes case_buffers() picks unless the
# case names them), and the name of the same computation in torch_cases.py. Sizes follow the
# execution-model issue's table; PEER_SCALE (default 1) divides the large dims for a quick run.

# The type of a tensor of `element` (f32, bf16, complex<f32>, ...) with dims `...`.
tensor <- function(element, ...) {
  sprintf("tensor<%sx%s>", paste(format(c(...), scientific = FALSE, trim = TRUE), collapse = "x"),
          element)
}
t32 <- function(...) tensor("f32", ...)
ti32 <- function(...) tensor("i32", ...)

main_text <- function(args, lines, results, result_types) {
  params <- paste0("%", names(args), ": ", args, collapse = ", ")
  types <- paste(result_types, collapse = ", ")
  paste0("func.func @main(", params, ") -> (", types, ") {\n",
         paste0("  ", lines, collapse = "\n"), "\n  return ", paste(results, collapse = ", "),
         " : ", types, "\n}\n")
}

# The reduction of `x` (`type`, a rows x cols matrix) over its columns with `op`.
row_reduce <- function(out, x, init, op, rows, cols) {
  sprintf(paste0("%%%s = stablehlo.reduce(%%%s init: %%%s) applies stablehlo.%s across ",
                 "dimensions = [1] : (%s, tensor<f32>) -> %s"), out, x, init, op, t32(rows, cols),
          t32(rows))
}
by_row <- function(out, v, rows, cols) {
  sprintf("%%%s = stablehlo.broadcast_in_dim %%%s, dims = [0] : (%s) -> %s", out, v, t32(rows),
          t32(rows, cols))
}
scalar_to <- function(out, value, ...) {
  c(sprintf("%%%s_s = stablehlo.constant dense<%s> : tensor<f32>", out, value),
    sprintf("%%%s = stablehlo.broadcast_in_dim %%%s_s, dims = [] : (tensor<f32>) -> %s", out,
            out, t32(...)))
}

# softmax over each row, then layer norm of the result (biased variance, eps 1e-5).
softmax_layernorm_program <- function(rows, cols) {
  m <- t32(rows, cols)
  lines <- c(
    "%ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>",
    "%zero = stablehlo.constant dense<0.0> : tensor<f32>",
    row_reduce("max", "x", "ninf", "maximum", rows, cols), by_row("maxb", "max", rows, cols),
    sprintf("%%d = stablehlo.subtract %%x, %%maxb : %s", m),
    sprintf("%%e = stablehlo.exponential %%d : %s", m),
    row_reduce("sum", "e", "zero", "add", rows, cols), by_row("sumb", "sum", rows, cols),
    sprintf("%%p = stablehlo.divide %%e, %%sumb : %s", m),
    scalar_to("n", format(cols, nsmall = 1), rows), scalar_to("eps", "1.0e-05", rows),
    row_reduce("psum", "p", "zero", "add", rows, cols),
    sprintf("%%mean = stablehlo.divide %%psum, %%n : %s", t32(rows)),
    by_row("meanb", "mean", rows, cols),
    sprintf("%%c = stablehlo.subtract %%p, %%meanb : %s", m),
    sprintf("%%c2 = stablehlo.multiply %%c, %%c : %s", m),
    row_reduce("ss", "c2", "zero", "add", rows, cols),
    sprintf("%%var = stablehlo.divide %%ss, %%n : %s", t32(rows)),
    sprintf("%%ve = stablehlo.add %%var, %%eps : %s", t32(rows)),
    sprintf("%%r = stablehlo.rsqrt %%ve : %s", t32(rows)), by_row("rb", "r", rows, cols),
    sprintf("%%y = stablehlo.multiply %%c, %%rb : %s", m)
  )
  main_text(c(x = m), lines, "%y", m)
}

dot <- function(out, a, b, a_type, b_type, out_type, contracting = "[1] x [0]") {
  sprintf("%%%s = stablehlo.dot_general %%%s, %%%s, contracting_dims = %s : (%s, %s) -> %s",
          out, a, b, contracting, a_type, b_type, out_type)
}

# relu(x w1 + b1) w2 + b2.
mlp_program <- function(batch, inputs, hidden, outputs) {
  lines <- c(
    dot("h", "x", "w1", t32(batch, inputs), t32(inputs, hidden), t32(batch, hidden)),
    sprintf("%%b1b = stablehlo.broadcast_in_dim %%b1, dims = [1] : (%s) -> %s", t32(hidden),
            t32(batch, hidden)),
    sprintf("%%h1 = stablehlo.add %%h, %%b1b : %s", t32(batch, hidden)),
    "%zero = stablehlo.constant dense<0.0> : tensor<f32>",
    sprintf("%%zb = stablehlo.broadcast_in_dim %%zero, dims = [] : (tensor<f32>) -> %s",
            t32(batch, hidden)),
    sprintf("%%h2 = stablehlo.maximum %%h1, %%zb : %s", t32(batch, hidden)),
    dot("o", "h2", "w2", t32(batch, hidden), t32(hidden, outputs), t32(batch, outputs)),
    sprintf("%%b2b = stablehlo.broadcast_in_dim %%b2, dims = [1] : (%s) -> %s", t32(outputs),
            t32(batch, outputs)),
    sprintf("%%y = stablehlo.add %%o, %%b2b : %s", t32(batch, outputs))
  )
  main_text(c(x = t32(batch, inputs), w1 = t32(inputs, hidden), b1 = t32(hidden),
              w2 = t32(hidden, outputs), b2 = t32(outputs)), lines, "%y", t32(batch, outputs))
}

# -(max(tanh(1.5 x + 0.5) * 2 - 0.1, 0) + x): eight element-wise ops.
chain_program <- function(n) {
  v <- t32(n)
  lines <- c(
    scalar_to("a", "1.5", n), scalar_to("b", "0.5", n), scalar_to("c", "2.0", n),
    scalar_to("d", "0.1", n), scalar_to("z", "0.0", n),
    sprintf("%%t1 = stablehlo.multiply %%a, %%x : %s", v),
    sprintf("%%t2 = stablehlo.add %%t1, %%b : %s", v),
    sprintf("%%t3 = stablehlo.tanh %%t2 : %s", v),
    sprintf("%%t4 = stablehlo.multiply %%t3, %%c : %s", v),
    sprintf("%%t5 = stablehlo.subtract %%t4, %%d : %s", v),
    sprintf("%%t6 = stablehlo.maximum %%t5, %%z : %s", v),
    sprintf("%%t7 = stablehlo.add %%t6, %%x : %s", v),
    sprintf("%%t8 = stablehlo.negate %%t7 : %s", v)
  )
  main_text(c(x = v), lines, "%t8", v)
}

# einsum("bij,bjk->bik").
einsum_program <- function(b, i, j, k) {
  lines <- sprintf(paste0("%%y = stablehlo.dot_general %%a, %%c, batching_dims = [0] x [0], ",
                          "contracting_dims = [2] x [1] : (%s, %s) -> %s"),
                   t32(b, i, j), t32(b, j, k), t32(b, i, k))
  main_text(c(a = t32(b, i, j), c = t32(b, j, k)), lines, "%y", t32(b, i, k))
}

# jnp.argmax(x, axis=1): the first index of each row's largest value.
argmax_program <- function(rows, cols) {
  lines <- c(
    sprintf("%%iota = stablehlo.iota dim = 1 : %s", ti32(rows, cols)),
    "%ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>",
    "%izero = stablehlo.constant dense<0> : tensor<i32>",
    "%r:2 = \"stablehlo.reduce\"(%x, %iota, %ninf, %izero) ({",
    "^bb0(%a: tensor<f32>, %b: tensor<i32>, %c: tensor<f32>, %d: tensor<i32>):",
    "  %gt = stablehlo.compare GT, %a, %c, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>",
    "  %eq = stablehlo.compare EQ, %a, %c, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>",
    "  %lt = stablehlo.compare LT, %b, %d, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>",
    "  %tie = stablehlo.and %eq, %lt : tensor<i1>",
    "  %keep = stablehlo.or %gt, %tie : tensor<i1>",
    "  %v = stablehlo.select %keep, %a, %c : tensor<i1>, tensor<f32>",
    "  %i = stablehlo.select %keep, %b, %d : tensor<i1>, tensor<i32>",
    "  \"stablehlo.return\"(%v, %i) : (tensor<f32>, tensor<i32>) -> ()",
    sprintf("}) {dimensions = array<i64: 1>} : (%s, %s, tensor<f32>, tensor<i32>) -> (%s, %s)",
            t32(rows, cols), ti32(rows, cols), t32(rows), ti32(rows))
  )
  main_text(c(x = t32(rows, cols)), lines, "%r#1", ti32(rows))
}

# table[idx, ] with 0-based i32 indices.
embedding_program <- function(vocab, width, count) {
  lines <- c(
    sprintf("%%i2 = stablehlo.reshape %%idx : (%s) -> %s", ti32(count), ti32(count, 1)),
    sprintf(paste0("%%y = \"stablehlo.gather\"(%%table, %%i2) {dimension_numbers = ",
                   "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], ",
                   "start_index_map = [0], index_vector_dim = 1>, slice_sizes = array<i64: 1, %d>, ",
                   "indices_are_sorted = false} : (%s, %s) -> %s"),
            width, t32(vocab, width), ti32(count, 1), t32(count, width))
  )
  main_text(c(table = t32(vocab, width), idx = ti32(count)), lines, "%y", t32(count, width))
}

# jnp.cumsum as JAX lowers it on CPU: a reduce_window over the whole, padded vector.
cumsum_program <- function(n) {
  lines <- c(
    "%z = stablehlo.constant dense<0.0> : tensor<f32>",
    "%y = \"stablehlo.reduce_window\"(%x, %z) ({",
    "^bb0(%a: tensor<f32>, %b: tensor<f32>):",
    "  %s = stablehlo.add %a, %b : tensor<f32>",
    "  \"stablehlo.return\"(%s) : (tensor<f32>) -> ()",
    sprintf(paste0("}) {window_dimensions = array<i64: %s>, padding = dense<[[%s, 0]]> : ",
                   "tensor<1x2xi64>} : (%s, tensor<f32>) -> %s"),
            format(n, scientific = FALSE), format(n - 1, scientific = FALSE), t32(n), t32(n))
  )
  main_text(c(x = t32(n)), lines, "%y", t32(n))
}

# h <- tanh(h w + xs[t]) for t in 1..steps, as a while loop (lax.scan's lowering).
rnn_program <- function(steps, batch, width) {
  h <- t32(batch, width)
  lines <- c(
    "%zero = stablehlo.constant dense<0> : tensor<i64>",
    "%one = stablehlo.constant dense<1> : tensor<i64>",
    sprintf("%%steps = stablehlo.constant dense<%d> : tensor<i64>", steps),
    sprintf("%%r:2 = stablehlo.while(%%i = %%zero, %%h = %%h0) : tensor<i64>, %s", h),
    "  cond {",
    "    %c = stablehlo.compare LT, %i, %steps, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>",
    "    stablehlo.return %c : tensor<i1>",
    "  } do {",
    sprintf(paste0("    %%s = stablehlo.dynamic_slice %%xs, %%i, %%zero, %%zero, sizes = [1, %d, %d]",
                   " : (%s, tensor<i64>, tensor<i64>, tensor<i64>) -> %s"),
            batch, width, t32(steps, batch, width), t32(1, batch, width)),
    sprintf("    %%xt = stablehlo.reshape %%s : (%s) -> %s", t32(1, batch, width), h),
    paste0("  ", dot("hw", "h", "w", h, t32(width, width), h)),
    sprintf("    %%a = stablehlo.add %%hw, %%xt : %s", h),
    sprintf("    %%hn = stablehlo.tanh %%a : %s", h),
    "    %in = stablehlo.add %i, %one : tensor<i64>",
    sprintf("    stablehlo.return %%in, %%hn : tensor<i64>, %s", h),
    "  }"
  )
  main_text(c(xs = t32(steps, batch, width), w = t32(width, width), h0 = h), lines, "%r#1", h)
}

# One gradient step of logistic regression: w - lr / n * t(X) (sigmoid(X w) - y).
logistic_program <- function(n, features, lr = 0.1) {
  lines <- c(
    dot("z", "x", "w", t32(n, features), t32(features), t32(n)),
    sprintf("%%p = stablehlo.logistic %%z : %s", t32(n)),
    sprintf("%%d = stablehlo.subtract %%p, %%y : %s", t32(n)),
    dot("g", "d", "x", t32(n), t32(n, features), t32(features), "[0] x [0]"),
    scalar_to("step", format(lr / n, scientific = TRUE), features),
    sprintf("%%u = stablehlo.multiply %%g, %%step : %s", t32(features)),
    sprintf("%%w2 = stablehlo.subtract %%w, %%u : %s", t32(features))
  )
  main_text(c(x = t32(n, features), y = t32(n), w = t32(features)), lines, "%w2",
            t32(features))
}

# a b of an n x k and a k x m matrix of `element`, the result of the same type (JAX's
# jnp.matmul: bf16 operands give a bf16 product).
matmul_program <- function(n, k, m, element = "f32") {
  a <- tensor(element, n, k)
  b <- tensor(element, k, m)
  main_text(c(a = a, b = b), dot("y", "a", "b", a, b, tensor(element, n, m)), "%y",
            tensor(element, n, m))
}

# jnp.linalg.cholesky: the lower factor, with the part above the diagonal (which the op leaves
# unspecified) set to zero by a select on an iota comparison, as JAX does.
cholesky_program <- function(n, element = "f64") {
  m <- tensor(element, n, n)
  lines <- c(
    sprintf("%%l = \"stablehlo.cholesky\"(%%a) {lower = true} : (%s) -> %s", m, m),
    sprintf("%%row = stablehlo.iota dim = 0 : %s", ti32(n, n)),
    sprintf("%%col = stablehlo.iota dim = 1 : %s", ti32(n, n)),
    sprintf("%%keep = stablehlo.compare GE, %%row, %%col, SIGNED : (%s, %s) -> %s", ti32(n, n),
            ti32(n, n), tensor("i1", n, n)),
    sprintf("%%zero = stablehlo.constant dense<0.0> : tensor<%s>", element),
    sprintf("%%zb = stablehlo.broadcast_in_dim %%zero, dims = [] : (tensor<%s>) -> %s", element,
            m),
    sprintf("%%y = stablehlo.select %%keep, %%l, %%zb : %s, %s", tensor("i1", n, n), m)
  )
  main_text(c(a = m), lines, "%y", m)
}

# solve(a, b) for a lower-triangular n x n `a` and an n x k `b` (lax.linalg.triangular_solve
# with left_side and lower).
triangular_solve_program <- function(n, k) {
  lines <- sprintf(paste0("%%y = \"stablehlo.triangular_solve\"(%%a, %%b) {left_side = true, ",
                          "lower = true, unit_diagonal = false, ",
                          "transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (%s, %s) -> %s"),
                   t32(n, n), t32(n, k), t32(n, k))
  main_text(c(a = t32(n, n), b = t32(n, k)), lines, "%y", t32(n, k))
}

# lax.top_k: the k largest values of each row, largest first, and their indices.
top_k_program <- function(rows, cols, k) {
  lines <- sprintf("%%r:2 = chlo.top_k(%%x, k = %d) : %s -> (%s, %s)", k, t32(rows, cols),
                   t32(rows, k), ti32(rows, k))
  main_text(c(x = t32(rows, cols)), lines, c("%r#0", "%r#1"), c(t32(rows, k), ti32(rows, k)))
}

# jnp.sort of a vector.
sort_program <- function(n) {
  v <- t32(n)
  lines <- c(
    "%y = \"stablehlo.sort\"(%x) ({",
    "^bb0(%a: tensor<f32>, %b: tensor<f32>):",
    "  %lt = stablehlo.compare LT, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>",
    "  stablehlo.return %lt : tensor<i1>",
    sprintf("}) {dimension = 0 : i64, is_stable = true} : (%s) -> %s", v, v)
  )
  main_text(c(x = v), lines, "%y", v)
}

# jax.ops.segment_sum of the rows of `data` into `segments` rows: JAX's scatter-add into zeros.
segment_sum_program <- function(rows, width, segments) {
  out <- t32(segments, width)
  lines <- c(
    "%zero = stablehlo.constant dense<0.0> : tensor<f32>",
    sprintf("%%z = stablehlo.broadcast_in_dim %%zero, dims = [] : (tensor<f32>) -> %s", out),
    sprintf("%%i = stablehlo.reshape %%ids : (%s) -> %s", ti32(rows), ti32(rows, 1)),
    "%y = \"stablehlo.scatter\"(%z, %i, %data) ({",
    "^bb0(%a: tensor<f32>, %b: tensor<f32>):",
    "  %s = stablehlo.add %a, %b : tensor<f32>",
    "  stablehlo.return %s : tensor<f32>",
    paste0("}) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], ",
           "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], ",
           "index_vector_dim = 1>, indices_are_sorted = false, unique_indices = false} : ",
           sprintf("(%s, %s, %s) -> %s", out, ti32(rows, 1), t32(rows, width), out))
  )
  main_text(c(data = t32(rows, width), ids = ti32(rows)), lines, "%y", out)
}

# jnp.fft.fft over the last dim of a complex64 matrix.
fft_program <- function(rows, n) {
  m <- tensor("complex<f32>", rows, n)
  lines <- sprintf("%%y = stablehlo.fft %%x, type =  FFT, length = [%d] : (%s) -> %s", n, m, m)
  main_text(c(x = m), lines, "%y", m)
}

# lax.conv_general_dilated of an NHWC input with an HWIO kernel, stride 1, SAME padding:
# an NHWC result.
conv_program <- function(batch, height, width, inputs, outputs, kernel = 3) {
  x <- t32(batch, height, width, inputs)
  w <- t32(kernel, kernel, inputs, outputs)
  y <- t32(batch, height, width, outputs)
  low <- (kernel - 1) %/% 2
  lines <- sprintf(paste0(
    "%%y = stablehlo.convolution(%%x, %%w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], ",
    "window = {stride = [1, 1], pad = [[%d, %d], [%d, %d]]} {batch_group_count = 1 : i64, ",
    "feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, ",
    "#stablehlo<precision DEFAULT>]} : (%s, %s) -> %s"),
    low, kernel - 1 - low, low, kernel - 1 - low, x, w, y)
  main_text(c(x = x, w = w), lines, "%y", y)
}

# flax's 3 x 3 max-pool of NHWC images (stride 1, SAME) and its gradient as jax.vjp lowers it:
# the pooled images and select_and_scatter of the cotangent `g` onto each window's first maximum.
max_pool_program <- function(batch, height, width, channels) {
  x <- t32(batch, height, width, channels)
  window <- paste0("window_dimensions = array<i64: 1, 3, 3, 1>, ",
                   "padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>")
  lines <- c(
    "%ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>",
    "%zero = stablehlo.constant dense<0.0> : tensor<f32>",
    "%y = \"stablehlo.reduce_window\"(%x, %ninf) ({",
    "^bb0(%a: tensor<f32>, %b: tensor<f32>):",
    "  %m = stablehlo.maximum %a, %b : tensor<f32>",
    "  \"stablehlo.return\"(%m) : (tensor<f32>) -> ()",
    sprintf("}) {%s} : (%s, tensor<f32>) -> %s", window, x, x),
    "%dx = \"stablehlo.select_and_scatter\"(%x, %g, %zero) ({",
    "^bb0(%a: tensor<f32>, %b: tensor<f32>):",
    "  %c = stablehlo.compare GE, %a, %b, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>",
    "  \"stablehlo.return\"(%c) : (tensor<i1>) -> ()",
    "}, {",
    "^bb0(%a: tensor<f32>, %b: tensor<f32>):",
    "  %s = stablehlo.add %a, %b : tensor<f32>",
    "  \"stablehlo.return\"(%s) : (tensor<f32>) -> ()",
    sprintf("}) {%s, window_strides = array<i64: 1, 1, 1, 1>} : (%s, %s, tensor<f32>) -> %s",
            window, x, x, x))
  main_text(c(x = x, g = x), lines, c("%y", "%dx"), c(x, x))
}

# A symmetric positive definite n x n matrix, well away from singular.
spd_matrix <- function(n) crossprod(matrix(rnorm(n * n), n)) + diag(n, n)

# A lower-triangular n x n matrix with a diagonal in [1, 2] and small entries below it, so
# that forward substitution neither grows nor loses precision.
lower_triangular <- function(n) {
  a <- matrix(rnorm(n * n) / n, n)
  a[upper.tri(a)] <- 0
  diag(a) <- 1 + runif(n)
  a
}

# name, program text, inputs (R arrays) and, where not the default of case_buffers(), the
# dtypes of their buffers, of every case.
peer_cases <- function(scale = 1) {
  s <- function(v) max(1, as.integer(v / scale))
  rows <- s(4096)
  set.seed(20261203)
  list(
    list(name = "softmax + layer norm 4096x1024", torch = "softmax_layernorm",
         program = softmax_layernorm_program(rows, 1024),
         inputs = list(matrix(rnorm(rows * 1024), rows))),
    list(name = "MLP forward 4096x512 -> 1024 -> 10", torch = "mlp",
         program = mlp_program(rows, 512, 1024, 10),
         inputs = list(matrix(rnorm(rows * 512), rows), matrix(rnorm(512 * 1024) / 20, 512),
                       rnorm(1024), matrix(rnorm(1024 * 10) / 30, 1024), rnorm(10))),
    list(name = "element-wise chain of 8 ops, 1e7", torch = "chain",
         program = chain_program(s(1e7)), inputs = list(rnorm(s(1e7)))),
    list(name = "einsum bij,bjk->bik 64x128x64x128", torch = "einsum",
         program = einsum_program(s(64), 128, 64, 128),
         inputs = list(array(rnorm(s(64) * 128 * 64), c(s(64), 128, 64)),
                       array(rnorm(s(64) * 64 * 128), c(s(64), 64, 128)))),
    list(name = "argmax over rows 1024x1000", torch = "argmax",
         program = argmax_program(s(1024), 1000),
         inputs = list(matrix(rnorm(s(1024) * 1000), s(1024)))),
    list(name = "embedding lookup 50000x256, 8192 rows", torch = "embedding",
         program = embedding_program(50000, 256, s(8192)),
         inputs = list(matrix(rnorm(50000 * 256), 50000), sample.int(50000, s(8192), TRUE) - 1L)),
    list(name = "cumsum 1e6", torch = "cumsum", program = cumsum_program(s(1e6)),
         inputs = list(rnorm(s(1e6)))),
    list(name = "scan RNN 100 steps 32x256", torch = "rnn", program = rnn_program(100, 32, 256),
         inputs = list(array(rnorm(100 * 32 * 256), c(100, 32, 256)),
                       matrix(rnorm(256 * 256) / 16, 256), matrix(0, 32, 256))),
    list(name = "logistic-regression step 10000x100", torch = "logistic",
         program = logistic_program(s(10000), 100),
         inputs = list(matrix(rnorm(s(10000) * 100), s(10000)),
                       as.numeric(runif(s(10000)) < 0.5), rnorm(100) / 10)),
    list(name = "matmul f32 1024x1024", torch = "matmul",
         program = matmul_program(s(1024), 1024, 1024),
         inputs = list(matrix(rnorm(s(1024) * 1024), s(1024)), matrix(rnorm(1024 * 1024), 1024))),
    list(name = "matmul bf16 1024x1024", torch = "matmul_bf16",
         program = matmul_program(s(1024), 1024, 1024, "bf16"),
         inputs = list(matrix(rnorm(s(1024) * 1024), s(1024)), matrix(rnorm(1024 * 1024), 1024)),
         dtypes = c("bf16", "bf16")),
    list(name = "cholesky f64 1000", torch = "cholesky", program = cholesky_program(s(1000)),
         inputs = list(spd_matrix(s(1000))), dtypes = "f64"),
    list(name = "cholesky f32 1000", torch = "cholesky_f32",
         program = cholesky_program(s(1000), "f32"), inputs = list(spd_matrix(s(1000)))),
    list(name = "triangular_solve f32 1000, 100 columns", torch = "triangular_solve",
         program = triangular_solve_program(s(1000), 100),
         inputs = list(lower_triangular(s(1000)), matrix(rnorm(s(1000) * 100), s(1000)))),
    list(name = "top_k 10 over rows 4096x1000", torch = "top_k",
         program = top_k_program(rows, 1000, 10), inputs = list(matrix(rnorm(rows * 1000), rows))),
    list(name = "sort 1e5", torch = "sort", program = sort_program(s(1e5)),
         inputs = list(rnorm(s(1e5)))),
    list(name = "segment_sum 100000x64 into 1000", torch = "segment_sum",
         program = segment_sum_program(s(1e5), 64, 1000),
         inputs = list(matrix(rnorm(s(1e5) * 64), s(1e5)), sample.int(1000, s(1e5), TRUE) - 1L)),
    list(name = "fft 256x4096 complex64", torch = "fft", program = fft_program(s(256), 4096),
         inputs = list(matrix(complex(real = rnorm(s(256) * 4096),
                                      imaginary = rnorm(s(256) * 4096)), s(256)))),
    list(name = "conv 3x3 SAME 32x56x56x64 -> 64", torch = "conv_resnet",
         program = conv_program(s(32), 56, 56, 64, 64),
         inputs = list(array(rnorm(s(32) * 56 * 56 * 64), c(s(32), 56, 56, 64)),
                       array(rnorm(3 * 3 * 64 * 64) / 24, c(3, 3, 64, 64)))),
    list(name = "conv 3x3 SAME 64x28x28x16 -> 32", torch = "conv_lenet",
         program = conv_program(s(64), 28, 28, 16, 32),
         inputs = list(array(rnorm(s(64) * 28 * 28 * 16), c(s(64), 28, 28, 16)),
                       array(rnorm(3 * 3 * 16 * 32) / 12, c(3, 3, 16, 32)))),
    list(name = "max-pool 3x3 SAME 16x64x64x32 + gradient", torch = "max_pool",
         program = max_pool_program(s(16), 64, 64, 32),
         inputs = list(array(rnorm(s(16) * 64 * 64 * 32), c(s(16), 64, 64, 32)),
                       array(rnorm(s(16) * 64 * 64 * 32), c(s(16), 64, 64, 32))))
  )
}

# Buffers of a case's inputs, of the dtypes the case names (`dtypes`, one per input); without
# them f32, integer vectors (indices) i32 and complex arrays c64.
case_buffers <- function(case) {
  lapply(seq_along(case$inputs), function(i) {
    x <- case$inputs[[i]]
    dtype <- if (!is.null(case$dtypes)) case$dtypes[[i]] else if (is.integer(x)) "i32" else
      if (is.complex(x)) "c64" else "f32"
    pjrt_buffer(x, dtype = dtype)
  })
}
