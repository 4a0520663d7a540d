# Run under mpirun by test-distributed.R: the last rank compiles a different program from the
# others; every rank reports the error it gets (or "none") on stdout.
library(pjrt)
info <- pjrt_distributed_init()
scale <- if (info$rank == info$size - 1L) "3.0" else "2.0"
program <- sprintf('
module @m attributes {mhlo.num_replicas = %d : i32} {
  func.func @main(%%x: tensor<2xf32>) -> tensor<2xf32> {
    %%c = stablehlo.constant dense<%s> : tensor<2xf32>
    %%y = stablehlo.multiply %%x, %%c : tensor<2xf32>
    %%s = "stablehlo.all_reduce"(%%y) ({
    ^bb0(%%a: tensor<f32>, %%b: tensor<f32>):
      %%0 = stablehlo.add %%a, %%b : tensor<f32>
      stablehlo.return %%0 : tensor<f32>
    }) : (tensor<2xf32>) -> tensor<2xf32>
    return %%s : tensor<2xf32>
  }
}', info$size, scale)
executable <- pjrt_compile(pjrt_program(program))
message <- tryCatch({
  pjrt_execute_sharded(executable, list(pjrt_buffer(c(1, 2), dtype = "f32")))
  "none"
}, error = function(e) conditionMessage(e))
cat(sprintf("rank %d: %s\n", info$rank, gsub("\n", " ", message)))
