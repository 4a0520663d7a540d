# as_array() of f64 / i32 buffers in R's memory order: read-only views of the buffer's memory.

view_state <- function(x) pjrt:::ffi_altrep_state(x)

# The copying path's answer, computed with views off.
copied <- function(b, ...) withr::with_options(list(pjrt.altrep = FALSE), as_array(b, ...))

view_cases <- list(
  vector_f64 = list(c(1.5, -2, NaN, NA, Inf), NULL),
  vector_i32 = list(c(3L, NA, -7L, .Machine$integer.max), NULL),
  matrix_f64 = list(c(1, 2, 3, 4, 5, 6), c(2, 3)),
  matrix_i32 = list(1:6, c(3, 2)),
  cube_f64 = list(as.double(1:24) / 7, c(2, 3, 4)),
  cube_i32 = list(24:1, c(4, 3, 2))
)

test_that("f64 and i32 buffers read back as views with the copying path's values", {
  for (case in names(view_cases)) {
    data <- view_cases[[case]][[1]]
    dtype <- if (is.integer(data)) "i32" else "f64"
    b <- pjrt_buffer(data, dtype = dtype, shape = view_cases[[case]][[2]], check = "ignore")
    got <- as_array(b, check = "ignore")
    expect_identical(view_state(got), "shared", label = case)
    expect_identical(got, copied(b, check = "ignore"), label = case)
    dims <- view_cases[[case]][[2]] %||% length(data)
    expect_identical(got, array(data, dims), label = case)
    expect_identical(view_state(copied(b, check = "ignore")), "", label = case)
  }
})

test_that("a view reads the buffer's own memory", {
  b <- pjrt_buffer(c(10, 20, 30), dtype = "f64")
  got <- as_array(b)
  expect_identical(buffer_address(pjrt_buffer(got, dtype = "f64")), buffer_address(b))
  # element access, regions, sums and ranges read without copying
  second <- got[2]
  total <- sum(got)
  extremes <- c(min(got), max(got))
  tail_values <- got[2:3]
  expect_identical(view_state(got), "shared")
  expect_identical(c(second, total, extremes, tail_values), c(20, 60, 10, 30, 20, 30))
  # identical() reads through R's writable accessor: the view makes its copy then
  expect_identical(got, array(c(10, 20, 30)))
  expect_identical(view_state(got), "copied")
  expect_identical(as.vector(as_array(b)), c(10, 20, 30))
})

test_that("zero-length, 0-d and other buffers keep the copying path", {
  expect_identical(as_array(pjrt_buffer(double(), dtype = "f64", shape = 0)), array(double(), 0))
  expect_identical(view_state(as_array(pjrt_buffer(double(), dtype = "f64", shape = 0))), "")
  expect_identical(view_state(as_array(pjrt_buffer(integer(), shape = c(0, 3)))), "")
  s <- as_array(pjrt_scalar(2.5, dtype = "f64"))
  expect_identical(view_state(s), "shared")
  expect_identical(s, 2.5)
  for (dtype in c("f32", "i16", "i64", "ui8", "c128", "pred")) {
    expect_identical(view_state(as_array(pjrt_buffer(c(1, 0), dtype = dtype))), "", label = dtype)
  }
})

test_that("a row-major buffer (a program's result) is copied into R's order", {
  m <- matrix(as.double(1:6), 2)
  b <- pjrt_buffer(m, dtype = "f64")
  # The sum of two R matrices comes back in their column-major layout: shared, not copied.
  sum <- run_program(add_program("tensor<2x3xf64>"), b, b)
  expect_identical(as_array(sum), 2 * m)
  expect_identical(view_state(as_array(sum)), "shared")
  # A transpose's result is row-major.
  rows <- run_program(paste(
    "func.func @main(%a: tensor<3x2xf64>) -> tensor<2x3xf64> {",
    "  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<3x2xf64>) -> tensor<2x3xf64>",
    "  return %t : tensor<2x3xf64>",
    "}", sep = "\n"), pjrt_buffer(t(m), dtype = "f64"))
  expect_identical(as_array(rows), m)
  expect_identical(view_state(as_array(rows)), "")
  column <- run_program(add_program("tensor<3xf64>"), pjrt_buffer(c(1, 2, 3), dtype = "f64"),
                        pjrt_buffer(c(1, 1, 1), dtype = "f64"))
  expect_identical(as_array(column), array(c(2, 3, 4)))  # 1-d: every order is R's order
  expect_identical(view_state(as_array(column)), "shared")
})

test_that("modifying a view copies it once and never changes the buffer", {
  for (dtype in c("f64", "i32")) {
    b <- pjrt_buffer(c(1, 2, 3), dtype = dtype)
    got <- as_array(b)
    other <- got
    got[1] <- 9L
    expect_identical(as.double(got), c(9, 2, 3), label = dtype)
    expect_identical(as.double(other), c(1, 2, 3), label = dtype)
    expect_identical(as.double(as_array(b)), c(1, 2, 3), label = dtype)
    # a view whose memory was asked for writing holds its own copy from then on
    solo <- as_array(b)
    solo[2] <- 7L
    expect_identical(as.double(solo), c(1, 7, 3), label = dtype)
    expect_identical(as.double(as_array(b)), c(1, 2, 3), label = dtype)
  }
})

test_that("a view written through C code gets its own copy first", {
  b <- pjrt_buffer(c(1, 2, 3), dtype = "f64")
  got <- as_array(b)
  # sort(), in place on an unshared vector, asks for writable memory
  y <- as_array(pjrt_buffer(c(3, 1, 2), dtype = "f64"))
  expect_identical(sort(y), array(c(1, 2, 3)))
  expect_identical(as.double(as_array(b)), c(1, 2, 3))
  expect_identical(as.vector(got), c(1, 2, 3))
})

test_that("saveRDS() writes an ordinary vector and readRDS() restores the values", {
  for (dtype in c("f64", "i32")) {
    data <- if (dtype == "i32") matrix(c(1L, 2L, NA, 4L), 2) else matrix(c(1, 2, NA, 4), 2)
    b <- pjrt_buffer(data, dtype = dtype, check = "ignore")
    got <- as_array(b, check = "ignore")
    path <- withr::local_tempfile(fileext = ".rds")
    saveRDS(got, path)
    back <- readRDS(path)
    expect_identical(back, got, label = dtype)
    expect_identical(view_state(back), "", label = dtype)
    # the bytes are those of an ordinary vector: no class of this package is referenced
    expect_identical(serialize(got, NULL), serialize(copied(b, check = "ignore"), NULL),
                     label = dtype)
  }
})

test_that("a view outlives its buffer", {
  got <- local({
    b <- pjrt_buffer(as.double(1:1000) + 0.5, dtype = "f64")
    as_array(b)
  })
  gc()
  gc()
  expect_identical(view_state(got), "shared")
  expect_identical(got[1000], 1000.5)
  expect_identical(sum(got), sum(as.double(1:1000) + 0.5))
  # also when the buffer is donated to a program: the view's hold keeps the memory from reuse
  e <- pjrt_compile(pjrt_program(donation_src))
  x <- pjrt_buffer(1:3, dtype = "f64")  # a private copy, which donation could reuse
  kept <- as_array(x)
  r <- pjrt_execute(e, x, pjrt_buffer(c(2, 2, 2), dtype = "f64"))
  expect_identical(as.vector(as_array(r)), c(2, 4, 6))
  expect_error(shape(x), "donated")
  gc()
  expect_identical(as.vector(kept), c(1, 2, 3))
  expect_identical(view_state(kept), "shared")
})

test_that("buffers mapped from a safetensors file are copied, never viewed", {
  path <- withr::local_tempfile(fileext = ".safetensors")
  values <- as.double(seq_len(2^18))  # 2 MiB: the file is mapped, not read
  pjrt_save_safetensors(list(w = pjrt_buffer(values, dtype = "f64")), path)
  mapped <- pjrt_load_safetensors(path)$w
  got <- as_array(mapped)
  expect_identical(view_state(got), "")
  expect_identical(got, array(values))
  small <- withr::local_tempfile(fileext = ".safetensors")
  pjrt_save_safetensors(list(w = pjrt_buffer(c(1, 2), dtype = "f64")), small)
  read <- as_array(pjrt_load_safetensors(small)$w)  # read into memory: a view is safe
  expect_identical(view_state(read), "shared")
  expect_identical(read, array(c(1, 2)))
})

test_that("duplicate() and attribute changes on shared views give ordinary vectors", {
  got <- as_array(pjrt_buffer(1:4, shape = c(2, 2)))
  alias <- got
  dim(alias) <- NULL
  expect_identical(alias, 1:4)
  expect_identical(view_state(alias), "")
  expect_identical(got, matrix(1:4, 2))
})

test_that("as.vector(), as.double() and as.integer() of matching types are views too", {
  expect_identical(view_state(as.double(pjrt_buffer(c(1.5, 2.5), dtype = "f64"))), "shared")
  expect_identical(view_state(as.vector(pjrt_buffer(matrix(c(1, 2, 3, 4), 2), dtype = "f64"))), "shared")
  expect_identical(view_state(as.integer(pjrt_buffer(matrix(1:4, 2)))), "shared")
  expect_identical(as.integer(pjrt_buffer(matrix(1:4, 2))), 1:4)
  expect_identical(as.double(pjrt_buffer(1:2)), c(1, 2))
})

test_that("options(pjrt.altrep = FALSE) gives ordinary vectors", {
  withr::local_options(pjrt.altrep = FALSE)
  expect_identical(view_state(as_array(pjrt_buffer(c(1, 2), dtype = "f64"))), "")
  expect_identical(view_state(as.double(pjrt_buffer(c(1, 2), dtype = "f64"))), "")
  expect_identical(as_array(pjrt_buffer(1:3)), array(1:3))
})

test_that("the option is read as isTRUE() reads it, unset meaning TRUE", {
  b <- pjrt_buffer(c(1, 2), dtype = "f64")
  for (off in list(NA, "TRUE", 1, c(TRUE, TRUE), list(TRUE))) {
    withr::with_options(list(pjrt.altrep = off), {
      expect_identical(view_state(as_array(b)), "", label = deparse(off))
    })
  }
  withr::with_options(list(pjrt.altrep = NULL), expect_identical(view_state(as_array(b)), "shared"))
  withr::with_options(list(pjrt.altrep = TRUE), expect_identical(view_state(as_array(b)), "shared"))
})

test_that("INT_MIN in an i32 view follows check exactly as a copy does", {
  b <- pjrt_buffer(c(-2^31, 5, -2^31), dtype = "i32", check = "ignore")
  expect_snapshot(got <- as_array(b))
  expect_identical(view_state(got), "shared")
  expect_identical(got, array(c(NA, 5L, NA)))
  expect_snapshot(as_array(b, check = "error"), error = TRUE)
  expect_silent(quiet <- as_array(b, check = "ignore"))
  expect_identical(quiet, array(c(NA, 5L, NA)))
  # the remembered count gives the same answers on later calls, views or not
  expect_snapshot(again <- as_array(b))
  expect_identical(again, array(c(NA, 5L, NA)))
  expect_error(as_array(b, check = TRUE), "2 values")
  expect_warning(off <- copied(b), "2 values")
  expect_identical(off, got)
  expect_silent(as_array(pjrt_buffer(1:3), check = "error"))
})

test_that("views of hostile inputs fail cleanly", {
  expect_identical(view_state(1:3), "")
  expect_identical(view_state(NULL), "")
  expect_identical(view_state(pjrt_buffer(1, dtype = "f64")), "")
  expect_error(pjrt:::with_core(pjrt:::ffi_buffer_values(1:3, TRUE)), "Expected a PJRTBuffer")
  b <- pjrt_buffer(c(1, 2), dtype = "f64")
  restored <- unserialize(serialize(b, NULL))
  expect_error(as_array(restored), "no longer valid")
  torture <- function(expr) {
    gctorture(TRUE)
    on.exit(gctorture(FALSE))
    expr
  }
  got <- torture(as_array(pjrt_buffer(matrix(as.double(1:6), 2), dtype = "f64")))
  expect_identical(got, matrix(as.double(1:6), 2))
})
