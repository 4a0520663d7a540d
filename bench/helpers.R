# Shared helpers for the benchmark scripts: every figure is a ratio against a baseline timed
# in the same process, since absolute times on shared machines are noise.
suppressPackageStartupMessages({
  library(pjrt)
  library(bench)
})

bench_n <- as.numeric(Sys.getenv("PJRT_BENCH_N", "5e7"))

# With pjrt_async() on (the default) pjrt_execute() returns before its program has run, so a
# timing waits for what the timed call returns: a buffer, or a list holding buffers (all the
# results of one call come from one run, so waiting for the first waits for the run). A plain
# loop, not Find(): its closure calls cost 4-5 us a list, which per-call rows would count as
# pjrt's.
awaited <- function(x) {
  if (inherits(x, "PJRTBuffer")) {
    await(x)
  } else if (is.list(x)) {
    for (item in x) {
      if (inherits(item, "PJRTBuffer") || is.list(item)) {
        awaited(item)
        break
      }
    }
  }
  invisible(x)
}

# Median seconds of `expr` over a few iterations, its results awaited (garbage collections
# excluded from timing).
time_median <- function(expr, iterations = 5) {
  expr <- substitute(expr)
  env <- parent.frame()
  result <- bench::mark(awaited(eval(expr, env)), iterations = iterations, check = FALSE,
                        filter_gc = FALSE, memory = FALSE)
  as.numeric(result$median)
}

# Prints one table row per operation: seconds, ratio to the baseline and the target.
report <- function(rows, baseline_name, baseline_seconds, n = bench_n) {
  cat(sprintf("\nbaseline %s: %s s (n = %.0f)\n", baseline_name, seconds_text(baseline_seconds), n))
  width <- max(55, nchar(vapply(rows, `[[`, "", "name")))
  cat(sprintf("%-*s %10s %10s %10s %5s\n", width, "operation", "seconds", "ratio", "target", "ok"))
  for (row in rows) {
    ratio <- row$seconds / baseline_seconds
    ok <- if (is.na(row$target)) "" else if (ratio <= row$target) "yes" else "NO"
    cat(sprintf("%-*s %10s %10.4f %10s %5s\n", width, row$name, seconds_text(row$seconds), ratio,
                if (is.na(row$target)) "-" else format(row$target), ok))
  }
}

# Four significant digits: per-call rows take microseconds, bulk rows seconds.
seconds_text <- function(seconds) formatC(seconds, digits = 4, format = "g")

row <- function(name, seconds, target = NA) list(name = name, seconds = seconds, target = target)

# Evaluates `expr` while a separate process runs short OpenMP parallel loops back to back on
# every core (what another R session using OpenMP looks like to the scheduler). The program is
# compiled with R's C compiler; it stops by itself after a minute if it is not killed.
with_openmp_neighbour <- function(expr) {
  dir <- tempfile("neighbour")
  dir.create(dir)
  on.exit(unlink(dir, recursive = TRUE), add = TRUE)
  source_file <- file.path(dir, "neighbour.c")
  writeLines(c(
    "#include <time.h>",
    "static double a[1 << 16];",
    "int main(void) {",
    "  time_t start = time(0);",
    "  while (time(0) - start < 60) {",
    "#pragma omp parallel for",
    "    for (int i = 0; i < (1 << 16); ++i) a[i] = a[i] * 0.999 + 1.0;",
    "  }",
    "  return (int)a[7] == 12345;",
    "}"), source_file)
  program <- file.path(dir, "neighbour")
  cc <- system2(file.path(R.home("bin"), "R"), c("CMD", "config", "CC"), stdout = TRUE)
  status <- system(sprintf("%s -O2 -fopenmp %s -o %s", cc, source_file, program))
  if (status != 0) stop("could not compile the OpenMP neighbour program")
  pid_file <- file.path(dir, "pid")
  system(sprintf("%s >/dev/null 2>&1 & echo $! > %s", program, pid_file))
  pid <- as.integer(readLines(pid_file))
  on.exit(tools::pskill(pid), add = TRUE, after = FALSE)
  Sys.sleep(0.5)  # let its threads start spinning
  expr
}

# How far the process's resident memory peaked above where it stood, in bytes, while `expr`
# ran (Linux: the peak is reset through /proc/self/clear_refs). Assign inside `expr` to keep
# its value.
peak_resident_growth <- function(expr) {
  resident_kib <- function(field) {
    status <- readLines("/proc/self/status")
    as.numeric(sub("^[^0-9]*([0-9]+).*$", "\\1", grep(paste0("^", field, ":"), status, value = TRUE)))
  }
  invisible(gc())
  before <- resident_kib("VmRSS")
  writeLines("5", "/proc/self/clear_refs")
  force(expr)
  (resident_kib("VmHWM") - before) * 1024
}
