# expect_equal() on buffers goes through the waldo::compare_proxy() method: dtype, shape and
# values are compared, not the external pointers.

test_that("equal buffers are equal", {
  expect_equal(pjrt_buffer(1:3), pjrt_buffer(1:3))
  expect_equal(pjrt_buffer(c(1.5, 2)), pjrt_buffer(c(1.5, 2)))
  expect_equal(pjrt_buffer(matrix(1:6, 2), dtype = "ui8"), pjrt_buffer(1:6, "ui8", shape = c(2, 3)))
  expect_equal(pjrt_scalar(TRUE), pjrt_scalar(1, dtype = "pred"))
  expect_equal(pjrt_buffer(c(NaN, 1), dtype = "f32"), pjrt_buffer(c(NaN, 1), dtype = "f32"))
  expect_equal(pjrt_buffer(2^63, dtype = "ui64"), pjrt_buffer(2^63, dtype = "ui64"))
  expect_identical(pjrt_buffer(1:3, dtype = "i16"), pjrt_buffer(c(1, 2, 3), dtype = "i16"))
  # two different objects with the same contents
  a <- pjrt_buffer(c(1, 2), dtype = "f32")
  b <- pjrt_buffer(c(1, 2), dtype = "f32")
  expect_false(identical(buffer_address(a), buffer_address(b)))
  expect_equal(a, b)
})

test_that("equal buffers are equal for every dtype", {
  for (dtype in all_dtypes) {
    data <- if (dtype %in% complex_dtypes) c(1i, 2) else c(0, 1)
    expect_equal(pjrt_buffer(data, dtype = dtype), pjrt_buffer(rev(rev(data)), dtype = dtype),
                 label = dtype)
  }
})

test_that("a different dtype fails", {
  expect_failure(expect_equal(pjrt_buffer(1:3), pjrt_buffer(1:3, dtype = "i64")))
  expect_failure(expect_equal(pjrt_buffer(c(1, 2)), pjrt_buffer(c(1, 2), dtype = "f64")))
  expect_failure(expect_equal(pjrt_buffer(1:3, dtype = "i8"), pjrt_buffer(1:3, dtype = "ui8")))
  expect_failure(expect_equal(pjrt_buffer(1, dtype = "f16"), pjrt_buffer(1, dtype = "bf16")))
  expect_failure(expect_equal(pjrt_buffer(1i, dtype = "c64"), pjrt_buffer(1i, dtype = "c128")))
  expect_failure(expect_equal(pjrt_buffer(TRUE), pjrt_buffer(1L, dtype = "ui8")))
})

test_that("a different shape fails", {
  expect_failure(expect_equal(pjrt_buffer(1:6, shape = c(2, 3)), pjrt_buffer(1:6, shape = c(3, 2))))
  expect_failure(expect_equal(pjrt_buffer(c(1, 2, 3, 4, 5, 6), shape = c(2, 3)),
                              pjrt_buffer(c(1, 2, 3, 4, 5, 6), shape = c(3, 2))))
  expect_failure(expect_equal(pjrt_buffer(1:6), pjrt_buffer(1:6, shape = c(1, 6))))
  expect_failure(expect_equal(pjrt_scalar(1), pjrt_buffer(1)))
  expect_failure(expect_equal(pjrt_empty("f32", c(0, 2)), pjrt_empty("f32", c(2, 0))))
})

test_that("different values fail", {
  expect_failure(expect_equal(pjrt_buffer(1:3), pjrt_buffer(c(1L, 2L, 4L))))
  expect_failure(expect_equal(pjrt_buffer(c(1, 2), dtype = "f64"),
                              pjrt_buffer(c(1, 2.5), dtype = "f64")))
  expect_failure(expect_equal(pjrt_buffer(c(TRUE, FALSE)), pjrt_buffer(c(TRUE, TRUE))))
  # (waldo 0.4 warns while it formats complex differences)
  expect_failure(suppressWarnings(expect_equal(pjrt_buffer(1i), pjrt_buffer(2i))))
  expect_failure(suppressWarnings(expect_equal(pjrt_buffer(1 + 1i, dtype = "c128"),
                                               pjrt_buffer(1 + 1.5i, dtype = "c128"))))
  expect_failure(expect_equal(pjrt_buffer(c(2^40, 1), dtype = "i64"),
                              pjrt_buffer(c(2^41, 1), dtype = "i64")))
  # integer64-valued dtypes (i64, ui32, ui64) compare exactly, even with a tolerance
  for (dtype in c("i64", "ui32", "ui64")) {
    expect_failure(expect_equal(pjrt_buffer(5, dtype = dtype), pjrt_buffer(6, dtype = dtype)))
    expect_failure(expect_equal(pjrt_buffer(2^31, dtype = dtype),
                                pjrt_buffer(2^31 + 1, dtype = dtype)))
    expect_equal(pjrt_buffer(c(7, 2^31), dtype = dtype), pjrt_buffer(c(7, 2^31), dtype = dtype))
  }
  expect_failure(expect_equal(pjrt_buffer(2^40, dtype = "i64"),
                              pjrt_buffer(2^40 + 1, dtype = "i64")))
  expect_failure(expect_equal(pjrt_buffer(NaN, dtype = "f32"), pjrt_buffer(0, dtype = "f32")))
  # ui64 values of 2^63 or more all read as NA in R, but are told apart
  expect_failure(expect_equal(pjrt_buffer(2^63, dtype = "ui64"),
                              pjrt_buffer(2^63 + 4096, dtype = "ui64")))
})

test_that("expect_equal() uses the usual numeric tolerance for float values", {
  expect_equal(pjrt_buffer(1, dtype = "f64"), pjrt_buffer(1 + 1e-12, dtype = "f64"))
  expect_failure(expect_identical(pjrt_buffer(1, dtype = "f64"),
                                  pjrt_buffer(1 + 1e-12, dtype = "f64")))
  expect_failure(expect_equal(pjrt_buffer(1, dtype = "f64"), pjrt_buffer(1.001, dtype = "f64")))
})

test_that("a buffer is not equal to its values as an R array", {
  expect_failure(expect_equal(pjrt_buffer(1:3), array(1:3)))
})

test_that("the differences are reported by dtype, shape and values", {
  expect_snapshot({
    waldo::compare(pjrt_buffer(1:3), pjrt_buffer(1:3, dtype = "i64"))
    waldo::compare(pjrt_buffer(1:6, shape = c(2, 3)), pjrt_buffer(1:6, shape = c(3, 2)))
    waldo::compare(pjrt_buffer(c(1, 2, 3)), pjrt_buffer(c(1, 2, 4)))
  })
})
