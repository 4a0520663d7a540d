# An all_reduce (sum) of 64 MB of f32 across 2 CPU devices in one process, against two copies of
# 64 MB timed alternately in the same run: R duplicating a 64 MB raw vector (one memcpy into
# fresh memory, whose pages fault in), and copy_buffer() of a 64 MB buffer to the other device
# (pjrt's copy into a recycled block, as the all_reduce's results are after the first rounds).
# The target is <= 2x a copy.
# Run with `Rscript bench/collectives.R`; COLLECTIVE_MB sets the size (default 64).
Sys.setenv(PJRT_CPU_DEVICE_COUNT = "2")
library(pjrt)

mb <- as.numeric(Sys.getenv("COLLECTIVE_MB", "64"))
n <- as.integer(mb * 2^20 / 4)
program <- pjrt_program(sprintf('
module @sum attributes {mhlo.num_replicas = 2 : i32} {
  func.func @main(%%x: tensor<%1$dxf32>) -> tensor<%1$dxf32> {
    %%s = "stablehlo.all_reduce"(%%x) ({
    ^bb0(%%a: tensor<f32>, %%b: tensor<f32>):
      %%0 = stablehlo.add %%a, %%b : tensor<f32>
      stablehlo.return %%0 : tensor<f32>
    }) {replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>} : (tensor<%1$dxf32>) -> tensor<%1$dxf32>
    return %%s : tensor<%1$dxf32>
  }
}', n))
executable <- pjrt_compile(program)
pieces <- pjrt_shard(runif(2 * n), devices("cpu"), dtype = "f32")
raw64 <- as.raw(sample.int(255, n * 4, replace = TRUE))

copy_raw <- function() {
  y <- raw64
  y[[1]] <- as.raw(0)  # R duplicates the vector here
  invisible(y)
}
reduce_once <- function() await(pjrt_execute_sharded(executable, pieces)[[2]])
copy_device <- function() await(copy_buffer(pieces[[1]], devices("cpu")[[2]]))

# Alternating rounds of 5 calls each (the clock reads milliseconds); medians of each.
rounds <- 15L
per_call <- function(f) system.time(for (k in 1:5) f())[["elapsed"]] / 5
times <- matrix(NA_real_, rounds, 3,
                dimnames = list(NULL, c("copy", "copy_buffer", "all_reduce")))
for (r in seq_len(rounds)) {
  times[r, "copy"] <- per_call(copy_raw)
  times[r, "copy_buffer"] <- per_call(copy_device)
  times[r, "all_reduce"] <- per_call(reduce_once)
  gc(verbose = FALSE)
}
medians <- apply(times, 2, median) * 1000
cat(sprintf(paste0("%g MB: R copy %.1f ms, copy_buffer %.1f ms, all_reduce over 2 devices ",
                   "%.1f ms; ratio %.2f to the R copy, %.2f to copy_buffer (target <= 2)\n"),
            mb, medians[["copy"]], medians[["copy_buffer"]], medians[["all_reduce"]],
            medians[["all_reduce"]] / medians[["copy"]],
            medians[["all_reduce"]] / medians[["copy_buffer"]]))
