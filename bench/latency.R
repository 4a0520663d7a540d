# Latency of small work: the cost per op of a `while` loop whose body is K ops on 10 x 10 f32
# (dot_general, add, and transpose + add, each op feeding the next), and the R calls a training
# loop makes per batch (pjrt_execute() of a 12-input, 12-output program of adds, pjrt_buffer()
# of a 32 x 10 matrix, device(), device comparison, copy_buffer() to the buffer's own device),
# against the targets of the latency work. Run with `Rscript bench/latency.R`; LATENCY_ITERS
# (default 20000) sets the loop's trip count: with 5,000 the dot row read 0.30 or 0.53-0.58 us
# on successive invocations, with 20,000 0.33-0.38.
source(file.path("bench", "helpers.R"))

iterations <- as.integer(Sys.getenv("LATENCY_ITERS", "20000"))
ops_per_body <- 20L
t10 <- "tensor<10x10xf32>"

# The body's line for op `i` reading `prev`.
body_line <- function(kind, i, prev) {
  switch(kind,
    dot = sprintf(
      "      %%d%d = stablehlo.dot_general %s, %%b, contracting_dims = [1] x [0] : (%s, %s) -> %s",
      i, prev, t10, t10, t10),
    add = sprintf("      %%d%d = stablehlo.add %s, %%b : %s", i, prev, t10),
    # An add after each transpose keeps two transposes from cancelling out at compile time.
    transpose = c(
      sprintf("      %%t%d = stablehlo.transpose %s, dims = [1, 0] : (%s) -> %s", i, prev, t10, t10),
      sprintf("      %%d%d = stablehlo.add %%t%d, %%b : %s", i, i, t10)))
}

loop_program <- function(kind) {
  lines <- character()
  prev <- "%a"
  for (i in seq_len(ops_per_body)) {
    lines <- c(lines, body_line(kind, i, prev))
    prev <- sprintf("%%d%d", i)
  }
  paste0(
    "func.func @main(%x: ", t10, ", %b: ", t10, ") -> ", t10, " {\n",
    "  %zero = stablehlo.constant dense<0> : tensor<i64>\n",
    "  %one = stablehlo.constant dense<1> : tensor<i64>\n",
    "  %n = stablehlo.constant dense<", iterations, "> : tensor<i64>\n",
    "  %r:2 = stablehlo.while(%i = %zero, %a = %x) : tensor<i64>, ", t10, "\n",
    "    cond {\n",
    "      %lt = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>\n",
    "      stablehlo.return %lt : tensor<i1>\n",
    "    } do {\n",
    "      %i2 = stablehlo.add %i, %one : tensor<i64>\n",
    paste0(lines, collapse = "\n"), "\n",
    "      stablehlo.return %i2, ", prev, " : tensor<i64>, ", t10, "\n",
    "    }\n",
    "  return %r#1 : ", t10, "\n}\n")
}

x <- pjrt_buffer(diag(10), dtype = "f32")
b <- pjrt_buffer(diag(10) * 0.5 + 0.01, dtype = "f32")
cat(sprintf("while loops of %d iterations, %d ops per body, 10 x 10 f32, %d threads\n",
            iterations, ops_per_body, pjrt_threads()))
cat(sprintf("%-40s %12s %10s\n", "body", "us per op", "target"))
targets <- c(dot = 0.5, add = 0.15, transpose = 0.15)
for (kind in names(targets)) {
  executable <- pjrt_compile(pjrt_program(loop_program(kind)))
  seconds <- time_median(pjrt_execute(executable, x, b), iterations = 3)
  ops <- iterations * ops_per_body * (if (kind == "transpose") 2 else 1)
  cat(sprintf("%-40s %12.3f %10s\n", paste(kind, "(each op)"), seconds / ops * 1e6,
              format(targets[[kind]])))
}

# The R calls.
n_args <- 12L
arg_types <- paste0("%a", seq_len(n_args) - 1L, ": ", t10, collapse = ", ")
adds <- paste0("  %r", seq_len(n_args) - 1L, " = stablehlo.add %a", seq_len(n_args) - 1L, ", %a",
               seq_len(n_args) - 1L, " : ", t10, collapse = "\n")
results <- paste0("%r", seq_len(n_args) - 1L, collapse = ", ")
types <- paste(rep(t10, n_args), collapse = ", ")
wide <- pjrt_compile(pjrt_program(sprintf("func.func @main(%s) -> (%s) {\n%s\n  return %s : %s\n}",
                                          arg_types, types, adds, results, types)))
buffers <- lapply(seq_len(n_args), function(i) pjrt_buffer(matrix(runif(100), 10), dtype = "f32"))
call <- as.call(c(list(quote(pjrt_execute), wide), buffers))
batch <- matrix(runif(320), 32, 10)
dev <- device(x)
# The run is awaited: with pjrt_async() on (the default) the call returns before it; the second
# row times the call with pjrt_async() off, where it returns after the run.
execute_synchronously <- function() {
  old <- pjrt_async(FALSE)
  on.exit(pjrt_async(old))
  eval(call)
}
marks <- bench::mark(
  "pjrt_execute(), 12 in / 12 out" = awaited(eval(call)),
  "the same, pjrt_async(FALSE)" = execute_synchronously(),
  "pjrt_buffer() of a 32 x 10 matrix" = pjrt_buffer(batch, dtype = "f32"),
  "device(buffer)" = device(x),
  "device == device" = dev == dev,
  "copy_buffer() to its own device" = copy_buffer(x, dev),
  iterations = 5000, check = FALSE)
call_targets <- c(10, 10, 3, 1, 1, NA)
cat(sprintf("\n%-40s %12s %10s\n", "R call (bench::mark median)", "us", "target"))
for (k in seq_len(nrow(marks))) {
  cat(sprintf("%-40s %12.2f %10s\n", as.character(marks$expression[k]),
              as.numeric(marks$median[k]) * 1e6,
              if (is.na(call_targets[k])) "-" else format(call_targets[k])))
}
