# Zero-copy creation (SPEC 2.2): double -> f64, integer -> i32, integer64 -> i64 and
# complex -> c128 alias the R vector's memory; everything else copies.

zero_copy_cases <- list(
  f64 = c(1.5, 2.5, 3.5),
  i32 = c(1L, 2L, 3L),
  i64 = i64(c(1, 2, 3)),
  c128 = c(1 + 1i, 2, 3)
)

test_that("buffers made from the same vector at its own dtype share its memory", {
  for (dtype in names(zero_copy_cases)) {
    x <- zero_copy_cases[[dtype]]
    a <- pjrt_buffer(x, dtype = dtype)
    b <- pjrt_buffer(x, dtype = dtype)
    expect_identical(buffer_address(a), buffer_address(b), label = dtype)
    # also when re-shaped, and as a scalar
    m <- pjrt_buffer(x, dtype = dtype, shape = c(1, 3))
    expect_identical(buffer_address(m), buffer_address(a), label = dtype)
    s1 <- x[1]
    expect_identical(buffer_address(pjrt_scalar(s1, dtype = dtype)),
                     buffer_address(pjrt_buffer(s1, dtype = dtype)), label = dtype)
  }
  # the defaults for integer, integer64 are their zero-copy dtypes
  x <- 1:3
  expect_identical(buffer_address(pjrt_buffer(x)), buffer_address(pjrt_buffer(x, dtype = "i32")))
  y <- i64(1:3)
  expect_identical(buffer_address(pjrt_buffer(y)), buffer_address(pjrt_buffer(y, dtype = "s64")))
})

test_that("an ALTREP sequence is materialised once and then shared", {
  x <- 1:100
  expect_identical(buffer_address(pjrt_buffer(x)), buffer_address(pjrt_buffer(x)))
  expect_identical(as_array(pjrt_buffer(x)), array(1:100))
})

test_that("copying dtypes give a new buffer each time", {
  copies <- list(
    list(c(1.5, 2.5), "f32"), list(c(1, 2), "i64"), list(c(1, 2), "c128"),
    list(1:2, "i64"), list(1:2, "f64"), list(1:2, "i16"),
    list(i64(1:2), "f64"), list(i64(1:2), "ui64"),
    list(c(1i, 2), "c64"), list(c(TRUE, FALSE), "pred"), list(c(TRUE, FALSE), "i32")
  )
  for (case in copies) {
    x <- case[[1]]
    dtype <- case[[2]]
    a <- pjrt_buffer(x, dtype = dtype)
    b <- pjrt_buffer(x, dtype = dtype)
    expect_false(identical(buffer_address(a), buffer_address(b)), label = dtype)
    expect_equal(a, b, label = dtype)
  }
  # Recycling a length-1 vector copies even at the vector's own dtype.
  x <- 2.5
  expect_false(identical(buffer_address(pjrt_buffer(x, dtype = "f64", shape = 2)),
                         buffer_address(pjrt_buffer(x, dtype = "f64", shape = 2))))
})

test_that("zero-copy creation allocates no memory for the data", {
  skip_if_not_installed("bench")
  skip_if_not(capabilities("profmem"), "R was built without memory profiling")
  # Buffer storage pjrt allocates lives outside R's heap, counted by the package; R's memory
  # profiler sees what R allocates. `allocated()` gives both, in bytes, for one creation.
  storage <- function() pjrt:::ffi_buffer_memory_bytes()
  allocated <- function(expr) {
    invisible(gc())
    before <- storage()
    r_heap <- as.numeric(bench::bench_memory(value <- expr)$mem_alloc)
    c(r_heap = r_heap, storage = storage() - before)
  }
  none <- function(bytes) expect_true(bytes[["r_heap"]] < 1e6 && bytes[["storage"]] == 0)
  x <- rep_len(c(1.5, 2.5), 1e7) # 80 MB
  pjrt_buffer(x[1:2], dtype = "f64") # warm up (byte compilation allocates)
  none(allocated(b <- pjrt_buffer(x, dtype = "f64")))
  expect_identical(as.vector(as_array(b))[c(1, 2, 1e7)], c(1.5, 2.5, 2.5))
  # The measurement does see a copy: f32 needs 40 MB.
  expect_identical(allocated(pjrt_buffer(x, dtype = "f32"))[["storage"]], 4e7)

  xi <- rep_len(c(1L, 2L, 3L), 1e7) # 40 MB, scanned for NA (check = "warn") but not copied
  none(allocated(bi <- pjrt_buffer(xi)))
  xi[2] <- NA
  none(allocated(bi <- pjrt_buffer(xi, check = "ignore")))
  expect_identical(as.vector(as_array(bi, check = "ignore"))[1:3], c(1L, NA, 3L))

  xz <- rep_len(c(1 + 2i, -1i), 1e6) # 16 MB
  none(allocated(pjrt_buffer(xz, dtype = "c128")))
  x64 <- i64(rep_len(c(1, 2), 1e6)) # 8 MB
  none(allocated(pjrt_buffer(x64)))
})

test_that("modifying the vector afterwards does not change the buffer", {
  x <- c(1, 2)
  b <- pjrt_buffer(x, "f64")
  x[1] <- 9
  expect_identical(as_array(b)[1], 1)
  expect_identical(x, c(9, 2))

  x <- c(1L, 2L)
  b <- pjrt_buffer(x, "i32")
  x[1] <- 9L
  expect_identical(as_array(b)[1], 1L)

  x <- c(1 + 1i, 2)
  b <- pjrt_buffer(x, "c128")
  x[1] <- 9i
  expect_identical(as_array(b)[1], 1 + 1i)

  x <- i64(c(1, 2))
  b <- pjrt_buffer(x, "i64")
  x[1] <- i64(9)
  expect_identical(as.character(as_array(b)), c("1", "2"))

  x <- c(1, 2, 3)
  b <- pjrt_buffer(x, "f64")
  x[] <- 0
  x[[2]] <- 7
  dim(x) <- c(1, 3)
  expect_identical(as_array(b), array(c(1, 2, 3)))
})

test_that("a modification inside a function does not reach the buffer", {
  x <- c(1, 2, 3)
  b <- pjrt_buffer(x, "f64")
  f <- function(v) {
    v[2] <- -1
    v
  }
  expect_identical(f(x), c(1, -1, 3))
  expect_identical(as_array(b), array(c(1, 2, 3)))
  expect_identical(x, c(1, 2, 3))
})

test_that("the buffer keeps the vector alive after rm() and gc()", {
  for (dtype in names(zero_copy_cases)) {
    x <- zero_copy_cases[[dtype]]
    expected <- x
    b <- pjrt_buffer(x, dtype = dtype)
    rm(x)
    gc()
    # new allocations must not reuse the vector's memory
    junk <- lapply(1:50, function(i) rep(i, 3))
    expect_identical(as.vector(as_array(b)), as.vector(expected), label = dtype)
  }
  b <- local({
    v <- c(4.5, 5.5)
    pjrt_buffer(v, dtype = "f64")
  })
  gc()
  expect_identical(as_array(b), array(c(4.5, 5.5)))
})

test_that("values read back are a copy", {
  x <- c(1, 2)
  b <- pjrt_buffer(x, "f64")
  y <- as_array(b)
  y[1] <- 5
  expect_identical(as_array(b), array(c(1, 2)))
})

test_that("the vector is released when the buffer is collected", {
  gc()
  before <- gc()[["Vcells", "used"]]
  local({
    for (i in 1:3) {
      v <- runif(1e6)
      b <- pjrt_buffer(v, dtype = "f64")
    }
  })
  gc()
  after <- gc()[["Vcells", "used"]]
  # Each vector is 1e6 Vcells; a leak of even one would show.
  expect_lt(after - before, 5e5)
})

test_that("CPU devices share memory, so zero-copy holds on cpu:1 too", {
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "2")
  x <- c(1.5, 2.5)
  a <- pjrt_buffer(x, dtype = "f64")
  b <- pjrt_buffer(x, dtype = "f64", device = "cpu:1")
  expect_identical(device(b), pjrt_device("cpu:1"))
  expect_identical(buffer_address(a), buffer_address(b))
})
