# Data-parallel training of a logistic regression: every device computes the gradient of its
# block of rows, an all_reduce sums the gradients across devices, and every device takes the
# same gradient step. The same program runs on the devices of one R process or across R
# processes started by MPI:
#
#   Rscript mpi_sgd.R --devices 2                      one process, two CPU devices
#   mpirun -np 2 Rscript mpi_sgd.R                     two ranks, one device each
#   mpirun -np 4 --oversubscribe Rscript mpi_sgd.R     four ranks
#
# Each prints the final loss and a checksum of the weights (from rank 0): the same figures
# whatever the split, up to the rounding of the sums' order, far below the digits printed.
# `--steps N` changes the number of steps (300), `--fail-at K` makes the last rank kill itself
# at step K (to see how the other ranks fail: run mpirun with --enable-recovery).

args <- commandArgs(trailingOnly = TRUE)
option <- function(name, default) {
  at <- match(name, args)
  if (is.na(at)) default else as.integer(args[[at + 1L]])
}
local_devices <- option("--devices", NA_integer_)
steps <- option("--steps", 300L)
fail_at <- option("--fail-at", NA_integer_)

# One CPU device per rank under MPI, or the devices asked for in one process.
Sys.setenv(PJRT_CPU_DEVICE_COUNT = if (is.na(local_devices)) 1L else local_devices)
library(pjrt)
pjrt_threads(1L)

if (is.na(local_devices)) {
  info <- pjrt_distributed_init(devices = 1L)
  devices_in_all <- sum(info$devices)
  first <- info$first_process
  mine <- 1L
} else {
  info <- list(rank = 0L, size = 1L)
  devices_in_all <- local_devices
  first <- 0L
  mine <- local_devices
}

# The data: the same on every rank (one seed), rows split in equal blocks over the devices.
rows <- 1024L
features <- 8L
set.seed(42)
x <- cbind(matrix(rnorm(rows * features), rows, features), 1)
true_w <- c(seq(-1, 1, length.out = features), 0.25)
y <- as.numeric(runif(rows) < plogis(x %*% true_w))
stopifnot(rows %% devices_in_all == 0L)
block <- rows %/% devices_in_all
learning_rate <- 0.5

step_program <- sprintf("
module @sgd_step attributes {mhlo.num_replicas = %1$d : i32} {
  func.func @main(%%w: tensor<9xf64>, %%x: tensor<%2$dx9xf64>, %%y: tensor<%2$dxf64>)
      -> (tensor<9xf64>, tensor<f64>) {
    %%z = stablehlo.dot_general %%x, %%w, contracting_dims = [1] x [0]
      : (tensor<%2$dx9xf64>, tensor<9xf64>) -> tensor<%2$dxf64>
    %%p = stablehlo.logistic %%z : tensor<%2$dxf64>
    %%err = stablehlo.subtract %%p, %%y : tensor<%2$dxf64>
    %%g = stablehlo.dot_general %%err, %%x, contracting_dims = [0] x [0]
      : (tensor<%2$dxf64>, tensor<%2$dx9xf64>) -> tensor<9xf64>
    %%one = stablehlo.constant dense<1.0> : tensor<%2$dxf64>
    %%logp = stablehlo.log %%p : tensor<%2$dxf64>
    %%q = stablehlo.subtract %%one, %%p : tensor<%2$dxf64>
    %%logq = stablehlo.log %%q : tensor<%2$dxf64>
    %%ny = stablehlo.subtract %%one, %%y : tensor<%2$dxf64>
    %%a = stablehlo.multiply %%y, %%logp : tensor<%2$dxf64>
    %%b = stablehlo.multiply %%ny, %%logq : tensor<%2$dxf64>
    %%ll = stablehlo.add %%a, %%b : tensor<%2$dxf64>
    %%zero = stablehlo.constant dense<0.0> : tensor<f64>
    %%lsum = stablehlo.reduce(%%ll init: %%zero) applies stablehlo.add across dimensions = [0]
      : (tensor<%2$dxf64>, tensor<f64>) -> tensor<f64>
    %%lsum_1d = stablehlo.reshape %%lsum : (tensor<f64>) -> tensor<1xf64>
    // The local log-likelihood sum rides with the gradient in one all_reduce.
    %%gl = stablehlo.concatenate %%g, %%lsum_1d, dim = 0 : (tensor<9xf64>, tensor<1xf64>) -> tensor<10xf64>
    %%total = \"stablehlo.all_reduce\"(%%gl) ({
    ^bb0(%%u: tensor<f64>, %%v: tensor<f64>):
      %%s = stablehlo.add %%u, %%v : tensor<f64>
      stablehlo.return %%s : tensor<f64>
    }) : (tensor<10xf64>) -> tensor<10xf64>
    %%gsum = stablehlo.slice %%total [0:9] : (tensor<10xf64>) -> tensor<9xf64>
    %%lpart = stablehlo.slice %%total [9:10] : (tensor<10xf64>) -> tensor<1xf64>
    %%lneg = stablehlo.reshape %%lpart : (tensor<1xf64>) -> tensor<f64>
    %%scale = stablehlo.constant dense<%3$.17g> : tensor<9xf64>
    %%delta = stablehlo.multiply %%gsum, %%scale : tensor<9xf64>
    %%w_next = stablehlo.subtract %%w, %%delta : tensor<9xf64>
    %%inv_n = stablehlo.constant dense<%4$.17g> : tensor<f64>
    %%lmean = stablehlo.multiply %%lneg, %%inv_n : tensor<f64>
    %%loss = stablehlo.negate %%lmean : tensor<f64>
    return %%w_next, %%loss : tensor<9xf64>, tensor<f64>
  }
}", devices_in_all, block, learning_rate / rows, 1 / rows)
step <- pjrt_compile(pjrt_program(step_program))

local_devices_list <- devices("cpu")[seq_len(mine)]
blocks <- lapply(seq_len(mine), function(k) {
  process <- first + k - 1L
  r <- process * block + seq_len(block)
  list(
    x = pjrt_buffer(x[r, , drop = FALSE], dtype = "f64", device = local_devices_list[[k]]),
    y = pjrt_buffer(y[r], dtype = "f64", device = local_devices_list[[k]])
  )
})
w <- lapply(local_devices_list, function(d) pjrt_buffer(numeric(9), dtype = "f64", device = d))

loss <- NA_real_
for (i in seq_len(steps)) {
  if (!is.na(fail_at) && i == fail_at && info$rank == info$size - 1L) {
    tools::pskill(Sys.getpid(), tools::SIGKILL)
  }
  args <- lapply(seq_len(mine), function(k) list(w[[k]], blocks[[k]]$x, blocks[[k]]$y))
  out <- pjrt_execute_sharded(step, args, devices = local_devices_list)
  w <- lapply(out, `[[`, 1L)
  loss <- as_array(out[[1L]][[2L]])
}

# The loss printed is the one before the last step, as the loop computes it.
weights <- as_array(w[[1L]])
if (info$rank == 0L) {
  cat(sprintf("final loss: %.10f\n", loss))
  cat(sprintf("checksum: %.10f\n", sum(weights * seq_along(weights))))
}
