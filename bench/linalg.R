# Linear algebra at 1000 x 1000 in double precision (target: within 1.5x of base R):
# stablehlo.cholesky against chol() and stablehlo.triangular_solve against backsolve() on the
# same data, each result checked against base R's before it is timed. Both sides call the
# LAPACK / BLAS R links; the program's extra work is the layout copies around the call.
# Run with `make bench` (or Rscript bench/linalg.R).
source(file.path("bench", "helpers.R"))

n <- as.integer(Sys.getenv("PJRT_BENCH_LINALG_N", "1000"))
type <- sprintf("tensor<%dx%dxf64>", n, n)

compile_text <- function(...) pjrt_compile(pjrt_program(paste0(c(...), collapse = "\n")))

cholesky_exe <- compile_text(
  sprintf("func.func @main(%%a: %s) -> %s {", type, type),
  sprintf("  %%r = stablehlo.cholesky %%a, lower = false : %s", type),
  sprintf("  return %%r : %s", type), "}")

solve_exe <- compile_text(
  sprintf("func.func @main(%%a: %s, %%b: %s) -> %s {", type, type, type),
  sprintf(paste0("  %%r = \"stablehlo.triangular_solve\"(%%a, %%b) {left_side = true, ",
                 "lower = false, unit_diagonal = false, ",
                 "transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : (%s, %s) -> %s"),
          type, type, type),
  sprintf("  return %%r : %s", type), "}")

set.seed(1)
m <- matrix(rnorm(n * n), n)
spd <- crossprod(m) + diag(n)
spd_buffer <- pjrt_buffer(spd, dtype = "f64")
upper <- chol(spd)
rhs <- matrix(rnorm(n * n), n)
upper_buffer <- pjrt_buffer(upper, dtype = "f64")
rhs_buffer <- pjrt_buffer(rhs, dtype = "f64")

check_close <- function(what, got, want) {
  error <- max(abs(got - want)) / max(abs(want))
  if (!is.finite(error) || error > 1e-8) stop(what, " differs from base R (relative ", error, ")")
}
check_close("cholesky", as_array(pjrt_execute(cholesky_exe, spd_buffer)), upper)
check_close("triangular_solve", as_array(pjrt_execute(solve_exe, upper_buffer, rhs_buffer)),
            backsolve(upper, rhs))

report(list(row(sprintf("stablehlo.cholesky %d x %d f64", n, n),
                time_median(pjrt_execute(cholesky_exe, spd_buffer)), 1.5)),
       "chol()", time_median(chol(spd)), n = n * n)
report(list(row(sprintf("stablehlo.triangular_solve %d x %d by %d x %d f64", n, n, n, n),
                time_median(pjrt_execute(solve_exe, upper_buffer, rhs_buffer)), 1.5)),
       "backsolve()", time_median(backsolve(upper, rhs)), n = n * n)
