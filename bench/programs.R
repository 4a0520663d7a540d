# Programs (PROGRAMS.md section 5): element-wise ops, a fused chain, reductions, dot_general,
# compile time, per-call overhead and a two-layer perceptron, each as a ratio against a
# baseline timed in this process. Run with `make bench` (or Rscript bench/programs.R).
source(file.path("bench", "helpers.R"))

compile_text <- function(text) pjrt_compile(pjrt_program(text))

# A one-function program over `args` (name -> type) whose body is `lines`, returning `result`.
program_text <- function(args, lines, result, result_type) {
  params <- paste0("%", names(args), ": ", args, collapse = ", ")
  paste0("func.func @main(", params, ") -> ", result_type, " {\n",
         paste0("  ", lines, collapse = "\n"),
         "\n  return ", result, " : ", result_type, "\n}\n")
}

dims_text <- function(...) paste(format(c(...), scientific = FALSE, trim = TRUE), collapse = "x")
f32_vector <- function(n) sprintf("tensor<%sxf32>", dims_text(n))

scalar_broadcasts <- function(names, type) {
  sprintf("%%%s_b = stablehlo.broadcast_in_dim %%%s, dims = [] : (tensor<f32>) -> %s",
          names, names, type)
}

# tanh(a * x + b) * c - d, then max(., 0) + x, negated: eight element-wise ops fed by four
# scalar broadcasts.
chain_program <- function(n) {
  type <- f32_vector(n)
  body <- c(
    scalar_broadcasts(c("a", "b", "c", "d"), type),
    sprintf("%%zero = stablehlo.constant dense<0.0> : %s", type),
    sprintf("%%t1 = stablehlo.multiply %%a_b, %%x : %s", type),
    sprintf("%%t2 = stablehlo.add %%t1, %%b_b : %s", type),
    sprintf("%%t3 = stablehlo.tanh %%t2 : %s", type),
    sprintf("%%t4 = stablehlo.multiply %%t3, %%c_b : %s", type),
    sprintf("%%t5 = stablehlo.subtract %%t4, %%d_b : %s", type),
    sprintf("%%t6 = stablehlo.maximum %%t5, %%zero : %s", type),
    sprintf("%%t7 = stablehlo.add %%t6, %%x : %s", type),
    sprintf("%%t8 = stablehlo.negate %%t7 : %s", type)
  )
  args <- c(x = type, a = "tensor<f32>", b = "tensor<f32>", c = "tensor<f32>", d = "tensor<f32>")
  program_text(args, body, "%t8", type)
}

# A chain of `ops` element-wise ops over a 16-element vector, for compile time.
long_program <- function(ops) {
  type <- f32_vector(16)
  kinds <- c("add", "multiply", "subtract", "maximum")
  body <- sprintf("%%v%d = stablehlo.%s %%v%d, %%x : %s", seq_len(ops),
                  kinds[(seq_len(ops) - 1) %% 4 + 1], seq_len(ops) - 1, type)
  body <- c(sprintf("%%v0 = stablehlo.abs %%x : %s", type), body)
  program_text(c(x = type), body, sprintf("%%v%d", ops), type)
}

# tanh(x %*% w1 + b1) %*% w2 + b2 with row-major shapes (batch x features).
mlp_program <- function(batch, inputs, hidden, outputs) {
  t <- function(...) sprintf("tensor<%sxf32>", dims_text(...))
  body <- c(
    sprintf("%%h = stablehlo.dot_general %%x, %%w1, contracting_dims = [1] x [0] : (%s, %s) -> %s",
            t(batch, inputs), t(inputs, hidden), t(batch, hidden)),
    sprintf("%%b1b = stablehlo.broadcast_in_dim %%b1, dims = [1] : (%s) -> %s", t(hidden),
            t(batch, hidden)),
    sprintf("%%h1 = stablehlo.add %%h, %%b1b : %s", t(batch, hidden)),
    sprintf("%%h2 = stablehlo.tanh %%h1 : %s", t(batch, hidden)),
    sprintf("%%o = stablehlo.dot_general %%h2, %%w2, contracting_dims = [1] x [0] : (%s, %s) -> %s",
            t(batch, hidden), t(hidden, outputs), t(batch, outputs)),
    sprintf("%%b2b = stablehlo.broadcast_in_dim %%b2, dims = [1] : (%s) -> %s", t(outputs),
            t(batch, outputs)),
    sprintf("%%y = stablehlo.add %%o, %%b2b : %s", t(batch, outputs))
  )
  args <- c(x = t(batch, inputs), w1 = t(inputs, hidden), b1 = t(hidden),
            w2 = t(hidden, outputs), b2 = t(outputs))
  program_text(args, body, "%y", t(batch, outputs))
}

sum_program <- function(shape, dims) {
  in_type <- sprintf("tensor<%sxf32>", dims_text(shape))
  kept <- shape[-(dims + 1)]
  out_type <- if (length(kept)) sprintf("tensor<%sxf32>", dims_text(kept)) else
    "tensor<f32>"
  body <- c(
    "%zero = stablehlo.constant dense<0.0> : tensor<f32>",
    sprintf(paste0("%%s = stablehlo.reduce(%%x init: %%zero) applies stablehlo.add across ",
                   "dimensions = [%s] : (%s, tensor<f32>) -> %s"),
            paste(dims, collapse = ", "), in_type, out_type)
  )
  program_text(c(x = in_type), body, "%s", out_type)
}

n <- bench_n
x_double <- runif(n)
baseline <- time_median(x_double + 0)

x32 <- pjrt_buffer(x_double, dtype = "f32")
y32 <- pjrt_buffer(rev(x_double), dtype = "f32")
add_exe <- compile_text(program_text(c(x = f32_vector(n), y = f32_vector(n)),
                                     sprintf("%%s = stablehlo.add %%x, %%y : %s", f32_vector(n)),
                                     "%s", f32_vector(n)))
add_seconds <- time_median(pjrt_execute(add_exe, x32, y32))

scalar <- function(v) pjrt_scalar(v, dtype = "f32")
chain_exe <- compile_text(chain_program(n))
chain_args <- list(x32, scalar(0.5), scalar(0.25), scalar(2), scalar(0.1))
chain_seconds <- time_median(do.call(pjrt_execute, c(list(chain_exe), chain_args)))

sum_exe <- compile_text(sum_program(n, 0))
sum_seconds <- time_median(pjrt_execute(sum_exe, x32))
side <- floor(sqrt(n))
matrix32 <- pjrt_buffer(matrix(x_double[seq_len(side * side)], side), dtype = "f32")
inner_exe <- compile_text(sum_program(c(side, side), 1))
outer_exe <- compile_text(sum_program(c(side, side), 0))
inner_seconds <- time_median(pjrt_execute(inner_exe, matrix32))
outer_seconds <- time_median(pjrt_execute(outer_exe, matrix32))

report(list(
  row("add, two f32 vectors", add_seconds, 0.5),
  row("sum of an f32 vector (reduce over all)", sum_seconds, 0.3),
  row("sum over the inner axis of an f32 matrix", inner_seconds, 0.3),
  row("sum over the outer axis of an f32 matrix", outer_seconds, 0.3)
), "x + 0 (double)", baseline)

report(list(
  row("8-op element-wise chain (tanh(a*x+b)*c-d, max, add, negate)", chain_seconds, 1.5)
), "add, two f32 vectors", add_seconds)

# Peak memory of the chain beyond its inputs, from the process's peak resident set: the output,
# plus whatever the runtime held besides.
if (file.exists("/proc/self/clear_refs")) {
  extra_bytes <- peak_resident_growth(
    chain_result <- do.call(pjrt_execute, c(list(chain_exe), chain_args)))
  output_bytes <- 4 * n
  cat(sprintf(paste0("\nchain peak memory beyond its inputs: %.1f MiB for a %.1f MiB output ",
                     "(%.2f%% extra, target < 5%%) %s\n"),
              extra_bytes / 2^20, output_bytes / 2^20, 100 * (extra_bytes / output_bytes - 1),
              if (extra_bytes < 1.05 * output_bytes) "yes" else "NO"))
  rm(chain_result)
}

# dot_general f32 1024^3 against R's own double matrix product (the sgemm comparison at the
# same thread count is the Google Benchmark program dot_general_bench).
k <- 1024
a <- matrix(runif(k * k), k)
b <- matrix(runif(k * k), k)
a32 <- pjrt_buffer(a, dtype = "f32")
b32 <- pjrt_buffer(b, dtype = "f32")
dot_exe <- compile_text(program_text(
  c(a = "tensor<1024x1024xf32>", b = "tensor<1024x1024xf32>"),
  "%c = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<1024x1024xf32>, tensor<1024x1024xf32>) -> tensor<1024x1024xf32>",
  "%c", "tensor<1024x1024xf32>"))
dot_seconds <- time_median(pjrt_execute(dot_exe, a32, b32))
r_dot_seconds <- time_median(a %*% b)
cat(sprintf("\ndot_general f32 1024^3: %.4f s, %.1f GFLOP/s (R's double %%*%%: %.4f s, %.1f GFLOP/s)\n",
            dot_seconds, 2 * k^3 / dot_seconds / 1e9, r_dot_seconds, 2 * k^3 / r_dot_seconds / 1e9))

# Compile time of a 1,000-op program (absolute target: under 10 ms).
long_text <- long_program(1000)
long_program_object <- pjrt_program(long_text)
compile_seconds <- time_median(pjrt_compile(long_program_object), iterations = 20)
cat(sprintf("compile of a 1,000-op program: %.2f ms (target < 10 ms) %s\n", 1000 * compile_seconds,
            if (compile_seconds < 0.01) "yes" else "NO"))

# Per-call overhead: a one-op program on 4-element buffers against as_array() of one.
small <- pjrt_buffer(c(1, 2, 3, 4), dtype = "f32")
small_exe <- compile_text(program_text(c(x = f32_vector(4)),
                                       sprintf("%%y = stablehlo.negate %%x : %s", f32_vector(4)),
                                       "%y", f32_vector(4)))
call_seconds <- time_median(pjrt_execute(small_exe, small), iterations = 2000)
as_array_seconds <- time_median(as_array(small), iterations = 2000)
report(list(row("one-op program on a 4-element buffer", call_seconds, 2)),
       "as_array() of a 4-element buffer", as_array_seconds, n = 4)

# Two-layer perceptron, f32 program against the same computation in base R doubles.
batch <- 4096; inputs <- 512; hidden <- 256; outputs <- 16
xm <- matrix(rnorm(batch * inputs), batch)
w1 <- matrix(rnorm(inputs * hidden, sd = 0.05), inputs)
b1 <- rnorm(hidden)
w2 <- matrix(rnorm(hidden * outputs, sd = 0.05), hidden)
b2 <- rnorm(outputs)
mlp_exe <- compile_text(mlp_program(batch, inputs, hidden, outputs))
mlp_args <- list(pjrt_buffer(xm, dtype = "f32"), pjrt_buffer(w1, dtype = "f32"),
                 pjrt_buffer(b1, dtype = "f32"), pjrt_buffer(w2, dtype = "f32"),
                 pjrt_buffer(b2, dtype = "f32"))
mlp_seconds <- time_median(do.call(pjrt_execute, c(list(mlp_exe), mlp_args)))
base_r_mlp <- function() {
  h <- tanh(xm %*% w1 + rep(b1, each = batch))
  h %*% w2 + rep(b2, each = batch)
}
base_seconds <- time_median(base_r_mlp())
report(list(row("2-layer MLP forward (4096x512 -> 256 -> 16), f32 program", mlp_seconds, 1 / 3)),
       "the same in base R doubles", base_seconds, n = batch * inputs)

# stablehlo.fft: 256 transforms of 4096 points, and of 4099 points (a prime, through
# Bluestein's algorithm), against mvfft() of the same data (R's double complex). The buffer is
# made from R's column-major matrix, so the program reads it through its strides.
fft_exe <- function(rows, n, element) {
  type <- sprintf("tensor<%dx%dx%s>", rows, n, element)
  compile_text(program_text(c(x = type), sprintf(
    "%%y = stablehlo.fft %%x, type =  FFT, length = [%d] : (%s) -> %s", n, type, type),
    "%y", type))
}
for (n in c(4096, 4099)) {
  rows <- 256
  z <- matrix(complex(real = rnorm(rows * n), imaginary = rnorm(rows * n)), rows)
  z_columns <- t(z)
  c64_exe <- fft_exe(rows, n, "complex<f32>")
  c128_exe <- fft_exe(rows, n, "complex<f64>")
  z64 <- pjrt_buffer(z, dtype = "c64")
  z128 <- pjrt_buffer(z, dtype = "c128")
  # R's fft() is O(n^2) for a prime length (9 s here for 4099): fewer iterations of it.
  mvfft_seconds <- time_median(mvfft(z_columns), iterations = if (n == 4096) 5 else 2)
  report(list(
    row(sprintf("FFT of %d x %d, complex<f32>", rows, n), time_median(pjrt_execute(c64_exe, z64))),
    row(sprintf("FFT of %d x %d, complex<f64>", rows, n), time_median(pjrt_execute(c128_exe, z128)))
  ), sprintf("mvfft() of the %d x %d transpose", n, rows), mvfft_seconds, n = rows * n)
}

# Convolution (NHWC input, HWIO kernel, SAME padding, f32) against the GFLOP/s sgemm gets on
# the same GEMM-shaped work in this run: a dot_general of (batch * positions) x (3 * 3 * in)
# by (3 * 3 * in) x out, which the runtime hands to sgemm in one call.
conv_program <- function(batch, side, features, outputs) {
  lhs <- sprintf("tensor<%sxf32>", dims_text(batch, side, side, features))
  rhs <- sprintf("tensor<%sxf32>", dims_text(3, 3, features, outputs))
  out <- sprintf("tensor<%sxf32>", dims_text(batch, side, side, outputs))
  body <- sprintf(paste0(
    "%%y = stablehlo.convolution(%%x, %%w) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], ",
    "window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], ",
    "reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, ",
    "precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : ",
    "(%s, %s) -> %s"), lhs, rhs, out)
  program_text(c(x = lhs, w = rhs), body, "%y", out)
}

gemm_program <- function(m, k, n) {
  t <- function(...) sprintf("tensor<%sxf32>", dims_text(...))
  program_text(c(a = t(m, k), b = t(k, n)), sprintf(
    "%%c = stablehlo.dot_general %%a, %%b, contracting_dims = [1] x [0] : (%s, %s) -> %s",
    t(m, k), t(k, n), t(m, n)), "%c", t(m, n))
}

conv_row <- function(name, batch, side, features, outputs) {
  m <- batch * side * side
  k <- 9 * features
  flops <- 2 * m * k * outputs
  x <- pjrt_buffer(array(runif(m * features), c(batch, side, side, features)), dtype = "f32")
  w <- pjrt_buffer(array(runif(k * outputs), c(3, 3, features, outputs)), dtype = "f32")
  conv_exe <- compile_text(conv_program(batch, side, features, outputs))
  conv_seconds <- time_median(pjrt_execute(conv_exe, x, w))
  a <- pjrt_buffer(matrix(runif(m * k), m), dtype = "f32")
  b <- pjrt_buffer(matrix(runif(k * outputs), k), dtype = "f32")
  gemm_exe <- compile_text(gemm_program(m, k, outputs))
  gemm_seconds <- time_median(pjrt_execute(gemm_exe, a, b))
  report(list(row(name, conv_seconds, 2)),
         sprintf("sgemm on the same work (%.0f x %.0f x %.0f)", m, k, outputs), gemm_seconds,
         n = m)
  cat(sprintf("  convolution %.1f GFLOP/s, sgemm %.1f GFLOP/s: %.2fx (target >= 0.5x)\n",
              flops / conv_seconds / 1e9, flops / gemm_seconds / 1e9, gemm_seconds / conv_seconds))
}

conv_row("LeNet-like convolution 64x28x28x16 -> 32, 3x3, SAME", 64, 28, 16, 32)
conv_row("ResNet-like convolution 32x56x56x64 -> 64, 3x3, SAME", 32, 56, 64, 64)
