# An all_reduce (sum) of 64 MB of f32 across 2 CPU devices in one process, against copying
# 64 MB in memory (R duplicating a 64 MB raw vector: one memcpy into fresh memory, as the
# all_reduce writes fresh results), timed alternately in one run. The target is <= 2x the copy.
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
reduce_once <- function() invisible(pjrt_execute_sharded(executable, pieces))

# Alternating rounds; medians of each.
rounds <- 15L
times <- matrix(NA_real_, rounds, 2, dimnames = list(NULL, c("copy", "all_reduce")))
for (r in seq_len(rounds)) {
  times[r, "copy"] <- system.time(copy_raw())[["elapsed"]]
  times[r, "all_reduce"] <- system.time(reduce_once())[["elapsed"]]
  gc(verbose = FALSE)
}
medians <- apply(times, 2, median) * 1000
cat(sprintf("%g MB: copy %.2f ms, all_reduce over 2 devices %.2f ms, ratio %.2f (target <= 2)\n",
            mb, medians[["copy"]], medians[["all_reduce"]],
            medians[["all_reduce"]] / medians[["copy"]]))
