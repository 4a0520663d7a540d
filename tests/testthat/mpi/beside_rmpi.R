# Run under mpirun by test-distributed.R: Rmpi initialises MPI when it loads; pjrt joins the
# same MPI_COMM_WORLD, runs an all_reduce, and Rmpi still works and finalises MPI itself.
# Each rank prints "rank R: <pjrt's sum> <Rmpi's sum> finalized".
suppressMessages(library(Rmpi))
rank <- mpi.comm.rank(0)
library(pjrt)
info <- pjrt_distributed_init()
stopifnot(info$rank == rank, info$size == mpi.comm.size(0))
program <- sprintf('
module @m attributes {mhlo.num_replicas = %d : i32} {
  func.func @main(%%x: tensor<2xf32>) -> tensor<2xf32> {
    %%s = "stablehlo.all_reduce"(%%x) ({
    ^bb0(%%a: tensor<f32>, %%b: tensor<f32>):
      %%0 = stablehlo.add %%a, %%b : tensor<f32>
      stablehlo.return %%0 : tensor<f32>
    }) : (tensor<2xf32>) -> tensor<2xf32>
    return %%s : tensor<2xf32>
  }
}', info$size)
summed <- pjrt_execute_sharded(pjrt_compile(pjrt_program(program)),
                               list(pjrt_buffer(c(1, 2) * (rank + 1), dtype = "f32")))[[1]]
theirs <- mpi.allreduce(rank + 1, type = 2, comm = 0)
invisible(mpi.finalize())
cat(sprintf("rank %d: %s %s finalized\n", rank, paste(as_array(summed), collapse = " "), theirs))
