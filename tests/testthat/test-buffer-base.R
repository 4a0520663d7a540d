# Base R generics on buffers: answers as for the R array, or clear errors (R/buffer-base.R,
# R/all-equal.R).

m <- matrix(1:6, nrow = 2)

test_that("as.matrix() gives the R matrix, so apply() works by rows and columns", {
  b <- pjrt_buffer(m)
  expect_identical(as.matrix(b), m)
  expect_identical(apply(b, 1, sum), c(9L, 12L))  # 1 + 3 + 5, 2 + 4 + 6
  expect_identical(apply(b, 2, sum), c(3L, 7L, 11L))
  # Other ranks as base R's as.matrix() treats the R array.
  expect_identical(as.matrix(pjrt_buffer(c(1.5, 2.5), dtype = "f64")), matrix(c(1.5, 2.5), 2, 1))
  expect_identical(as.matrix(pjrt_scalar(TRUE)), matrix(TRUE, 1, 1))
  a3 <- array(as.double(1:24), c(2, 3, 4))
  expect_identical(as.matrix(pjrt_buffer(a3, dtype = "f64")), as.matrix(a3))
  expect_identical(apply(pjrt_buffer(a3, dtype = "f64"), 3, sum), apply(a3, 3, sum))
})

test_that("all.equal() compares dtype, shape and values", {
  expect_identical(all.equal(pjrt_buffer(1:3), pjrt_buffer(c(9L, 9L, 9L))),
                   "Mean relative difference: 3.5")  # mean(|9 - 1:3|) / mean(1:3) = 7 / 2
  expect_true(all.equal(pjrt_buffer(1:3), pjrt_buffer(1:3)))
  expect_identical(all.equal(pjrt_buffer(1:3), pjrt_buffer(1:3, dtype = "f32")),
                   "dtype: target is i32, current is f32")
  expect_identical(all.equal(pjrt_buffer(1:6), pjrt_buffer(m)),
                   "shape: target is 6, current is 2x3")
  expect_identical(all.equal(pjrt_scalar(1), pjrt_buffer(1)),
                   "shape: target is (), current is 1")
  expect_identical(all.equal(pjrt_buffer(1:3), 1:3), "target is PJRTBuffer, current is numeric")
  # Tolerance as base R: relative 1.5e-8 by default.
  x <- c(1, 2, 3)
  expect_true(all.equal(pjrt_buffer(x, dtype = "f64"), pjrt_buffer(x + 1e-10, dtype = "f64")))
  expect_identical(all.equal(pjrt_buffer(x, dtype = "f64"), pjrt_buffer(x + 1e-3, dtype = "f64")),
                   all.equal(x, x + 1e-3))
  expect_true(all.equal(pjrt_buffer(x, dtype = "f64"), pjrt_buffer(x + 1e-3, dtype = "f64"),
                        tolerance = 1e-2))
  # Both differences at once; integer64 meets i32 as numbers.
  expect_identical(all.equal(pjrt_buffer(bit64::as.integer64(1:3)), pjrt_buffer(c(1L, 2L, 4L))),
                   c("dtype: target is i64, current is i32", all.equal(c(1, 2, 3), c(1, 2, 4))))
  expect_true(all.equal(pjrt_buffer(bit64::as.integer64(2^40)), pjrt_buffer(bit64::as.integer64(2^40))))
  # ui64 values that all read as NA are told apart by their bytes.
  big <- pjrt_buffer(as.raw(c(rep(0, 7), 0x80)), "ui64", shape = 1, row_major = TRUE)
  bigger <- pjrt_buffer(as.raw(c(1, rep(0, 6), 0x80)), "ui64", shape = 1, row_major = TRUE)
  expect_identical(all.equal(big, bigger), "Values differ: ui64 values of 2^63 or more are not equal.")
  expect_true(all.equal(big, big))
})

test_that("testthat's all.equal()-based comparisons see different buffers", {
  local_edition(2)
  expect_failure(expect_equal(pjrt_buffer(1:3), pjrt_buffer(c(9L, 9L, 9L))))
  expect_success(expect_equal(pjrt_buffer(1:3), pjrt_buffer(1:3)))
})

test_that("all.equal() on HArrays compares dtype, shape and values", {
  f32 <- function(x) HArray$new_from_values(x, HDataType$Float32)
  f64 <- function(x) HArray$new_from_values(x, HDataType$Float64)
  h <- f32(array(c(1, 2, 3)))
  expect_true(all.equal(h, f32(array(c(1, 2, 3)))))
  expect_identical(all.equal(h, f32(array(c(9, 9, 9)))), "Mean relative difference: 3.5")
  expect_identical(all.equal(h, f64(array(c(1, 2, 3)))), "dtype: target is Float32, current is Float64")
  expect_identical(all.equal(h, f32(array(c(1, 2, 3), c(1, 3)))), "shape: target is 3, current is 3x1")
  expect_identical(all.equal(h, 1:3), "target is HArray, current is numeric")
  local_edition(2)
  expect_failure(expect_equal(h, f32(array(c(9, 9, 9)))))
})

test_that("str() and summary() describe the values", {
  expect_snapshot({
    str(pjrt_buffer(m))
    str(pjrt_buffer(1:100, dtype = "f64"))
    str(pjrt_scalar(1.5))
    str(pjrt_buffer(numeric(0)))
    str(pjrt_buffer(complex(real = c(1, 0), imaginary = c(2, 3))))
    str(pjrt_buffer(bit64::as.integer64(c(1, 2^40))))
    str(list(weights = pjrt_buffer(c(TRUE, FALSE))))
  })
  expect_identical(summary(pjrt_buffer(c(1, 2, 3, 10), dtype = "f64")), summary(array(c(1, 2, 3, 10))))
  expect_identical(summary(pjrt_buffer(c(TRUE, FALSE, TRUE))), summary(array(c(TRUE, FALSE, TRUE))))
})

test_that("other conversions answer as for the R array", {
  b <- pjrt_buffer(c(1, NA, 3), dtype = "f64")
  expect_identical(is.na(b), array(c(FALSE, TRUE, FALSE)))
  expect_true(anyNA(b))
  expect_false(anyNA(pjrt_buffer(m)))
  expect_identical(as.character(pjrt_buffer(m)), as.character(1:6))
  expect_identical(as.complex(pjrt_buffer(1:2)), c(1 + 0i, 2 + 0i))
  expect_identical(dim(pjrt_buffer(m)), c(2L, 3L))
  expect_identical(nrow(pjrt_buffer(m)), 2L)
  expect_identical(ncol(pjrt_buffer(m)), 3L)
})

test_that("as.complex() and as.vector(, \"complex\") of 64-bit integer dtypes give the values", {
  # Expected values written out (2^52 + 1 is exact in a double); these dtypes read back as
  # integer64, which bit64 before 4.5 cannot turn into complex itself.
  expected <- c(-2 + 0i, 0 + 0i, 2^52 + 1 + 0i)
  b <- pjrt_buffer(bit64::as.integer64(c("-2", "0", "4503599627370497")), dtype = "i64")
  expect_identical(as.complex(b), expected)
  expect_identical(as.vector(b, "complex"), expected)
  for (dtype in c("ui32", "ui64")) {
    u <- pjrt_buffer(c(0, 4294967295), dtype = dtype)
    expect_identical(as.complex(u), c(0 + 0i, 4294967295 + 0i), label = dtype)
    expect_identical(as.vector(u, "complex"), c(0 + 0i, 4294967295 + 0i), label = dtype)
  }
})

test_that("computing, indexing and modifying are clear errors naming dtype and shape", {
  b <- pjrt_buffer(m)
  s <- pjrt_scalar(1, dtype = "f64")
  expect_snapshot(error = TRUE, b + 1)
  expect_snapshot(error = TRUE, 1 - s)
  expect_snapshot(error = TRUE, -b)
  expect_snapshot(error = TRUE, b == b)
  expect_snapshot(error = TRUE, b[1])
  expect_snapshot(error = TRUE, b[[1]])
  expect_snapshot(error = TRUE, b$shape)
  expect_snapshot(error = TRUE, sum(b))
  expect_snapshot(error = TRUE, sqrt(s))
  expect_snapshot(error = TRUE, Mod(b))
  expect_snapshot(error = TRUE, mean(b))
  expect_snapshot(error = TRUE, head(b))
  expect_snapshot(error = TRUE, b[1] <- 0)
  expect_snapshot(error = TRUE, dim(b) <- c(3, 2))
  # Every one of them, by its first line.
  calls <- list(
    "b * 2" = function() b * 2, "b %% 2" = function() b %% 2, "!b" = function() !b,
    "b & TRUE" = function() b & TRUE, "b < 1" = function() b < 1, "abs(b)" = function() abs(b),
    "exp(b)" = function() exp(b), "cumsum(b)" = function() cumsum(b),
    "round(b, 1)" = function() round(b, 1), "max(b)" = function() max(b),
    "range(b)" = function() range(b), "prod(b)" = function() prod(b),
    "any(b)" = function() any(b), "Re(b)" = function() Re(b),
    "median(b)" = function() median(b), "quantile(b)" = function() quantile(b),
    "tail(b)" = function() tail(b), "rev(b)" = function() rev(b), "sort(b)" = function() sort(b),
    "order(b)" = function() order(b), "unique(b)" = function() unique(b), "t(b)" = function() t(b),
    "aperm(b)" = function() aperm(b), "diff(b)" = function() diff(b),
    "rep(b, 2)" = function() rep(b, 2), "b[[1]] <- 0" = function() b[[1]] <- 0,
    "b$x <- 0" = function() b$x <- 0, "length(b) <- 2" = function() length(b) <- 2
  )
  lines <- vapply(names(calls), function(label) {
    e <- tryCatch({calls[[label]](); NULL}, error = identity)
    expect_s3_class(e, "rlang_error")
    paste0(label, ": ", strsplit(cli::ansi_strip(conditionMessage(e)), "\n")[[1]][[1]])
  }, "")
  expect_snapshot(writeLines(lines))
  expect_identical(as_array(b), m)  # nothing was modified
})

test_that("pjrt_scalar() passes a 0-d buffer through and rejects other buffers", {
  s <- pjrt_scalar(2.5, dtype = "f64")
  expect_identical(pjrt_scalar(s), s)
  expect_identical(as_array(pjrt_scalar(s, dtype = "f64")), 2.5)
  expect_snapshot(error = TRUE, pjrt_scalar(pjrt_buffer(m)))
  expect_snapshot(error = TRUE, pjrt_scalar(pjrt_buffer(1)))
  expect_snapshot(error = TRUE, pjrt_scalar(s, dtype = "f32"))
  expect_snapshot(error = TRUE, pjrt_scalar(list(1)))
})

test_that("check = TRUE / FALSE are the original spelling of \"error\" / \"ignore\"", {
  expect_snapshot(error = TRUE, pjrt_buffer(c(1L, NA), check = TRUE))
  expect_silent(b <- pjrt_buffer(c(1L, NA), check = FALSE))
  expect_identical(as_array(b, check = FALSE), array(c(1L, NA)))
  expect_snapshot(error = TRUE, as_array(b, check = TRUE))
  expect_snapshot(error = TRUE, pjrt_scalar(NA_integer_, check = TRUE))
  expect_identical(as_array(pjrt_scalar(NA_integer_, check = FALSE), check = FALSE), NA_integer_)
  expect_identical(as_array(pjrt_buffer(pjrt_buffer(1:2), check = TRUE)), array(1:2))
  expect_snapshot(error = TRUE, pjrt_buffer(1:2, check = NA))
})

test_that("check = \"err\" (upstream's development spelling) means \"error\"", {
  message_of <- function(expr) conditionMessage(tryCatch(expr, error = identity))
  b <- pjrt_buffer(c(1L, NA), check = FALSE)
  expect_identical(message_of(as_array(b, check = "err")), message_of(as_array(b, check = "error")))
  expect_identical(message_of(pjrt_buffer(c(1L, NA), check = "err")),
                   message_of(pjrt_buffer(c(1L, NA), check = "error")))
  expect_identical(as_array(pjrt_buffer(1:2), check = "err"), array(1:2))
  expect_error(as_array(b, check = "er"), "must be one of")
})
