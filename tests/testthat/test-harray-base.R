# HArray and HDataType as base R sees them: printing as harmonium does, method listings,
# restored objects (R/harray_s3.R).

doc_values <- function() array(c(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), c(3, 4))

test_that("h$print() writes the body only; print(h) writes HArray and the dtype first", {
  h <- HArray$new_from_values(doc_values(), HDataType$Float32)
  body <- c("[[1, 2, 3],", " [4, 5, 6],", " [7, 8, 9],", " [10, 11, 12]]")
  expect_identical(capture.output(h$print()), body)
  expect_identical(capture.output(print(h)), c("HArray", "Float32", body))
  # Byte for byte, newlines included.
  expect_identical(paste(capture.output(h$print()), collapse = "\n"),
                   "[[1, 2, 3],\n [4, 5, 6],\n [7, 8, 9],\n [10, 11, 12]]")
  expect_snapshot({
    h
    h$print()
    HArray$new_from_values(array(complex(real = 1, imaginary = -2)), HDataType$Complex64)
  })
})

test_that("HArray and HDataType themselves print as their names", {
  expect_identical(capture.output(print(HArray)), "HArray")
  expect_identical(capture.output(print(HDataType)), "HDataType")
  expect_identical(capture.output(HDataType$Complex32), "Complex32")
  expect_identical(format(HArray), "HArray")
  expect_snapshot({
    HArray
    HDataType
  })
  # They stay usable as the class objects.
  expect_true(is.environment(HArray))
  expect_true(environmentIsLocked(HArray))
  expect_true("new_from_values" %in% ls(HArray))
})

test_that("names(), ls() and $ completion list an instance's methods", {
  h <- HArray$new_from_values(doc_values(), HDataType$Float64)
  methods <- c("clone", "collect", "dtype", "eq", "invalidate", "is_standard_layout",
               "is_unique", "len", "mem_adress", "ndim", "ne", "print", "shape", "slice")
  expect_identical(names(h), methods)
  expect_identical(ls(h), methods)
  expect_identical(utils:::.DollarNames(h, ""), methods)
  expect_identical(utils:::.DollarNames(h, "^is"), c("is_standard_layout", "is_unique"))
  # The listed methods are bound to the instance.
  expect_identical(get("len", envir = as.environment(h))(), 12L)
  expect_identical(names(HDataType$Float32), c("eq", "ne", "print"))
  expect_identical(ls(HDataType$Float32), c("eq", "ne", "print"))
  expect_identical(utils:::.DollarNames(HDataType$Float32, "e"), c("eq", "ne"))
})

test_that("a restored HArray says it was serialized; an invalidated one says so", {
  h <- HArray$new_from_values(doc_values(), HDataType$Float64)
  path <- withr::local_tempfile(fileext = ".rds")
  saveRDS(h, path)
  restored <- readRDS(path)
  expect_snapshot(error = TRUE, restored$len())
  dead <- h$clone()
  dead$invalidate()
  expect_error(dead$len(), "This external pointer is already consumed or deleted", fixed = TRUE)
  # An HArray serialized after being invalidated keeps the invalidated wording.
  expect_error(unserialize(serialize(dead, NULL))$len(), "already consumed or deleted", fixed = TRUE)
  expect_identical(h$collect(), doc_values())
})
