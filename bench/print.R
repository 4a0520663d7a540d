# SPEC sections 2.7 and 8: printing costs what is printed, not the size of the buffer. The
# baseline is printing a 30-element f32 vector; a 10^8-element one prints the same 30 rows
# and should take the same time (ratio about 1), well under 10 ms. Matrices are compared
# with a small matrix that prints the same window of 30 rows and 12 columns.
source(file.path("bench", "helpers.R"))

n_big <- as.numeric(Sys.getenv("PJRT_BENCH_PRINT_N", "1e8"))
bench_n <- n_big  # shown by report()
set.seed(1)
small <- pjrt_buffer(runif(30), dtype = "f32")
big <- pjrt_buffer(runif(n_big), dtype = "f32")
small_matrix <- pjrt_buffer(runif(30 * 12), dtype = "f32", shape = c(30, 12))
big_matrix <- pjrt_buffer(runif(n_big), dtype = "f32", shape = c(n_big / 1e4, 1e4))
invisible(gc())

# print() writes to a null device, so the terminal's speed is not measured.
null_output <- file(nullfile(), open = "w")
print_quietly <- function(x) {
  sink(null_output)
  on.exit(sink())
  print(x)
}

# Microsecond timings: many iterations, garbage collections filtered out, and one warm-up
# call first, so that no expression pays for loading code.
time_print <- function(expr) {
  expr <- substitute(expr)
  env <- parent.frame()
  eval(expr, env)
  result <- bench::mark(eval(expr, env), iterations = 300, check = FALSE, filter_gc = TRUE,
                        memory = FALSE)
  as.numeric(result$median)
}

baseline <- time_print(print_quietly(small))
vectors <- list(
  row("print() 30-element f32 vector", baseline, 2),
  row(sprintf("print() %.0e-element f32 vector", n_big), time_print(print_quietly(big)), 2),
  row("format() 30-element f32 vector", time_print(format(small))),
  row(sprintf("format() %.0e-element f32 vector", n_big), time_print(format(big)), 2)
)
matrix_baseline <- time_print(print_quietly(small_matrix))
matrices <- list(
  row("print() 30 x 12 f32 matrix", matrix_baseline, 2),
  row(sprintf("print() %.0e x 1e4 f32 matrix", n_big / 1e4), time_print(print_quietly(big_matrix)), 2)
)
close(null_output)

report(vectors, "print() of a 30-element f32 vector", baseline)
report(matrices, "print() of a 30 x 12 f32 matrix", matrix_baseline)
big_ms <- vectors[[2]]$seconds * 1000
cat(sprintf("\nprint() of the %.0e-element buffer: %.3f ms (target < 10 ms: %s)\n", n_big, big_ms,
            if (big_ms < 10) "yes" else "NO"))
cat(sprintf("ratio %.0e-element / 30-element: %.2f\n", n_big, vectors[[2]]$seconds / baseline))
