# R work beside asynchronous runs: a loop that does 20 ms of R work, then launches a step of
# about 20 ms that takes the previous step's result. Run synchronously the loop costs the sum,
# about 40 ms an iteration; with pjrt_async(TRUE) R's work and the step overlap (R and the
# runtime each on a core, the runtime on one thread), and the target is <= 1.2 x 20 ms.
# Run with `Rscript bench/async.R`; ASYNC_ITERS sets the iterations (default 25).
library(pjrt)
source(file.path("bench", "helpers.R"))
pjrt_threads(1)

iterations <- as.integer(Sys.getenv("ASYNC_ITERS", "25"))
# Counts up by one %n times: a step whose length is set by %n, on one thread.
step <- pjrt_compile(pjrt_program("
func.func @main(%start: tensor<i64>, %n: tensor<i64>) -> tensor<i64> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %r:2 = stablehlo.while(%i = %zero, %v = %start) : tensor<i64>, tensor<i64>
  cond {
    %c = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %i2 = stablehlo.add %i, %one : tensor<i64>
    %v2 = stablehlo.add %v, %one : tensor<i64>
    stablehlo.return %i2, %v2 : tensor<i64>, tensor<i64>
  }
  return %r#1 : tensor<i64>
}"))
scalar <- function(v) pjrt_buffer(v, dtype = "i64", shape = integer())

# R busy for `seconds` of wall time.
r_work <- function(seconds) {
  until <- proc.time()[["elapsed"]] + seconds
  x <- 0
  while (proc.time()[["elapsed"]] < until) x <- x + sqrt(runif(100))[1]
  x
}

# Steps of n counts: n chosen so that one synchronous step takes about 20 ms.
old <- pjrt_async(FALSE)
n <- 20000
for (k in 1:6) {
  took <- system.time(as_array(pjrt_execute(step, scalar(0), scalar(n))))[["elapsed"]]
  n <- round(n * 0.02 / max(took, 1e-3))
}
step_ms <- median(replicate(5, system.time(
  as_array(pjrt_execute(step, scalar(0), scalar(n)))
)[["elapsed"]])) * 1000

loop_ms <- function(async) {
  pjrt_async(async)
  count <- scalar(n)
  value <- scalar(0)
  started <- proc.time()[["elapsed"]]
  for (i in seq_len(iterations)) {
    r_work(0.02)
    value <- pjrt_execute(step, value, count)
  }
  stopifnot(as.numeric(as_array(value)) == iterations * n)
  (proc.time()[["elapsed"]] - started) * 1000 / iterations
}
sync <- loop_ms(FALSE)
async <- loop_ms(TRUE)
pjrt_async(old)
cat(sprintf(paste0("step alone %.1f ms; 20 ms of R work + a step per iteration: synchronous ",
                   "%.1f ms, asynchronous %.1f ms = %.2f x 20 ms (target <= 1.2)\n"),
            step_ms, sync, async, async / 20))
