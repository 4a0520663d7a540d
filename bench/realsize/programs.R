# The programs of bench/realsize.R, each in the text JAX's lowering prints (jax.jit(f).lower(...)
# .as_text()): a module with JAX's attributes, %argN parameters, %cst / %c constants and ops in
# their pretty forms, with the data, the base R equivalent and the tolerance of the check.
# Sourced by bench/realsize.R (this folder is not run by `make bench` on its own).

tensor <- function(dtype, ...) {
  dims <- c(...)
  if (length(dims) == 0) return(sprintf("tensor<%s>", dtype))
  sprintf("tensor<%sx%s>", paste(format(dims, scientific = FALSE, trim = TRUE), collapse = "x"),
          dtype)
}
f32 <- function(...) tensor("f32", ...)
i32 <- function(...) tensor("i32", ...)

# A module as JAX prints it: `arg_types` of %arg0.., `body` lines, `results` (names) of types.
jax_module <- function(name, arg_types, body, results, result_types) {
  params <- sprintf("%%arg%d: %s", seq_along(arg_types) - 1L, arg_types)
  outs <- sprintf("%s {jax.result_info = \"\"}", result_types)
  paste0(
    "module @jit_", name, " attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {\n",
    "  func.func public @main(", paste(params, collapse = ", "), ") -> (",
    paste(outs, collapse = ", "), ") {\n",
    paste0("    ", unlist(body), collapse = "\n"), "\n",
    "    return ", paste(results, collapse = ", "), " : ", paste(result_types, collapse = ", "),
    "\n  }\n}\n")
}

spec <- function(name, text, args, reference, tolerance) {
  list(name = name, text = text, args = args, reference = reference, tolerance = tolerance)
}

# f32 buffer of an R array, and the array of the f32 values it holds.
f32_data <- function(x) {
  buffer <- pjrt_buffer(x, dtype = "f32")
  values <- as_array(buffer)
  if (length(dim(values)) == 1) values <- as.vector(values)
  list(buffer = buffer, values = values)
}

# jnp.cumsum / cumprod / cummax along `axis` (1-based): reduce_window over the whole axis with
# padding (n - 1, 0).
cumulative_spec <- function(label, shape, axis, body, init, values, r_fun) {
  type <- f32(shape)
  window <- replace(rep(1L, length(shape)), axis, shape[axis])
  low <- replace(rep(0L, length(shape)), axis, shape[axis] - 1L)
  padding <- paste(sprintf("[%d, 0]", low), collapse = ", ")
  text <- jax_module(paste0("cum", body), type, c(
    sprintf("%%cst = stablehlo.constant dense<%s> : tensor<f32>", init),
    sprintf(paste0("%%0 = \"stablehlo.reduce_window\"(%%arg0, %%cst) <{padding = dense<[%s]> : ",
                   "tensor<%dx2xi64>, window_dimensions = array<i64: %s>}> ({"),
            padding, length(shape), paste(window, collapse = ", ")),
    "^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):",
    sprintf("  %%1 = stablehlo.%s %%arg1, %%arg2 : tensor<f32>", body),
    "  stablehlo.return %1 : tensor<f32>",
    sprintf("}) : (%s, tensor<f32>) -> %s", type, type)), "%0", type)
  x <- f32_data(array(values(prod(shape)), shape))
  reference <- if (length(shape) == 1) function() r_fun(x$values) else if (axis == 1)
    function() apply(x$values, 2, r_fun) else function() t(apply(x$values, 1, r_fun))
  tolerance <- switch(body, add = 1e-4, multiply = 1e-3, maximum = 0)
  spec(sprintf("%s, %s", label, paste(shape, collapse = " x ")), text, list(x$buffer),
       reference, tolerance)
}

cumulative_specs <- function() {
  near_one <- function(n) exp(rnorm(n, sd = 0.01))
  shapes <- list(list(16384, 1), list(c(4096, 64), 1), list(c(1024, 256), 2))
  unlist(lapply(shapes, function(s) list(
    cumulative_spec("cumsum", s[[1]], s[[2]], "add", "0.000000e+00", runif, cumsum),
    cumulative_spec("cumprod", s[[1]], s[[2]], "multiply", "1.000000e+00", near_one, cumprod),
    cumulative_spec("cummax", s[[1]], s[[2]], "maximum", "0xFF800000", rnorm, cummax))),
    recursive = FALSE)
}

# jnp.argmax / argmin along axis 1: a variadic reduce of (values, iota) with JAX's body (NaN
# wins, ties take the lower index).
argminmax_spec <- function(direction) {
  rows <- 1024; cols <- 1000
  init <- if (direction == "GT") "0xFF800000" else "0x7F800000"
  text <- jax_module(if (direction == "GT") "argmax" else "argmin", f32(rows, cols), c(
    sprintf("%%0 = stablehlo.iota dim = 1 : %s", i32(rows, cols)),
    sprintf("%%cst = stablehlo.constant dense<%s> : tensor<f32>", init),
    "%c = stablehlo.constant dense<0> : tensor<i32>",
    sprintf(paste0("%%1:2 = stablehlo.reduce(%%arg0 init: %%cst), (%%0 init: %%c) across ",
                   "dimensions = [1] : (%s, %s, tensor<f32>, tensor<i32>) -> (%s, %s)"),
            f32(rows, cols), i32(rows, cols), f32(rows), i32(rows)),
    " reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {",
    sprintf("  %%2 = stablehlo.compare  %s, %%arg1, %%arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>", direction),
    "  %3 = stablehlo.compare  NE, %arg1, %arg1,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>",
    "  %4 = stablehlo.or %2, %3 : tensor<i1>",
    "  %5 = stablehlo.compare  EQ, %arg1, %arg3,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>",
    "  %6 = stablehlo.compare  LT, %arg2, %arg4,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>",
    "  %7 = stablehlo.and %5, %6 : tensor<i1>",
    "  %8 = stablehlo.or %4, %7 : tensor<i1>",
    "  %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f32>",
    "  %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i32>",
    "  stablehlo.return %9, %10 : tensor<f32>, tensor<i32>",
    "}"), "%1#1", i32(rows))
  x <- f32_data(matrix(rnorm(rows * cols), rows))
  sign <- if (direction == "GT") 1 else -1
  spec(sprintf("%s, 1024 x 1000", if (direction == "GT") "argmax" else "argmin"), text,
       list(x$buffer), function() max.col(sign * x$values, ties.method = "first") - 1L, 0)
}

# JAX's sort comparator: both keys with -0 and NaN canonicalised, then LT in total order.
canonical_lines <- function(value, out, tag) c(
  sprintf("  %%cst_z%s = stablehlo.constant dense<0.000000e+00> : tensor<f32>", tag),
  sprintf("  %%eq%s = stablehlo.compare  EQ, %s, %%cst_z%s,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>", tag, value, tag),
  sprintf("  %%z%s = stablehlo.select %%eq%s, %%cst_z%s, %s : tensor<i1>, tensor<f32>", tag, tag, tag, value),
  sprintf("  %%ne%s = stablehlo.compare  NE, %s, %s,  FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>", tag, value, value),
  sprintf("  %%cst_n%s = stablehlo.constant dense<0x7FC00000> : tensor<f32>", tag),
  sprintf("  %s = stablehlo.select %%ne%s, %%cst_n%s, %%z%s : tensor<i1>, tensor<f32>", out, tag, tag, tag))

sort_spec <- function(n, with_indices) {
  type <- f32(n)
  block_args <- if (with_indices)
    "^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>, %arg3: tensor<i32>, %arg4: tensor<i32>):" else
    "^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):"
  operands <- if (with_indices) "%arg0, %0" else "%arg0"
  types <- if (with_indices) sprintf("(%s, %s) -> (%s, %s)", type, i32(n), type, i32(n)) else
    sprintf("(%s) -> %s", type, type)
  text <- jax_module(if (with_indices) "argsort" else "sort", type, c(
    if (with_indices) sprintf("%%0 = stablehlo.iota dim = 0 : %s", i32(n)),
    sprintf("%%1%s = \"stablehlo.sort\"(%s) <{dimension = 0 : i64, is_stable = true}> ({",
            if (with_indices) ":2" else "", operands),
    block_args, canonical_lines("%arg1", "%a", "a"), canonical_lines("%arg2", "%b", "b"),
    "  %lt = stablehlo.compare  LT, %a, %b,  TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>",
    "  stablehlo.return %lt : tensor<i1>",
    sprintf("}) : %s", types)), if (with_indices) "%1#1" else "%1",
    if (with_indices) i32(n) else type)
  x <- f32_data(rnorm(n))
  reference <- if (with_indices) function() order(x$values) - 1L else function() sort(x$values)
  spec(sprintf("%s of %s", if (with_indices) "argsort" else "sort", format(n, scientific = TRUE)),
       text, list(x$buffer), reference, 0)
}

top_k_spec <- function() {
  rows <- 1024; cols <- 1000; k <- 10
  text <- jax_module("top_k", f32(rows, cols), sprintf(
    "%%0:2 = chlo.top_k(%%arg0, k = %d) : %s -> (%s, %s)", k, f32(rows, cols), f32(rows, k),
    i32(rows, k)), c("%0#0", "%0#1"), c(f32(rows, k), i32(rows, k)))
  x <- f32_data(matrix(rnorm(rows * cols), rows))
  reference <- function() {
    index <- t(apply(x$values, 1, function(r) order(r, decreasing = TRUE)[seq_len(k)]))
    list(matrix(x$values[cbind(as.vector(base::row(index)), as.vector(index))], rows), index - 1L)
  }
  spec("top_k (k = 10), 1024 x 1000", text, list(x$buffer), reference, 0)
}

dot_line <- function(out, lhs, rhs, dims, lhs_type, rhs_type, out_type) {
  sprintf("%s = stablehlo.dot_general %s, %s, %s, precision = [DEFAULT, DEFAULT] : (%s, %s) -> %s",
          out, lhs, rhs, dims, lhs_type, rhs_type, out_type)
}

# jnp.einsum("bij,bjk->bik"): 64 products of 128 x 64 by 64 x 128.
einsum_spec <- function() {
  a <- f32_data(array(rnorm(64 * 128 * 64), c(64, 128, 64)))
  b <- f32_data(array(rnorm(64 * 64 * 128), c(64, 64, 128)))
  text <- jax_module("einsum", c(f32(64, 128, 64), f32(64, 64, 128)), dot_line(
    "%0", "%arg0", "%arg1", "batching_dims = [0] x [0], contracting_dims = [2] x [1]",
    f32(64, 128, 64), f32(64, 64, 128), f32(64, 128, 128)), "%0", f32(64, 128, 128))
  reference <- function() {
    out <- array(0, c(64, 128, 128))
    for (i in seq_len(64)) out[i, , ] <- a$values[i, , ] %*% b$values[i, , ]
    out
  }
  spec("einsum bij,bjk->bik, 64 x (128x64)(64x128)", text, list(a$buffer, b$buffer), reference,
       1e-5)
}

# x @ y at 1024^3 in f32 or bf16 (bf16 results, as jnp.matmul of two bf16 arrays gives).
matmul_spec <- function(dtype) {
  n <- 1024
  a <- pjrt_buffer(matrix(runif(n * n), n), dtype = dtype)
  b <- pjrt_buffer(matrix(runif(n * n), n), dtype = dtype)
  a_values <- as_array(a); b_values <- as_array(b)
  type <- tensor(dtype, n, n)
  text <- jax_module("matmul", c(type, type),
                     dot_line("%0", "%arg0", "%arg1", "contracting_dims = [1] x [0]", type, type,
                              type), "%0", type)
  spec(sprintf("matmul 1024^3, %s", dtype), text, list(a, b), function() a_values %*% b_values,
       if (dtype == "bf16") 1e-2 else 1e-5)
}

# jax.ops.segment_sum(data, ids, 1000): scatter-add of 100000 rows of 32 into 1000 segments.
segment_sum_spec <- function() {
  rows <- 100000; width <- 32; segments <- 1000
  data <- f32_data(matrix(runif(rows * width), rows))
  ids <- sample(rep(seq_len(segments) - 1L, length.out = rows))
  text <- jax_module("segment_sum", c(f32(rows, width), i32(rows)), c(
    "%cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>",
    sprintf("%%0 = stablehlo.broadcast_in_dim %%cst, dims = [] : (tensor<f32>) -> %s",
            f32(segments, width)),
    sprintf("%%1 = stablehlo.broadcast_in_dim %%arg1, dims = [0] : (%s) -> %s", i32(rows),
            i32(rows, 1)),
    paste0("%2 = \"stablehlo.scatter\"(%0, %1, %arg0) <{indices_are_sorted = false, ",
           "scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], ",
           "inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, ",
           "unique_indices = false}> ({"),
    "^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):",
    "  %3 = stablehlo.add %arg2, %arg3 : tensor<f32>",
    "  stablehlo.return %3 : tensor<f32>",
    sprintf("}) : (%s, %s, %s) -> %s", f32(segments, width), i32(rows, 1), f32(rows, width),
            f32(segments, width))), "%2", f32(segments, width))
  reference <- function() unname(rowsum(data$values, ids))
  spec("segment_sum, 100000 x 32 into 1000", text,
       list(data$buffer, pjrt_buffer(ids, dtype = "i32")), reference, 1e-5)
}

# table[ids] (jnp indexing: negative indices wrap, then a gather of whole rows).
embedding_spec <- function() {
  vocabulary <- 50000; width <- 128; count <- 4096
  table <- f32_data(matrix(rnorm(vocabulary * width), vocabulary))
  ids <- sample.int(vocabulary, count, replace = TRUE) - 1L
  text <- jax_module("take", c(f32(vocabulary, width), i32(count)), c(
    "%c = stablehlo.constant dense<0> : tensor<i32>",
    sprintf("%%0 = stablehlo.broadcast_in_dim %%c, dims = [] : (tensor<i32>) -> %s", i32(count)),
    sprintf("%%1 = stablehlo.compare  LT, %%arg1, %%0,  SIGNED : (%s, %s) -> %s", i32(count),
            i32(count), tensor("i1", count)),
    sprintf("%%c_0 = stablehlo.constant dense<%d> : tensor<i32>", vocabulary),
    sprintf("%%2 = stablehlo.broadcast_in_dim %%c_0, dims = [] : (tensor<i32>) -> %s", i32(count)),
    sprintf("%%3 = stablehlo.add %%arg1, %%2 : %s", i32(count)),
    sprintf("%%4 = stablehlo.select %%1, %%3, %%arg1 : %s, %s", tensor("i1", count), i32(count)),
    sprintf("%%5 = stablehlo.broadcast_in_dim %%4, dims = [0] : (%s) -> %s", i32(count),
            i32(count, 1)),
    sprintf(paste0("%%6 = \"stablehlo.gather\"(%%arg0, %%5) <{dimension_numbers = ",
                   "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], ",
                   "start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, ",
                   "slice_sizes = array<i64: 1, %d>}> : (%s, %s) -> %s"),
            width, f32(vocabulary, width), i32(count, 1), f32(count, width))),
    "%6", f32(count, width))
  spec("embedding take, 4096 of 50000 x 128", text,
       list(table$buffer, pjrt_buffer(ids, dtype = "i32")),
       function() table$values[ids + 1L, , drop = FALSE], 0)
}

# lax.fori_loop(0, 100, body, v) with body v -> (A v) / |A v|: a while loop carrying the
# counter, the closed-over matrix and the vector, as JAX's lowering does.
power_iteration_spec <- function() {
  n <- 512; steps <- 100
  a <- f32_data(matrix(runif(n * n), n))
  v0 <- f32_data(rep(1 / sqrt(n), n))
  text <- jax_module("power", c(f32(n, n), f32(n)), c(
    "%c = stablehlo.constant dense<0> : tensor<i32>",
    sprintf("%%0:3 = stablehlo.while(%%iterArg = %%c, %%iterArg_0 = %%arg0, %%iterArg_1 = %%arg1) : tensor<i32>, %s, %s",
            f32(n, n), f32(n)),
    " cond {",
    sprintf("  %%c_2 = stablehlo.constant dense<%d> : tensor<i32>", steps),
    "  %1 = stablehlo.compare  LT, %iterArg, %c_2,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>",
    "  stablehlo.return %1 : tensor<i1>",
    "} do {",
    paste0("  ", dot_line("%1", "%iterArg_0", "%iterArg_1", "contracting_dims = [1] x [0]",
                          f32(n, n), f32(n), f32(n))),
    sprintf("  %%2 = stablehlo.multiply %%1, %%1 : %s", f32(n)),
    "  %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>",
    sprintf("  %%3 = stablehlo.reduce(%%2 init: %%cst) applies stablehlo.add across dimensions = [0] : (%s, tensor<f32>) -> tensor<f32>", f32(n)),
    "  %4 = stablehlo.sqrt %3 : tensor<f32>",
    sprintf("  %%5 = stablehlo.broadcast_in_dim %%4, dims = [] : (tensor<f32>) -> %s", f32(n)),
    sprintf("  %%6 = stablehlo.divide %%1, %%5 : %s", f32(n)),
    "  %c_3 = stablehlo.constant dense<1> : tensor<i32>",
    "  %7 = stablehlo.add %iterArg, %c_3 : tensor<i32>",
    sprintf("  stablehlo.return %%7, %%iterArg_0, %%6 : tensor<i32>, %s, %s", f32(n, n), f32(n)),
    "}"), "%0#2", f32(n))
  reference <- function() {
    v <- v0$values
    for (i in seq_len(steps)) {
      w <- a$values %*% v
      v <- w / sqrt(sum(w * w))
    }
    drop(v)
  }
  spec("fori_loop power iteration, 100 x 512^2", text, list(a$buffer, v0$buffer), reference,
       1e-5)
}

# lax.scan of h -> tanh(W h + U x_t + b) over 128 steps of 64 inputs, 128 hidden, stacking
# every h: a while loop carrying the counter, the closed-over arrays, h and the stacked output;
# x_t is a dynamic_slice, the output a dynamic_update_slice (indices wrapped as JAX does).
rnn_body <- function(steps, inputs, hidden) {
  carried <- c("tensor<i32>", f32(steps, inputs), f32(hidden, hidden), f32(hidden, inputs),
               f32(hidden), f32(hidden), f32(steps, hidden))
  c(sprintf("  %%c_0 = stablehlo.constant dense<0> : tensor<i32>"),
    "  %1 = stablehlo.compare  LT, %iterArg, %c_0,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>",
    sprintf("  %%c_1 = stablehlo.constant dense<%d> : tensor<i32>", steps),
    "  %2 = stablehlo.add %iterArg, %c_1 : tensor<i32>",
    "  %3 = stablehlo.select %1, %2, %iterArg : tensor<i1>, tensor<i32>",
    sprintf("  %%4 = stablehlo.dynamic_slice %%iterArg_0, %%3, %%c_0, sizes = [1, %d] : (%s, tensor<i32>, tensor<i32>) -> %s",
            inputs, f32(steps, inputs), f32(1, inputs)),
    sprintf("  %%5 = stablehlo.reshape %%4 : (%s) -> %s", f32(1, inputs), f32(inputs)),
    paste0("  ", dot_line("%6", "%iterArg_1", "%iterArg_4", "contracting_dims = [1] x [0]",
                          f32(hidden, hidden), f32(hidden), f32(hidden))),
    paste0("  ", dot_line("%7", "%iterArg_2", "%5", "contracting_dims = [1] x [0]",
                          f32(hidden, inputs), f32(inputs), f32(hidden))),
    sprintf("  %%8 = stablehlo.add %%6, %%7 : %s", f32(hidden)),
    sprintf("  %%9 = stablehlo.add %%8, %%iterArg_3 : %s", f32(hidden)),
    sprintf("  %%10 = stablehlo.tanh %%9 : %s", f32(hidden)),
    sprintf("  %%11 = stablehlo.broadcast_in_dim %%10, dims = [1] : (%s) -> %s", f32(hidden),
            f32(1, hidden)),
    sprintf("  %%12 = stablehlo.dynamic_update_slice %%iterArg_5, %%11, %%3, %%c_0 : (%s, %s, tensor<i32>, tensor<i32>) -> %s",
            f32(steps, hidden), f32(1, hidden), f32(steps, hidden)),
    "  %c_2 = stablehlo.constant dense<1> : tensor<i32>",
    "  %13 = stablehlo.add %iterArg, %c_2 : tensor<i32>",
    sprintf("  stablehlo.return %%13, %%iterArg_0, %%iterArg_1, %%iterArg_2, %%iterArg_3, %%10, %%12 : %s",
            paste(carried, collapse = ", ")))
}

rnn_spec <- function() {
  steps <- 128; inputs <- 64; hidden <- 128
  xs <- f32_data(matrix(rnorm(steps * inputs), steps))
  w <- f32_data(matrix(rnorm(hidden * hidden, sd = 0.08), hidden))
  u <- f32_data(matrix(rnorm(hidden * inputs, sd = 0.1), hidden))
  b <- f32_data(rnorm(hidden, sd = 0.1))
  h0 <- f32_data(rep(0, hidden))
  carried <- c("tensor<i32>", f32(steps, inputs), f32(hidden, hidden), f32(hidden, inputs),
               f32(hidden), f32(hidden), f32(steps, hidden))
  text <- jax_module("scan", carried[2:6], c(
    "%c = stablehlo.constant dense<0> : tensor<i32>",
    "%cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>",
    sprintf("%%0 = stablehlo.broadcast_in_dim %%cst, dims = [] : (tensor<f32>) -> %s",
            f32(steps, hidden)),
    sprintf(paste0("%%1:7 = stablehlo.while(%%iterArg = %%c, %%iterArg_0 = %%arg0, %%iterArg_1 = %%arg1, ",
                   "%%iterArg_2 = %%arg2, %%iterArg_3 = %%arg3, %%iterArg_4 = %%arg4, %%iterArg_5 = %%0) : %s"),
            paste(carried, collapse = ", ")),
    " cond {",
    sprintf("  %%c_0 = stablehlo.constant dense<%d> : tensor<i32>", steps),
    "  %2 = stablehlo.compare  LT, %iterArg, %c_0,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>",
    "  stablehlo.return %2 : tensor<i1>",
    "} do {", rnn_body(steps, inputs, hidden), "}"), c("%1#5", "%1#6"),
    c(f32(hidden), f32(steps, hidden)))
  reference <- function() {
    h <- h0$values
    ys <- matrix(0, steps, hidden)
    for (t in seq_len(steps)) {
      h <- tanh(w$values %*% h + u$values %*% xs$values[t, ] + b$values)
      ys[t, ] <- h
    }
    list(drop(h), ys)
  }
  spec("scan RNN, 128 steps of 64 -> 128", text,
       list(xs$buffer, w$buffer, u$buffer, b$buffer, h0$buffer), reference, 1e-5)
}
