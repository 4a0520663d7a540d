# Real-size programs: what JAX emits for everyday functions (cumulative and moving sums,
# max-pools, argmax, sort and argsort, top_k, einsum, matrix products, segment sums, embedding
# lookups, loops, scans, softmax and layer norm, training steps), written here in the pretty
# form JAX lowers them to, at sizes where an op that walks every window or runs its region
# through the interpreter per element falls off a cliff. Each row checks the program's result
# against base R (stopping on a mismatch), times it against the base R equivalent in this
# process, and reports its compile time; the table ends with the geometric mean of the ratios.
# Targets: every ratio <= 1, the geometric mean <= 0.5, every compile under 20 ms.
#
# Time budget, so the script finishes in a few minutes even where an op is still a cliff (a sort
# whose comparator runs through the interpreter took about a minute at 1e5 on a loaded 2-core
# machine): a row whose single run takes more than PJRT_REALSIZE_BUDGET seconds (default 2) is
# measured by that one run (marked "once"), otherwise by the median of as many runs as fit in
# the budget; a run still going after PJRT_REALSIZE_CAP seconds (default 20) is stopped, and the
# row reports the cap as a lower bound, unchecked (marked "stopped (>)").
# Rscript bench/realsize.R (or `make bench`); PJRT_REALSIZE_ROWS, a regular expression, picks
# rows by name.
source(file.path("bench", "helpers.R"))
source(file.path("bench", "realsize", "programs.R"))
source(file.path("bench", "realsize", "models.R"))
source(file.path("bench", "realsize", "windows.R"))

budget <- as.numeric(Sys.getenv("PJRT_REALSIZE_BUDGET", "2"))
row_filter <- Sys.getenv("PJRT_REALSIZE_ROWS", ".")
cap <- as.numeric(Sys.getenv("PJRT_REALSIZE_CAP", "20"))

# Seconds per call of `f`, and whether it was measured by one run only; `first` is the time of
# a run already made (the checked one), if any.
budget_time <- function(f, first = NULL) {
  once <- first
  if (is.null(once)) {
    start <- bench::hires_time()
    f()
    once <- as.numeric(bench::hires_time() - start)
  }
  if (once > budget) return(list(seconds = once, once = TRUE))
  iterations <- as.integer(max(3, min(200, floor(budget / max(once, 1e-6)))))
  result <- bench::mark(f(), iterations = iterations, check = FALSE, filter_gc = FALSE,
                        memory = FALSE, time_unit = "s")
  list(seconds = as.numeric(result$median), once = FALSE)
}

# Compares a program's results with base R's; `tolerance` is relative to the largest magnitude
# of each expected result (0: identical). Stops on a mismatch.
check_results <- function(name, got, want, tolerance) {
  if (!is.list(want)) want <- list(want)
  if (inherits(got, "PJRTBuffer")) got <- list(got)
  for (i in seq_along(want)) {
    value <- as_array(got[[i]])
    expected <- want[[i]]
    shape <- function(v) as.numeric(if (is.null(dim(v))) length(v) else dim(v))
    if (!identical(shape(value), shape(expected))) {
      stop(sprintf("%s: result %d has shape %s, base R's %s", name, i,
                   paste(dim(value), collapse = "x"), paste(dim(expected), collapse = "x")))
    }
    error <- max(abs(as.numeric(value) - as.numeric(expected)))
    scale <- max(1, abs(as.numeric(expected)))
    if (!is.finite(error) || error > tolerance * scale) {
      stop(sprintf("%s: result %d differs from base R by %g (allowed %g)", name, i, error,
                   tolerance * scale))
    }
  }
}

# The value of `expr`, or NULL when it ran past `cap` seconds (R's elapsed-time limit reaches
# the runtime through its interrupt poll).
capped <- function(expr) {
  setTimeLimit(elapsed = cap, transient = TRUE)
  on.exit(setTimeLimit(elapsed = Inf))
  tryCatch(expr, interrupt = function(condition) NULL, error = function(condition) {
    if (grepl("time limit", conditionMessage(condition))) NULL else stop(condition)
  })
}

# A row stopped at the cap: its time is a lower bound, its result unchecked.
stopped_row <- function(spec, compile) {
  base <- budget_time(spec$reference)
  data.frame(program = spec$name, pjrt_ms = 1000 * cap, base_r_ms = 1000 * base$seconds,
             ratio = cap / base$seconds, compile_ms = 1000 * compile$seconds,
             note = "stopped (>)")
}

# One row: compiles `text` (timed), runs it on `args`, checks against `reference()` and times
# both.
measure_row <- function(spec) {
  program <- pjrt_program(spec$text)
  compile <- budget_time(function() pjrt_compile(program))
  executable <- pjrt_compile(program)
  run <- function() awaited(do.call(pjrt_execute, c(list(executable), spec$args)))
  start <- bench::hires_time()
  results <- capped(run())
  first <- as.numeric(bench::hires_time() - start)
  if (is.null(results)) return(stopped_row(spec, compile))
  start <- bench::hires_time()
  expected <- spec$reference()
  base_first <- as.numeric(bench::hires_time() - start)
  check_results(spec$name, results, expected, spec$tolerance)
  rm(results, expected)
  ours <- budget_time(run, first)
  base <- budget_time(spec$reference, base_first)
  data.frame(program = spec$name, pjrt_ms = 1000 * ours$seconds, base_r_ms = 1000 * base$seconds,
             ratio = ours$seconds / base$seconds, compile_ms = 1000 * compile$seconds,
             note = if (ours$once) "once" else "")
}

set.seed(29)
specs <- Filter(function(spec) grepl(row_filter, spec$name), realsize_specs())
rows <- do.call(rbind, lapply(specs, function(spec) {
  result <- measure_row(spec)
  cat(sprintf("%-48s %10.3f %10.3f %8.3f %9.2f %s\n", result$program, result$pjrt_ms,
              result$base_r_ms, result$ratio, result$compile_ms, result$note))
  result
}))

cat(sprintf("\n%-48s %10s %10s %8s %9s\n", "program (f32 unless named)", "pjrt ms", "base R ms",
            "ratio", "compile"))
for (i in seq_len(nrow(rows))) {
  r <- rows[i, ]
  cat(sprintf("%-48s %10.3f %10.3f %8.3f %9.2f %s\n", r$program, r$pjrt_ms, r$base_r_ms,
              r$ratio, r$compile_ms, r$note))
}
geometric_mean <- exp(mean(log(rows$ratio)))
cat(sprintf("\ngeometric mean of the ratios: %.3f (target <= 0.5) %s\n", geometric_mean,
            if (geometric_mean <= 0.5) "yes" else "NO"))
cat(sprintf("rows at or below base R: %d of %d; compiles under 20 ms: %d of %d\n",
            sum(rows$ratio <= 1), nrow(rows), sum(rows$compile_ms < 20), nrow(rows)))
