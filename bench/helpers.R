# Shared helpers for the benchmark scripts: every figure is a ratio against a baseline timed
# in the same process, since absolute times on shared machines are noise.
suppressPackageStartupMessages({
  library(pjrt)
  library(bench)
})

bench_n <- as.numeric(Sys.getenv("PJRT_BENCH_N", "5e7"))

# Median seconds of `expr` over a few iterations (garbage collections excluded from timing).
time_median <- function(expr, iterations = 5) {
  expr <- substitute(expr)
  env <- parent.frame()
  result <- bench::mark(eval(expr, env), iterations = iterations, check = FALSE,
                        filter_gc = FALSE, memory = FALSE)
  as.numeric(result$median)
}

# Prints one table row per operation: seconds, ratio to the baseline and the target.
report <- function(rows, baseline_name, baseline_seconds) {
  cat(sprintf("\nbaseline %s: %.4f s (n = %.0f)\n", baseline_name, baseline_seconds, bench_n))
  cat(sprintf("%-55s %10s %10s %10s %5s\n", "operation", "seconds", "ratio", "target", "ok"))
  for (row in rows) {
    ratio <- row$seconds / baseline_seconds
    ok <- if (is.na(row$target)) "" else if (ratio <= row$target) "yes" else "NO"
    cat(sprintf("%-55s %10.5f %10.4f %10s %5s\n", row$name, row$seconds, ratio,
                if (is.na(row$target)) "-" else format(row$target), ok))
  }
}

row <- function(name, seconds, target = NA) list(name = name, seconds = seconds, target = target)
