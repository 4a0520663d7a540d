# Dtype names, aliases and their validation.
test_that("every dtype name is accepted and reported back", {
  for (dtype in all_dtypes) {
    b <- pjrt_empty(dtype, 1)
    expect_s3_class(elt_type(b), "PJRTElementType")
    expect_identical(as.character(elt_type(b)), dtype)
  }
})

test_that("aliases map to their dtype", {
  aliases <- c(
    i1 = "pred", bool = "pred", s8 = "i8", s16 = "i16", s32 = "i32", s64 = "i64",
    u8 = "ui8", u16 = "ui16", u32 = "ui32", u64 = "ui64"
  )
  for (alias in names(aliases)) {
    b <- pjrt_buffer(c(0, 1), dtype = alias)
    expect_identical(as.character(elt_type(b)), aliases[[alias]], label = alias)
    expect_identical(as.character(elt_type(pjrt_empty(alias, 2))), aliases[[alias]])
    expect_identical(as.character(elt_type(pjrt_scalar(1, dtype = alias))), aliases[[alias]])
  }
  expect_identical(
    as.character(elt_type(pjrt_buffer(as.raw(1), dtype = "u8", shape = 1, row_major = TRUE))),
    "ui8"
  )
})

test_that("dtype names are case-sensitive", {
  expect_error(pjrt_buffer(1, dtype = "F32"), "Unknown dtype \"F32\"", fixed = TRUE)
  expect_error(pjrt_buffer(1, dtype = "float32"), "Unknown dtype \"float32\"", fixed = TRUE)
})

test_that("element types print as <name>", {
  expect_output(print(elt_type(pjrt_buffer(1))), "^<f32>$")
  expect_output(print(elt_type(pjrt_buffer(1L, dtype = "bool"))), "^<pred>$")
  expect_identical(format(elt_type(pjrt_buffer(1i, dtype = "c128"))), "<c128>")
  expect_snapshot({
    elt_type(pjrt_buffer(1))
    elt_type(pjrt_buffer(1, dtype = "bf16"))
    elt_type(pjrt_buffer(1L, dtype = "u64"))
  })
  t <- elt_type(pjrt_buffer(1))
  capture.output(shown <- withVisible(print(t)))
  expect_false(shown$visible)
  expect_identical(shown$value, t)
})

test_that("as.character() gives the name", {
  expect_identical(as.character(elt_type(pjrt_buffer(1, dtype = "ui16"))), "ui16")
  expect_type(as.character(elt_type(pjrt_buffer(1))), "character")
  expect_null(attributes(as.character(elt_type(pjrt_buffer(1)))))
})

test_that("== and != work against strings and element types, in both orders", {
  f32 <- elt_type(pjrt_buffer(1))
  i32 <- elt_type(pjrt_buffer(1L))
  pred <- elt_type(pjrt_buffer(TRUE))
  expect_true(f32 == "f32")
  expect_true("f32" == f32)
  expect_false(f32 == "f64")
  expect_false("f64" == f32)
  expect_true(f32 != "f64")
  expect_true("f64" != f32)
  expect_false(f32 != "f32")
  expect_false("f32" != f32)
  expect_true(f32 == elt_type(pjrt_buffer(2)))
  expect_false(f32 == i32)
  expect_true(f32 != i32)
  expect_false(i32 != elt_type(pjrt_buffer(2L)))
  # aliases compare equal to their dtype
  expect_true(pred == "bool")
  expect_true("bool" == pred)
  expect_true(i32 == "s32")
  expect_false(i32 != "s32")
  expect_true("u8" == elt_type(pjrt_buffer(1, dtype = "ui8")))
  # a name that is no dtype is simply unequal
  expect_false(f32 == "float")
  # the results are plain logicals of length 1
  expect_identical(f32 == "f32", TRUE)
  expect_identical("f32" != f32, FALSE)
})

test_that("an element type can be used as a dtype argument", {
  t <- elt_type(pjrt_buffer(1, dtype = "i16"))
  expect_identical(as.character(elt_type(pjrt_buffer(c(1, 2), dtype = t))), "i16")
  expect_identical(as.character(elt_type(pjrt_empty(t, 2))), "i16")
  expect_identical(as.character(elt_type(pjrt_scalar(1, dtype = t))), "i16")
})

test_that("dtype() is the same as elt_type()", {
  for (dtype in all_dtypes) {
    b <- pjrt_empty(dtype, 2)
    expect_identical(dtype(b), elt_type(b))
    expect_true(dtype(b) == elt_type(b))
  }
})

test_that("unknown dtypes are errors listing the valid names", {
  expect_snapshot(pjrt_buffer(1, dtype = "f8"), error = TRUE)
  expect_error(pjrt_empty("f128", 1), "Valid dtypes are")
  expect_error(pjrt_scalar(1, dtype = "int"), "Unknown dtype \"int\"", fixed = TRUE)
})

test_that("tengen-style DataType objects are accepted through as.character()", {
  data_type <- function(name) structure(list(name = name), class = c("FakeType", "DataType"))
  registerS3method("as.character", "FakeType", function(x, ...) x$name)
  expect_identical(as.character(elt_type(pjrt_buffer(c(1, 2), dtype = data_type("i16")))),
                   "i16")
  expect_identical(as.character(elt_type(pjrt_buffer(c(0, 1), dtype = data_type("bool")))),
                   "pred")
  expect_identical(as_array(pjrt_buffer(c(1, 2), dtype = data_type("ui8"))), array(1:2))
  expect_identical(as.character(elt_type(pjrt_empty(data_type("f64"), 1))), "f64")
  expect_identical(as.character(elt_type(pjrt_scalar(1, dtype = data_type("c64")))), "c64")
  raw_b <- pjrt_buffer(as.raw(c(1, 2)), dtype = data_type("u8"), shape = 2, row_major = TRUE)
  expect_identical(as.character(elt_type(raw_b)), "ui8")
  expect_error(pjrt_buffer(1, dtype = data_type("f8")), "Unknown dtype \"f8\"", fixed = TRUE)
})
