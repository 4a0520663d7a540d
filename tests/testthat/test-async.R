# Asynchronous runs (pjrt_async(TRUE)): pjrt_execute() returns before the program has run, and
# every read of a result waits for it. Hostile cases: errors surfacing late, interrupts while
# waiting, fork after launch, results collected unread, donation chains.

local_async <- function(env = parent.frame()) {
  old <- pjrt_async(TRUE)
  withr::defer(pjrt_async(old), envir = env)
}

test_that("pjrt_async() reads and sets the setting", {
  old <- pjrt_async()
  expect_identical(pjrt_async(TRUE), old)
  expect_true(pjrt_async())
  expect_true(pjrt_async(FALSE))
  expect_false(pjrt_async())
  pjrt_async(old)
  expect_snapshot(error = TRUE, pjrt_async("yes"))
})

test_that("a run returns at once and R goes on while it computes", {
  local_async()
  exe <- counting()
  started <- proc.time()[["elapsed"]]
  y <- pjrt_execute(exe, steps(2e6))  # about a second
  returned <- proc.time()[["elapsed"]] - started
  expect_false(is_ready(y))
  expect_lt(returned, 0.2)
  r_work <- sum(sqrt(seq_len(1e5)))  # R runs meanwhile
  expect_equal(r_work, sum(sqrt(seq_len(1e5))))
  expect_identical(as.numeric(as_array(y)), 2e6)
  expect_true(is_ready(y))
  # Upstream's names: await() waits, a promise converts on first use.
  z <- pjrt_execute(exe, steps(5e5))
  promise <- as_array_async(z)
  expect_s3_class(promise, "PJRTArrayPromise")
  expect_identical(await(z), z)
  expect_true(is_ready(promise))
  expect_identical(as.numeric(value(promise)), 5e5)
  expect_identical(as_array(promise), value(promise))
})

test_that("an error of the run surfaces at the first read of any of its results", {
  local_async()
  exe <- pjrt_compile(pjrt_program("
func.func @main(%x: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  check.expect_eq_const %x, dense<[1.0, 2.0]> : tensor<2xf32>
  %y = stablehlo.negate %x : tensor<2xf32>
  return %x, %y : tensor<2xf32>, tensor<2xf32>
}"))
  good <- pjrt_execute(exe, pjrt_buffer(c(1, 2), dtype = "f32"))
  expect_identical(as.vector(as_array(good[[2]])), c(-1, -2))
  results <- pjrt_execute(exe, pjrt_buffer(c(1, 3), dtype = "f32"))  # returns: no error yet
  expect_length(results, 2)
  expect_snapshot(error = TRUE, {
    as_array(results[[1]])
    print(results[[2]])
    await(results[[2]])
  })
  expect_error(as_array(results[[1]]), class = "pjrt_error")
  # Passing a failed result to the next run raises its error there.
  expect_error(pjrt_execute(exe, results[[1]]), "expect_eq_const failed")
})

test_that("donation chains run in order and invalidate each donated buffer at once", {
  local_async()
  exe <- pjrt_compile(pjrt_program("
func.func @main(%x: tensor<3xf64> {tf.aliasing_output = 0 : i32}) -> tensor<3xf64> {
  %two = stablehlo.constant dense<2.0> : tensor<3xf64>
  %y = stablehlo.multiply %x, %two : tensor<3xf64>
  return %y : tensor<3xf64>
}"))
  x <- pjrt_buffer(c(1, 2, 3), dtype = "f64")
  y <- pjrt_execute(exe, x)
  z <- pjrt_execute(exe, y)  # waits for y, then donates it
  w <- pjrt_execute(exe, z)
  expect_identical(as.vector(as_array(w)), c(8, 16, 24))
  expect_error(as_array(x), "donated")
  expect_error(as_array(y), "donated")
  expect_error(as_array(z), "donated")
})

test_that("quick runs without loops run at once; runs of loops are always queued", {
  local_async()
  exe <- pjrt_compile(pjrt_program("
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = stablehlo.add %x, %x : tensor<3xf32>
  return %y : tensor<3xf32>
}"))
  x <- pjrt_buffer(c(1, 2, 3), dtype = "f32")
  # Its first run is measured on the queue; once a run took under 50 us, later runs take R's
  # thread and are ready when the call returns (a few tries: a busy machine may be slow).
  ready <- FALSE
  for (i in 1:200) {
    y <- pjrt_execute(exe, x)
    ready <- is_ready(y)
    expect_identical(as.vector(as_array(y)), c(2, 4, 6))
    if (ready) break
  }
  expect_true(ready)
  # Behind queued work it queues, and does not overtake it.
  loop <- counting()
  slow <- pjrt_execute(loop, steps(2e6))
  y <- pjrt_execute(exe, x)
  expect_false(is_ready(slow))
  expect_identical(as.vector(as_array(y)), c(2, 4, 6))
  expect_true(is_ready(slow))
  # A loop's quick runs do not make its next run synchronous: its trip count may be anything.
  for (i in 1:3) expect_identical(as.numeric(as_array(pjrt_execute(loop, steps(3)))), 3)
  started <- proc.time()[["elapsed"]]
  slow <- pjrt_execute(loop, steps(2e6))
  expect_lt(proc.time()[["elapsed"]] - started, 0.2)
  expect_false(is_ready(slow))
  expect_identical(as.numeric(as_array(slow)), 2e6)
})

test_that("results dropped unread are collected, and later runs work", {
  local_async()
  exe <- counting()
  for (i in 1:20) pjrt_execute(exe, steps(1e4))
  gc()
  expect_identical(as.numeric(as_array(pjrt_execute(exe, steps(7)))), 7)
})

test_that("a forked child can read results launched before the fork and run its own", {
  skip_on_os("windows")
  local_async()
  exe <- counting()
  y <- pjrt_execute(exe, steps(3e5))
  child <- parallel::mcparallel({
    c(as.numeric(as_array(y)), as.numeric(as_array(pjrt_execute(exe, steps(11)))))
  })
  expect_identical(parallel::mccollect(child)[[1]], c(3e5, 11))
  expect_identical(as.numeric(as_array(y)), 3e5)
})

test_that("programs with custom calls run at once even when runs are asynchronous", {
  local_async()
  exe <- pjrt_compile(pjrt_program("
func.func @main(%f: tensor<2xf32>) -> tensor<2xf32> {
  stablehlo.custom_call @print_tensor(%f) {api_version = 4 : i32, has_side_effect = true} : (tensor<2xf32>) -> ()
  return %f : tensor<2xf32>
}"))
  output <- capture.output(y <- pjrt_execute(exe, pjrt_buffer(c(1, 2), dtype = "f32")))
  expect_true(is_ready(y))
  expect_true(length(output) > 0)
})

test_that("an interrupt while waiting leaves the session usable", {
  skip_on_cran()
  skip_on_os("windows")
  skip_under_valgrind("valgrind delivers SIGINT to worker threads, which Linux does not")
  local_async()
  exe <- counting()
  y <- pjrt_execute(exe, steps(4e6))  # about two seconds
  outcome <- tryCatch({
    tools::pskill(Sys.getpid(), tools::SIGINT)
    tryCatch({
      as_array(y)
      for (i in 1:200) Sys.sleep(0.01)
      "completed"
    }, error = function(e) paste("caught as an error:", conditionMessage(e)))
  }, interrupt = function(i) "interrupt")
  expect_identical(outcome, "interrupt")
  # Whether R or the wait took the interrupt, the next run computes its value.
  expect_identical(as.numeric(as_array(pjrt_execute(exe, steps(5)))), 5)
})

test_that("the dtype, shape and device of a pending result are known without waiting", {
  local_async()
  exe <- counting()
  y <- pjrt_execute(exe, steps(2e6))
  expect_identical(shape(y), integer())
  expect_identical(as.character(elt_type(y)), "i64")
  expect_identical(device(y), pjrt_device("cpu:0"))
  expect_false(is_ready(y))
  expect_identical(await(y), y)
  expect_true(is_ready(y))
})

test_that("results in flight count as memory R is told about, until collected", {
  local_async()
  exe <- pjrt_compile(pjrt_program("
func.func @main() -> tensor<8388608xf32> {
  %i = stablehlo.iota dim = 0 : tensor<8388608xf32>
  return %i : tensor<8388608xf32>
}"))
  gc()
  before <- pjrt:::ffi_buffer_memory_bytes()
  y <- pjrt_execute(exe)
  expect_gte(pjrt:::ffi_buffer_memory_bytes() - before, 32 * 2^20)  # counted before it is read
  expect_identical(as.vector(as_array(y))[c(1, 8388608)], c(0, 8388607))
  rm(y)
  gc()
  expect_lt(pjrt:::ffi_buffer_memory_bytes() - before, 2^20)
  # A loop dropping its results unread keeps the count bounded: R collects them.
  for (i in 1:40) pjrt_execute(exe)
  expect_lt(pjrt:::ffi_buffer_memory_bytes() - before, 40 * 32 * 2^20)
})
