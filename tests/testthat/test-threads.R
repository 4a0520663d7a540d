# pjrt_threads(): the option pjrt.threads, PJRT_NUM_THREADS and the count in effect.

test_that("the count is a whole number of at least one, and the option sets it", {
  withr::local_options(pjrt.threads = NULL)
  withr::local_envvar(PJRT_NUM_THREADS = NA)
  default <- pjrt_threads()
  expect_true(is.integer(default) && length(default) == 1 && default >= 1)
  expect_lte(default, max(1L, parallel::detectCores(), na.rm = TRUE))
  withr::with_options(list(pjrt.threads = 1), expect_identical(pjrt_threads(), 1L))
  withr::with_options(list(pjrt.threads = 1e9), expect_identical(pjrt_threads(), default))
  withr::with_envvar(c(PJRT_NUM_THREADS = "1"), expect_identical(pjrt_threads(), 1L))
})

test_that("setting returns the previous count invisibly and 0 goes back to the default", {
  withr::local_options(pjrt.threads = NULL)
  withr::local_envvar(PJRT_NUM_THREADS = NA)
  default <- pjrt_threads()
  expect_invisible(old <- pjrt_threads(1))
  expect_identical(old, default)
  expect_identical(getOption("pjrt.threads"), 1L)
  expect_identical(pjrt_threads(), 1L)
  expect_identical(pjrt_threads(0), 1L)
  expect_null(getOption("pjrt.threads"))
  expect_identical(pjrt_threads(), default)
})

test_that("malformed counts, options and environment variables are errors", {
  withr::local_options(pjrt.threads = NULL)
  withr::local_envvar(PJRT_NUM_THREADS = NA)
  expect_snapshot(error = TRUE, pjrt_threads(-1))
  expect_snapshot(error = TRUE, pjrt_threads(1.5))
  expect_snapshot(error = TRUE, pjrt_threads("two"))
  expect_snapshot(error = TRUE, pjrt_threads(c(1, 2)))
  expect_snapshot(error = TRUE, withr::with_options(list(pjrt.threads = "x"), pjrt_threads()))
  expect_snapshot(error = TRUE, withr::with_options(list(pjrt.threads = 0), pjrt_threads()))
  expect_snapshot(error = TRUE, withr::with_envvar(c(PJRT_NUM_THREADS = "two"), pjrt_threads()))
  expect_snapshot(error = TRUE, withr::with_envvar(c(PJRT_NUM_THREADS = "0"), pjrt_threads()))
  expect_null(getOption("pjrt.threads"))
})

test_that("a malformed option does not stop conversions, which then use the default", {
  withr::local_options(pjrt.threads = "x")
  x <- seq(0, 4e5 - 1) / 2  # large enough for threads; every value exact in f32
  expect_identical(as_array(pjrt_buffer(x, dtype = "f32")), array(x))
})

test_that("conversions give the same values on one thread and on several", {
  withr::local_options(pjrt.threads = NULL)
  x <- seq(-2e5, 2e5 - 1) / 4
  xi <- as.integer(seq_len(6e5) %% 200L)
  results <- lapply(list(1L, NULL), function(threads) {
    withr::with_options(list(pjrt.threads = threads), list(
      f32 = as_array(pjrt_buffer(x, dtype = "f32")),
      bf16 = as_array(pjrt_buffer(x, dtype = "bf16")),
      ui8 = as_array(pjrt_buffer(xi, dtype = "ui8"))
    ))
  })
  expect_identical(results[[1]], results[[2]])
  expect_identical(results[[2]]$f32, array(x))
  expect_identical(results[[2]]$ui8, array(xi))
  # bf16 keeps 8 significant bits: quarters up to 2^6 in magnitude are exact.
  small <- abs(x) <= 64
  expect_identical(as.vector(results[[2]]$bf16)[small], x[small])
})

test_that("large fused programs run on worker threads and give base R's values", {
  # Fused groups run their blocks on every thread; the blocks' memory must not come from R's
  # allocator there (R may be called from its main thread only).
  skip_on_cran()
  old <- pjrt_threads(2)
  on.exit(pjrt_threads(old), add = TRUE)
  n <- 2e6
  x <- as.integer(seq_len(n) - n / 2)
  type <- sprintf("tensor<%dxi32>", n)
  src <- paste(
    sprintf("func.func @main(%%x: %s, %%k: tensor<i32>) -> %s {", type, type),
    sprintf("  %%kb = stablehlo.broadcast_in_dim %%k, dims = [] : (tensor<i32>) -> %s", type),
    sprintf("  %%0 = stablehlo.multiply %%x, %%kb : %s", type),
    sprintf("  %%1 = stablehlo.add %%0, %%x : %s", type),
    sprintf("  %%2 = stablehlo.abs %%1 : %s", type),
    sprintf("  return %%2 : %s", type), "}", sep = "\n")
  exe <- pjrt_compile(pjrt_program(src))
  for (i in 1:3) {
    y <- pjrt_execute(exe, pjrt_buffer(x, dtype = "i32"), pjrt_scalar(3L, dtype = "i32"))
    expect_identical(as_array(y), array(abs(x * 3L + x)))
  }
  h <- seq(-2, 2, length.out = n)
  half <- sprintf("tensor<%dxf16>", n)
  src16 <- paste(
    sprintf("func.func @main(%%x: %s) -> %s {", half, half),
    sprintf("  %%0 = stablehlo.multiply %%x, %%x : %s", half),
    sprintf("  %%1 = stablehlo.negate %%0 : %s", half),
    sprintf("  return %%1 : %s", half), "}", sep = "\n")
  z <- as_array(run_program(src16, pjrt_buffer(h, dtype = "f16")))
  h16 <- as_array(pjrt_buffer(h, dtype = "f16"))
  expect_identical(z, as_array(pjrt_buffer(-(h16 * h16), dtype = "f16")))
})

test_that("outputs advised for huge pages hold the same values", {
  # Large enough for the advice (4 MiB and more) on both sides: a 6 MiB f32 buffer made from
  # 12 MiB of doubles, read back into 12 MiB, transposed into raw bytes and an HArray.
  x <- seq(0, 1.5 * 2^20 - 1) - 2^19  # every value exact in f32
  for (setting in c("0", "1")) {
    withr::local_envvar(PJRT_HUGE_PAGES = setting)
    b <- pjrt_buffer(x, dtype = "f32", shape = c(1024, 1536))
    expect_identical(as_array(b), array(x, c(1024, 1536)))
    expect_identical(as_array(pjrt_buffer(x, dtype = "f64")), array(x))
    bytes <- as_raw(b, row_major = TRUE)
    expect_identical(readBin(bytes, "double", n = 3, size = 4),
                     c(x[1], x[1 + 1024], x[1 + 2 * 1024]))
    expect_identical(length(bytes), 4L * length(x))
    h <- HArray$new_from_buffer(pjrt_buffer(x, dtype = "f64", shape = c(1024, 1536)))
    collected <- h$collect()  # R's dims again: the same values in the same order
    expect_identical(dim(collected), c(1024L, 1536L))
    expect_identical(as.vector(collected), x)
  }
})

test_that("f32 and bf16 products give the same bits on one thread and on several", {
  # Products large enough for oneDNN's kernels where the build has them, small ones through
  # the BLAS; batched; operands made from R matrices (column-major) and a program's result.
  withr::defer(pjrt_threads(0))
  set.seed(11)
  a <- matrix(rnorm(300 * 200), 300)
  b <- matrix(rnorm(200 * 250), 200)
  x <- array(rnorm(4 * 64 * 96), c(4, 64, 96))
  y <- array(rnorm(4 * 96 * 80), c(4, 96, 80))
  product <- function(dtype, lhs, rhs, batched) {
    t <- function(d) sprintf("tensor<%sx%s>", paste(d, collapse = "x"), dtype)
    out <- if (batched) c(dim(lhs)[1:2], dim(rhs)[3]) else c(nrow(lhs), ncol(rhs))
    dims <- if (batched) "batching_dims = [0] x [0], contracting_dims = [2] x [1]"
            else "contracting_dims = [1] x [0]"
    text <- sprintf(paste0("func.func @main(%%a: %1$s, %%b: %2$s) -> %3$s {\n",
                           "  %%c = stablehlo.dot_general %%a, %%b, %4$s : (%1$s, %2$s) -> %3$s\n",
                           "  return %%c : %3$s\n}"), t(dim(lhs)), t(dim(rhs)), t(out), dims)
    as_array(pjrt_execute(pjrt_compile(pjrt_program(text)), pjrt_buffer(lhs, dtype),
                          pjrt_buffer(rhs, dtype)))
  }
  for (dtype in c("f32", "bf16")) {
    pjrt_threads(1)
    one <- list(product(dtype, a, b, FALSE), product(dtype, x, y, TRUE),
                product(dtype, a[1:20, 1:30], b[1:30, 1:10], FALSE))
    pjrt_threads(2)
    two <- list(product(dtype, a, b, FALSE), product(dtype, x, y, TRUE),
                product(dtype, a[1:20, 1:30], b[1:30, 1:10], FALSE))
    # Under valgrind the CPU has no AVX-512: bf16 products then take the widening path through
    # OpenBLAS's Haswell kernels, whose 2-thread results differed in the last bits from the
    # 1-thread ones (CONTRIBUTING, known traps).
    if (dtype == "f32" || !nzchar(Sys.getenv("PJRT_VALGRIND"))) {
      expect_identical(one, two, label = dtype)
    }
    tolerance <- if (dtype == "f32") 1e-5 else 2e-2
    expect_equal(one[[1]], a %*% b, tolerance = tolerance)
    expect_equal(one[[3]], a[1:20, 1:30] %*% b[1:30, 1:10], tolerance = tolerance)
  }
})

test_that("pjrt_threads() sets the BLAS's thread count too", {
  withr::local_options(pjrt.threads = NULL)
  withr::local_envvar(PJRT_NUM_THREADS = NA)
  blas <- pjrt:::ffi_blas_threads(TRUE)
  skip_if(attr(blas, "library") == "", "the BLAS R links has no thread setter")
  default <- pjrt_threads()
  expect_identical(as.vector(blas), default)
  withr::defer(pjrt_threads(0))
  pjrt_threads(1)
  expect_identical(as.vector(pjrt:::ffi_blas_threads(TRUE)), 1L)
  pjrt_threads(2)
  expect_identical(as.vector(pjrt:::ffi_blas_threads(TRUE)), min(2L, default))
  pjrt_threads(0)
  expect_identical(as.vector(pjrt:::ffi_blas_threads(TRUE)), default)
})

test_that("a matrix product sets the BLAS's count from the option in effect", {
  withr::local_options(pjrt.threads = NULL)
  withr::local_envvar(PJRT_NUM_THREADS = NA)
  skip_if(attr(pjrt:::ffi_blas_threads(TRUE), "library") == "",
          "the BLAS R links has no thread setter")
  skip_if(pjrt_threads() < 2, "a single thread: the count could not change")
  withr::defer(pjrt:::ffi_blas_threads(TRUE))
  # f64: large f32 products go to oneDNN where the build has it, not to the BLAS.
  program <- pjrt_program(paste(
    "func.func @main(%a: tensor<256x256xf64>, %b: tensor<256x256xf64>) -> tensor<256x256xf64> {",
    "  %c = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<256x256xf64>, tensor<256x256xf64>) -> tensor<256x256xf64>",
    "  return %c : tensor<256x256xf64>", "}", sep = "\n"))
  a <- matrix(1, 256, 256)
  # The product must run on this thread, whose BLAS count is read below (OpenBLAS keeps one
  # per thread): not on a device queue's.
  old_async <- pjrt_async(FALSE)
  withr::defer(pjrt_async(old_async))
  options(pjrt.threads = 1)  # not through pjrt_threads(): only the product can set the BLAS
  got <- as_array(pjrt_execute(pjrt_compile(program), pjrt_buffer(a, "f64"), pjrt_buffer(a, "f64")))
  expect_identical(got, a * 256)
  expect_identical(as.vector(pjrt:::ffi_blas_threads(FALSE)), 1L)
})

# The GNU OpenMP runtime keeps a team of threads for each thread that starts parallel regions;
# while two teams exist on a machine with as many processors as a team has threads, its barriers
# stop spinning for good and every region runs at a fraction of its speed. A thread that hands
# its runs to a device's worker, and a worker going idle, end their teams. Counted in the
# process's threads, where Linux lists them (macOS, whose compilers use LLVM's runtime, has no
# /proc; that runtime keeps paused threads asleep).
process_threads <- function() length(list.files("/proc/self/task"))

# The count once it has stayed the same for 50 ms, or after two seconds.
steady_threads <- function() {
  count <- process_threads()
  same <- 0
  for (i in 1:400) {
    Sys.sleep(0.005)
    now <- process_threads()
    same <- if (now == count) same + 1 else 0
    count <- now
    if (same >= 10) break
  }
  count
}

# Polls until the process has `expected` threads (teams end shortly after their release).
threads_settle_at <- function(expected) {
  for (i in 1:400) {
    if (process_threads() == expected) break
    Sys.sleep(0.005)
  }
  process_threads()
}

test_that("handing runs to the device's worker ends R's thread's team, and an idle worker ends its own", {
  skip_on_cran()
  skip_if_not(dir.exists("/proc/self/task"), "no /proc/self/task to count threads in")
  skip_if(pjrt:::ffi_start_thread_team(TRUE) < 2, "built without OpenMP")
  # The worker exists now, idle, and has ended its team; R's thread has none (queueing ended it).
  baseline <- steady_threads()
  expect_identical(pjrt:::ffi_start_thread_team(FALSE), 2L)  # a team on R's thread
  expect_identical(process_threads(), baseline + 1L)
  expect_identical(pjrt:::ffi_start_thread_team(TRUE), 2L)  # R's team ended, the worker's started
  expect_identical(threads_settle_at(baseline), baseline)  # ... and ended when it went idle
})
