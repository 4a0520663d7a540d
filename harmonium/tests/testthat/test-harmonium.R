test_that("HArray and HDataType are pjrt's own objects", {
  expect_identical(HArray, pjrt::HArray)
  expect_identical(HDataType, pjrt::HDataType)
  expect_true(environmentIsLocked(HArray))
})

test_that("the HArray documentation example runs with harmonium alone", {
  arr <- array(c(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), c(3, 4))
  harray <- HArray$new_from_values(arr, HDataType$Float32)
  expect_identical(harray$shape(), c(4L, 3L))
  expect_identical(harray$len(), 12L)
  expect_identical(harray$ndim(), 2L)
  # harmonium's printed output: the method writes the values, print() adds the class and dtype.
  expect_identical(
    capture.output(harray$print()),
    c("[[1, 2, 3],", " [4, 5, 6],", " [7, 8, 9],", " [10, 11, 12]]")
  )
  expect_identical(
    capture.output(print(harray)),
    c("HArray", "Float32", "[[1, 2, 3],", " [4, 5, 6],", " [7, 8, 9],", " [10, 11, 12]]")
  )
  expect_identical(capture.output(print(HArray)), "HArray")
  expect_identical(capture.output(HDataType$Float32$print()), "Float32")
  expect_false(harray$slice(list(c(0L, 2L, 1L), c(1L, 3L, 1L)))$is_standard_layout())
  x <- c(NA_integer_, NA_integer_, NA_integer_)
  expect_true(harray$slice(list(x, x)) == harray)
  gc()
  expect_true(harray$is_unique())
  harray2 <- harray$clone()
  expect_false(harray$is_unique())
  expect_false(harray2$is_unique())
  expect_identical(harray$collect(), arr)
  expect_identical(HDataType$Float64$eq(HDataType$Float64), TRUE)
})
