# SPEC section 8: creation and as_array() as ratios against B = `x + 0` on the same vector.
source(file.path("bench", "helpers.R"))

n <- bench_n
set.seed(1)
x <- runif(n, 0, 200)
xi <- sample.int(200L, n, replace = TRUE)
xz <- complex(real = x, imaginary = 1)
x64 <- bit64::as.integer64(xi)

baseline <- time_median(x + 0)

creation <- list(
  row("create double -> f64 (zero-copy)", time_median(pjrt_buffer(x, dtype = "f64")), 0.01),
  row("create complex -> c128 (zero-copy)", time_median(pjrt_buffer(xz, dtype = "c128")), 0.01),
  row("create integer -> i32 (zero-copy, NA scan)", time_median(pjrt_buffer(xi, dtype = "i32")), 0.1),
  row("create integer64 -> i64 (zero-copy, NA scan)", time_median(pjrt_buffer(x64, dtype = "i64")), 0.1),
  row("create double -> f32", time_median(pjrt_buffer(x, dtype = "f32")), 0.4),
  row("create double -> i32 (checked)", time_median(pjrt_buffer(x, dtype = "i32")), 0.4),
  row("create integer -> ui8 (checked)", time_median(pjrt_buffer(xi, dtype = "ui8")), 0.4),
  row("create double -> f16", time_median(pjrt_buffer(x, dtype = "f16")), 0.5),
  row("create double -> bf16", time_median(pjrt_buffer(x, dtype = "bf16")), 0.5)
)

b_f32 <- pjrt_buffer(x, dtype = "f32")
b_i8 <- pjrt_buffer(xi - 100L, dtype = "i8")
b_ui32 <- pjrt_buffer(xi, dtype = "ui32")
b_f16 <- pjrt_buffer(x, dtype = "f16")
b_bf16 <- pjrt_buffer(x, dtype = "bf16")
b_f64 <- pjrt_buffer(x + 0, dtype = "f64")
b_i32 <- pjrt_buffer(xi + 0L, dtype = "i32")
xi_copy <- xi + 0L

reading <- list(
  row("as_array f32", time_median(as_array(b_f32)), 0.5),
  row("as_array i8", time_median(as_array(b_i8)), 0.5),
  row("as_array ui32", time_median(as_array(b_ui32)), 0.5),
  row("as_array f16", time_median(as_array(b_f16)), 0.5),
  row("as_array bf16", time_median(as_array(b_bf16)), 0.5),
  # Results of 4 MiB and more reuse the pages of collected earlier ones (see "Recycled memory"
  # in ?pjrt_threads); without that every call faults its output in page by page.
  row("as_array f32, nothing recycled (PJRT_RECYCLE_MB=0)",
      withr::with_envvar(c(PJRT_RECYCLE_MB = "0"), time_median(as_array(b_f32)))),
  row("as_array() f64 5e7 (ALTREP)", time_median(as_array(b_f64)), 0.01),
  row("as_array() i32 5e7 (ALTREP, INT_MIN count remembered)", time_median(as_array(b_i32)), 0.01),
  # A new buffer's first as_array() under the default check scans for INT_MIN once: one
  # read-only pass (the creation from xi + 0L is timed apart and subtracted).
  row("as_array() i32 5e7 first call (ALTREP + INT_MIN scan)",
      time_median(as_array(pjrt_buffer(xi_copy, dtype = "i32", check = "ignore"))) -
        time_median(pjrt_buffer(xi_copy, dtype = "i32", check = "ignore")), 0.1),
  row("as_array() i32 5e7 check = \"ignore\" (ALTREP)",
      time_median(as_array(b_i32, check = "ignore")), 0.01),
  row("as_array() f64 5e7 (copy, pjrt.altrep = FALSE)",
      withr::with_options(list(pjrt.altrep = FALSE), time_median(as_array(b_f64))), 1.0),
  # One copy of 400 MB into fresh memory: about one B (informational, no target).
  row("first write to the ALTREP result (one copy)",
      time_median({
        y <- as_array(b_f64)
        y[1] <- 0
      }))
)

report(c(creation, reading), "x + 0", baseline)

# A 1e5-element conversion while another process runs an OpenMP loop on the same cores,
# against the same conversion just before (target <= 3x).
# A 1e6-element one (large enough for threads) is shown against its own idle time too.
small <- x[seq_len(min(n, 1e5))]
medium <- x[seq_len(min(n, 1e6))]
idle <- time_median(pjrt_buffer(small, dtype = "f32"), iterations = 200)
idle_medium <- time_median(pjrt_buffer(medium, dtype = "f32"), iterations = 50)
with_openmp_neighbour({
  busy <- time_median(pjrt_buffer(small, dtype = "f32"), iterations = 200)
  busy_medium <- time_median(pjrt_buffer(medium, dtype = "f32"), iterations = 50)
})
report(list(row("1e5 double -> f32 beside an OpenMP process", busy, 3)),
       "the same conversion on an idle machine", idle, n = length(small))
report(list(row("1e6 double -> f32 beside an OpenMP process", busy_medium)),
       "the same conversion on an idle machine", idle_medium, n = length(medium))

# Peak memory of a copy-converting creation beyond the output itself, from the process's peak
# resident set (reset through /proc/self/clear_refs): buffer storage lives outside R's heap,
# where R's memory profiler does not see it.
if (file.exists("/proc/self/clear_refs")) {
  extra_bytes <- peak_resident_growth(converted <- pjrt_buffer(x, dtype = "f32"))
  output_bytes <- 4 * n
  cat(sprintf("\npeak extra memory of double -> f32: %.2f%% of output (target < 5%% over input + output)\n",
              100 * (extra_bytes - output_bytes) / output_bytes))
  rm(converted)
}

# Per-call cost at n = 10, against R's own array(x) on the same 10 doubles: what a call costs
# when the data is small (checks, dispatch and the binding, not the copy).
x10 <- as.double(1:10)
a10 <- array(x10, 10)
b10 <- pjrt_buffer(x10)
calls <- 5000
# Each timed after a collection: the finalizers of the previous row's thousands of buffers
# would otherwise be paid by the next row.
per_call <- function(expr) {
  invisible(gc())
  expr <- substitute(expr)
  env <- parent.frame()
  as.numeric(bench::mark(eval(expr, env), iterations = calls, check = FALSE,
                         filter_gc = FALSE, memory = FALSE)$median)
}
array_seconds <- per_call(array(x10))
report(list(
  row("pjrt_buffer() of 10 doubles", per_call(pjrt_buffer(x10)), 4),
  row("as_array() of a 10-element f32 buffer", per_call(as_array(b10)), 3),
  row("HArray$new_from_values() of 10 doubles (Float64)",
      per_call(HArray$new_from_values(a10, HDataType$Float64)), 5)
), "array(x) of 10 doubles", array_seconds, n = 10)
