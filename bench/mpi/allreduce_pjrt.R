# pjrt's all_reduce (sum) of f32 across the ranks, timed per call: the measured side of
# bench/mpi_allreduce.R. Arguments: ELEMENTS ROUNDS; rank 0 prints one time (seconds) per round.
Sys.setenv(PJRT_CPU_DEVICE_COUNT = "1")
library(pjrt)
pjrt_threads(1L)
args <- as.numeric(commandArgs(trailingOnly = TRUE))
n <- args[[1]]
rounds <- args[[2]]
info <- pjrt_distributed_init()
program <- pjrt_program(sprintf('
module @sum attributes {mhlo.num_replicas = %2$d : i32} {
  func.func @main(%%x: tensor<%1$dxf32>) -> tensor<%1$dxf32> {
    %%s = "stablehlo.all_reduce"(%%x) ({
    ^bb0(%%a: tensor<f32>, %%b: tensor<f32>):
      %%0 = stablehlo.add %%a, %%b : tensor<f32>
      stablehlo.return %%0 : tensor<f32>
    }) : (tensor<%1$dxf32>) -> tensor<%1$dxf32>
    return %%s : tensor<%1$dxf32>
  }
}', n, info$size))
executable <- pjrt_compile(program)
x <- pjrt_buffer((seq_len(n) %% 1000) / 7, dtype = "f32")
# A tiny all_reduce lines the ranks up before each timed one, as MPI_Barrier does for the
# baseline.
line_up <- pjrt_compile(pjrt_program(sprintf('
module @line_up attributes {mhlo.num_replicas = %d : i32} {
  func.func @main(%%x: tensor<1xf32>) -> tensor<1xf32> {
    %%s = "stablehlo.all_reduce"(%%x) ({
    ^bb0(%%a: tensor<f32>, %%b: tensor<f32>):
      %%0 = stablehlo.add %%a, %%b : tensor<f32>
      stablehlo.return %%0 : tensor<f32>
    }) : (tensor<1xf32>) -> tensor<1xf32>
    return %%s : tensor<1xf32>
  }
}', info$size)))
one <- pjrt_buffer(1, dtype = "f32")
for (r in seq_len(rounds)) {
  pjrt_execute_sharded(line_up, list(one))
  start <- proc.time()[["elapsed"]]
  # The result is dropped at once, as a training loop drops last step's values: its block
  # serves a later call (bench/collectives.R does the same).
  await(pjrt_execute_sharded(executable, list(x))[[1]])
  took <- proc.time()[["elapsed"]] - start
  if (info$rank == 0L) cat(sprintf("%.6f\n", took))
}
