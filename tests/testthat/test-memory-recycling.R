# Large results (1 MiB and more) live in blocks the core keeps after R collects them, so the
# next result of a similar size reuses pages that are already mapped.

recycled <- function() pjrt:::ffi_recycled_bytes()[[1]]
live <- function() pjrt:::ffi_recycled_bytes()[[2]]

test_that("a collected large result is kept and the next one reuses it with the right values", {
  # Room for this test's block alone: releasing it unmaps whatever earlier tests left kept.
  withr::local_envvar(PJRT_RECYCLE_MB = "9")
  n <- 2^20  # 8 MiB of doubles
  x <- seq_len(n) / 8  # exact in f32 (at most 20 significant bits)
  b <- pjrt_buffer(x, dtype = "f32")
  expected <- x
  first <- as_array(b)
  expect_identical(first, array(expected, n))
  rm(first)
  invisible(gc())
  # The block: 8 MiB of data and R's and our headers, rounded up to 64 KiB.
  expect_identical(recycled(), 8 * 2^20 + 2^16)
  # Refilled in place: the values are the new buffer's, none left from the old result.
  second <- as_array(pjrt_buffer(rev(x), dtype = "f32"))
  expect_identical(second, array(rev(expected), n))
  expect_identical(recycled(), 0)
  # An ordinary R vector in every way: modified (a copy), serialised, subset.
  copy <- second
  copy[1] <- -1
  expect_identical(second[1], expected[n])
  expect_identical(unserialize(serialize(second, NULL)), second)
  expect_identical(second[c(1, n)], array(expected[c(n, 1)]))  # a 1-d array keeps its dim
})

test_that("as_raw() and integer results of 1 MiB and more are recycled too", {
  n <- 2^20 + 3
  b <- pjrt_buffer(rep(c(-3L, 0L, 7L), length.out = n), dtype = "i8")
  expect_identical(as_array(b), array(rep(c(-3L, 0L, 7L), length.out = n), n))
  bytes <- as_raw(b, row_major = TRUE)
  expect_identical(bytes[1:3], as.raw(c(0xfd, 0x00, 0x07)))
  expect_length(bytes, n)
  before <- recycled()
  rm(bytes)
  invisible(gc())
  expect_gt(recycled(), before)
})

test_that("PJRT_RECYCLE_MB = 0 keeps nothing", {
  withr::local_envvar(PJRT_RECYCLE_MB = "0")
  y <- as_array(pjrt_buffer(as.double(1:2^20), dtype = "f32"))
  expect_identical(y[2^20], 2^20)
  rm(y)
  invisible(gc())
  expect_identical(recycled(), 0)
})

test_that("forked workers get correct large results", {
  skip_on_os("windows")
  skip_under_valgrind()
  b <- pjrt_buffer(as.double(1:2^20), dtype = "f32")
  y <- as_array(b)
  rm(y)
  invisible(gc())  # the parent keeps a block the children must not write through
  sums <- parallel::mclapply(1:2, function(k) {
    r <- as_array(b)
    sum(r) + k
  }, mc.cores = 2)
  expect_identical(unlist(sums), sum(as.double(1:2^20)) + 1:2)
  expect_identical(sum(as_array(b)), sum(as.double(1:2^20)))
})

test_that("dead large results are collected although R's heap does not count them", {
  skip_under_valgrind()
  b <- pjrt_buffer(rep(0.5, 2^23), dtype = "f32")  # 64 MiB results
  peak <- 0
  for (i in 1:24) {  # 1.5 GiB in all, never referenced after the call
    expect_identical(as_array(b)[2^23], 0.5)
    peak <- max(peak, live())
  }
  # Collections are asked for beyond 1 GiB of live results: at most that plus one more.
  expect_lte(peak, 2^30 + 2^26 + 2^20)
  expect_gte(peak, 2 * 2^26)  # results did live until a collection
})

test_that("a loop that drops its large results reuses their blocks instead of piling them up", {
  skip_under_valgrind()
  withr::local_envvar(PJRT_RECYCLE_MB = "128")
  live <- function() pjrt:::ffi_buffer_memory_bytes()
  x <- pjrt_buffer(seq_len(2^20) / 4, dtype = "f32")  # 4 MiB
  exe <- pjrt_compile(pjrt_program(paste(
    "func.func @main(%x: tensor<1048576xf32>) -> tensor<1048576xf32> {",
    "  %y = stablehlo.negate %x : tensor<1048576xf32>",
    "  return %y : tensor<1048576xf32>", "}", sep = "\n")))
  invisible(gc())
  base <- live()
  peak <- 0
  for (i in 1:128) {  # 512 MiB of results in all, each dropped at once
    y <- pjrt_execute(exe, x)
    peak <- max(peak, live() - base)
    rm(y)
  }
  # A young collection runs once 64 MiB of blocks were handed out since the last one and no
  # kept block fits: at most that much of dead results waits for it, plus the new result.
  expect_lte(peak, 64 * 2^20 + 2 * 4 * 2^20)
  expect_identical(as_array(pjrt_execute(exe, x))[2^20], -2^18)
})
