# Programs of several processes on several CPU devices (pjrt_execute_sharded()), and splitting R
# arrays across devices (pjrt_shard() / pjrt_unshard()). Expected values come from base R.

# A least-squares SGD step on each device's rows: gradient t(X) %*% (X w - y) summed over the
# devices by all_reduce, then w - lr * gradient.
sgd_program <- function(devices, rows) {
  pjrt_program(sprintf('
module @sgd attributes {mhlo.num_replicas = %1$d : i32, mhlo.num_partitions = 1 : i32} {
  func.func @main(%%w: tensor<3xf64>, %%x: tensor<%2$dx3xf64>, %%y: tensor<%2$dxf64>) -> tensor<3xf64> {
    %%p = stablehlo.dot_general %%x, %%w, contracting_dims = [1] x [0] : (tensor<%2$dx3xf64>, tensor<3xf64>) -> tensor<%2$dxf64>
    %%r = stablehlo.subtract %%p, %%y : tensor<%2$dxf64>
    %%g = stablehlo.dot_general %%r, %%x, contracting_dims = [0] x [0] : (tensor<%2$dxf64>, tensor<%2$dx3xf64>) -> tensor<3xf64>
    %%s = "stablehlo.all_reduce"(%%g) ({
    ^bb0(%%a: tensor<f64>, %%b: tensor<f64>):
      %%0 = stablehlo.add %%a, %%b : tensor<f64>
      stablehlo.return %%0 : tensor<f64>
    }) {replica_groups = dense<[[%3$s]]> : tensor<1x%1$dxi64>} : (tensor<3xf64>) -> tensor<3xf64>
    %%lr = stablehlo.constant dense<0.01> : tensor<3xf64>
    %%d = stablehlo.multiply %%s, %%lr : tensor<3xf64>
    %%n = stablehlo.subtract %%w, %%d : tensor<3xf64>
    return %%n : tensor<3xf64>
  }
}', devices, rows, paste(seq_len(devices) - 1L, collapse = ", ")))
}

test_that("a data-parallel SGD step on 2 and 4 devices equals the whole-batch step in base R", {
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "4")
  x <- outer(1:24, 1:3, function(i, j) sin(i * 1.3 + j))
  y <- cos((1:24) * 0.7)
  w <- c(0.5, -0.25, 0.125)
  want <- drop(w - 0.01 * crossprod(x, x %*% w - y))
  for (n in c(2L, 4L)) {
    executable <- pjrt_compile(sgd_program(n, 24L / n))
    expect_identical(pjrt_process_grid(executable), c(replicas = n, partitions = 1L))
    on <- devices("cpu")[seq_len(n)]
    xs <- pjrt_shard(x, on, dtype = "f64")
    ys <- pjrt_shard(y, on, dtype = "f64")
    args <- lapply(seq_len(n), function(k) {
      list(pjrt_buffer(w, dtype = "f64", device = on[[k]]), xs[[k]], ys[[k]])
    })
    results <- pjrt_execute_sharded(executable, args)
    expect_length(results, n)
    for (k in seq_len(n)) {
      expect_identical(device(results[[k]]), on[[k]])
      expect_equal(as.vector(as_array(results[[k]])), want, tolerance = 1e-13)
      expect_identical(as_array(results[[k]]), as_array(results[[1]]))
    }
  }
})

test_that("a pmap-style program in JAX's printed form runs on two replicas", {
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "2")
  # jax.pmap(lambda v: (v - lax.pmean(v, "i"), lax.axis_index("i")), axis_name="i"), as exported.
  program <- pjrt_program('
module @jit_centre attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 2 : i32} {
  func.func public @main(%arg0: tensor<4xf32> {mhlo.sharding = "{replicated}"}) -> (tensor<4xf32> {jax.result_info = "[0]"}, tensor<i32> {jax.result_info = "[1]"}) {
    %0 = "stablehlo.all_reduce"(%arg0) <{replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %5 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %5 : tensor<f32>
    }) : (tensor<4xf32>) -> tensor<4xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.divide %0, %1 : tensor<4xf32>
    %3 = stablehlo.subtract %arg0, %2 : tensor<4xf32>
    %4 = stablehlo.replica_id : tensor<ui32>
    %6 = stablehlo.convert %4 : (tensor<ui32>) -> tensor<i32>
    return %3, %6 : tensor<4xf32>, tensor<i32>
  }
}')
  executable <- pjrt_compile(program)
  v <- matrix(c(1, 2, 3, 4, 10, 20, 30, 40), 2, byrow = TRUE)
  pieces <- pjrt_shard(v, devices("cpu"), dtype = "f32")
  pieces <- lapply(pieces, function(p) pjrt_buffer(as.vector(as_array(p)), dtype = "f32",
                                                   device = device(p)))
  results <- pjrt_execute_sharded(executable, pieces)
  mean_row <- colMeans(v)
  for (k in 1:2) {
    expect_equal(as.vector(as_array(results[[k]][[1]])), v[k, ] - mean_row)
    expect_identical(as_array(results[[k]][[2]]), k - 1L)
  }
})

test_that("a shard_map-style program exchanges blocks across two partitions", {
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "2")
  # Each partition holds a 2 x 2 block; all_to_all transposes the block layout (channel > 0,
  # so the groups are partitions), all_gather then collects every block on both.
  program <- pjrt_program('
module @jit_blocks attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x2xi32>) -> (tensor<2x2xi32>, tensor<4x2xi32>, tensor<ui32>) {
    %0 = "stablehlo.all_to_all"(%arg0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, concat_dimension = 0 : i64, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, split_count = 2 : i64, split_dimension = 1 : i64}> : (tensor<2x2xi32>) -> tensor<4x1xi32>
    %1 = stablehlo.reshape %0 : (tensor<4x1xi32>) -> tensor<2x2xi32>
    %2 = "stablehlo.all_gather"(%arg0) <{all_gather_dim = 0 : i64, channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> : (tensor<2x2xi32>) -> tensor<4x2xi32>
    %3 = stablehlo.partition_id : tensor<ui32>
    return %1, %2, %3 : tensor<2x2xi32>, tensor<4x2xi32>, tensor<ui32>
  }
}')
  executable <- pjrt_compile(program)
  expect_identical(pjrt_process_grid(executable), c(replicas = 1L, partitions = 2L))
  a <- matrix(1:4, 2, byrow = TRUE)
  b <- matrix(5:8, 2, byrow = TRUE)
  on <- devices("cpu")
  results <- pjrt_execute_sharded(executable, list(
    pjrt_buffer(a, dtype = "i32", device = on[[1]]),
    pjrt_buffer(b, dtype = "i32", device = on[[2]])
  ))
  # Partition p receives column p + 1 of every block, stacked (row-major reshape to 2 x 2).
  expect_identical(as_array(results[[1]][[1]]), matrix(c(1L, 3L, 5L, 7L), 2, byrow = TRUE))
  expect_identical(as_array(results[[2]][[1]]), matrix(c(2L, 4L, 6L, 8L), 2, byrow = TRUE))
  for (k in 1:2) {
    expect_identical(as_array(results[[k]][[2]]), rbind(a, b))
    expect_identical(as.numeric(as_array(results[[k]][[3]])), k - 1)
  }
})

test_that("pjrt_shard() and pjrt_unshard() split and bind along any axis", {
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "3")
  on <- devices("cpu")
  x <- array(as.double(1:36), c(6, 2, 3))
  pieces <- pjrt_shard(x, on, axis = 1L)
  expect_length(pieces, 3)
  expect_identical(lapply(pieces, device), on)
  expect_identical(as_array(pieces[[2]]), x[3:4, , , drop = FALSE])
  expect_identical(pjrt_unshard(pieces), x)
  expect_identical(pjrt_unshard(pjrt_shard(x, on, axis = 3L), axis = 3L), x)
  expect_identical(pjrt_unshard(pjrt_shard(1:9, on)), 1:9)
  expect_snapshot(error = TRUE, {
    pjrt_shard(1:10, on)
    pjrt_shard(x, on, axis = 4)
    pjrt_unshard(list(pieces[[1]], pjrt_buffer(1:3)))
  })
})

test_that("bad arguments, a failing process and an absent peer are clear errors", {
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "2")
  executable <- pjrt_compile(pjrt_program('
module @m attributes {mhlo.num_replicas = 2 : i32} {
  func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {
    %id = stablehlo.replica_id : tensor<ui32>
    %zero = stablehlo.constant dense<0> : tensor<ui32>
    %first = stablehlo.compare EQ, %id, %zero : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
    %r = "stablehlo.if"(%first) ({
      %g = "stablehlo.all_gather"(%x) {all_gather_dim = 0 : i64} : (tensor<2xf32>) -> tensor<4xf32>
      %h = stablehlo.slice %g [2:4] : (tensor<4xf32>) -> tensor<2xf32>
      stablehlo.return %h : tensor<2xf32>
    }, {
      stablehlo.return %x : tensor<2xf32>
    }) : (tensor<i1>) -> tensor<2xf32>
    return %r : tensor<2xf32>
  }
}'))
  on <- devices("cpu")
  pieces <- pjrt_shard(c(1, 2, 3, 4), on, dtype = "f32")
  expect_snapshot(error = TRUE, {
    pjrt_execute(executable, pieces[[1]])
    pjrt_execute_sharded(executable, pieces[1])
    pjrt_execute_sharded(executable, list(pieces[[1]], 2))
    pjrt_execute_sharded(executable, rev(pieces))
    pjrt_execute_sharded(executable, pieces, devices = list(on[[1]], on[[1]]))
    pjrt_execute_sharded(executable, pieces, timeout = 0.2)
  })
})
