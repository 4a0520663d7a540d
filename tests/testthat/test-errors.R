# Every error message a user can reach through the exported functions, as snapshots. Each
# block also asserts the key words with expect_error(), which runs where snapshots are skipped.

test_that("unsupported data classes are named", {
  expect_snapshot(error = TRUE, {
    pjrt_buffer("a")
    pjrt_buffer(list(1, 2))
    pjrt_buffer(factor(c("a", "b")))
    pjrt_buffer(data.frame(x = 1:2))
    pjrt_buffer(NULL)
    pjrt_buffer(matrix("a"))
    pjrt_buffer(Sys.Date())
    pjrt_scalar("a")
    pjrt_scalar(list(1))
  })
  expect_error(pjrt_buffer("a"), "cannot make a buffer from a string (class <character>)",
               fixed = TRUE)
  expect_error(pjrt_buffer(list(1)), "class <list>", fixed = TRUE)
  expect_error(pjrt_buffer(factor("a")), "class <factor>", fixed = TRUE)
  expect_error(pjrt_buffer(data.frame(x = 1)), "class <data.frame>", fixed = TRUE)
  expect_error(pjrt_scalar(factor("a")), "`pjrt_scalar()` cannot make a buffer", fixed = TRUE)
})

test_that("a dtype that is not a single string is an error", {
  expect_snapshot(error = TRUE, {
    pjrt_buffer(1, dtype = 1)
    pjrt_buffer(1, dtype = c("f32", "f64"))
    pjrt_buffer(1, dtype = NA_character_)
    pjrt_buffer(1, dtype = TRUE)
    pjrt_buffer(1, dtype = list("f32"))
    pjrt_empty(32, 1)
  })
  expect_error(pjrt_buffer(1, dtype = 1),
               "`dtype` must be a single string naming a dtype, not a number.", fixed = TRUE)
})

test_that("unknown dtypes list the valid names", {
  expect_snapshot(error = TRUE, {
    pjrt_buffer(1, dtype = "float32")
    pjrt_scalar(1L, dtype = "int")
    pjrt_empty("f128", 2)
    pjrt_buffer(as.raw(1), dtype = "byte", shape = 1, row_major = TRUE)
  })
  expect_error(pjrt_empty("f128", 2), "Unknown dtype \"f128\"", fixed = TRUE)
})

test_that("bad shapes are errors naming the entry", {
  expect_snapshot(error = TRUE, {
    pjrt_buffer(1:2, shape = -2)
    pjrt_buffer(1:2, shape = 1.5)
    pjrt_buffer(1:4, shape = c(2, NA))
    pjrt_buffer(1:2, shape = NA)
    pjrt_buffer(1:2, shape = 2^31)
    pjrt_buffer(1:2, shape = c(1, Inf))
    pjrt_buffer(1:2, shape = "2")
    pjrt_empty("f32", c(2, -1))
    pjrt_empty("f32", 2^31)
  })
  expect_error(pjrt_buffer(1:2, shape = -2), "Entry 1 is -2", fixed = TRUE)
  expect_error(pjrt_buffer(1:2, shape = c(2, 1.5)), "Entry 2 is 1.5", fixed = TRUE)
  expect_error(pjrt_buffer(1:2, shape = c(1, 2^31)), "Entry 2 is 2147483648", fixed = TRUE)
  expect_error(pjrt_empty("f32", c(2, NA)), "Entry 2 is NA", fixed = TRUE)
})

test_that("data of the wrong length for the shape is an error", {
  expect_snapshot(error = TRUE, {
    pjrt_buffer(c(1, 2), shape = c(1, 4))
    pjrt_buffer(1:6, shape = c(2, 2))
    pjrt_buffer(matrix(1:6, 2), shape = 5)
    pjrt_buffer(logical(), shape = 1)
    pjrt_buffer(1:2, shape = integer())
  })
  expect_error(pjrt_buffer(c(1, 2), shape = c(1, 4)),
               "Data has length 2, but specified shape is 1x4", fixed = TRUE)
})

test_that("sizes too large for 64 bits and too long vectors are errors", {
  expect_snapshot(error = TRUE, {
    pjrt_empty("f64", c(2^31 - 1, 2^31 - 1))
    pjrt_empty("f64", c(2^31 - 1, 2^31 - 1, 4))
    pjrt_buffer(1:2^31)
  })
  expect_error(pjrt_buffer(1:2^31), "needs an explicit `shape`", fixed = TRUE)
})

test_that("raw data needs dtype, shape and row_major", {
  bytes <- as.raw(1:4)
  expect_snapshot(error = TRUE, {
    pjrt_buffer(bytes)
    pjrt_buffer(bytes, dtype = "ui8")
    pjrt_buffer(bytes, dtype = "ui8", shape = 4)
    pjrt_buffer(bytes, dtype = "ui8", shape = 4, row_major = NA)
    pjrt_buffer(bytes, dtype = "ui8", shape = 4, row_major = "yes")
    pjrt_buffer(bytes, dtype = "ui8", shape = 4, row_major = c(TRUE, FALSE))
    pjrt_scalar(bytes[1])
    pjrt_scalar(bytes[1], dtype = "ui8", row_major = NA)
  })
  expect_error(pjrt_buffer(bytes), "`dtype` must be provided for raw data.", fixed = TRUE)
  expect_error(pjrt_buffer(bytes, dtype = "ui8"), "`shape` must be provided for raw data.",
               fixed = TRUE)
  expect_error(pjrt_buffer(bytes, dtype = "ui8", shape = 4),
               "`row_major` must be provided for raw data.", fixed = TRUE)
})

test_that("raw data of the wrong byte count is an error", {
  expect_snapshot(error = TRUE, {
    pjrt_buffer(as.raw(1:10), dtype = "f32", shape = c(2, 3), row_major = TRUE)
    pjrt_buffer(raw(), dtype = "f64", shape = 1, row_major = FALSE)
    pjrt_buffer(as.raw(1:3), dtype = "ui8", shape = integer(), row_major = TRUE)
    pjrt_scalar(as.raw(1:3), dtype = "f32")
    pjrt_scalar(as.raw(1:16), dtype = "c64")
  })
  expect_error(
    pjrt_buffer(as.raw(1:10), dtype = "f32", shape = c(2, 3), row_major = TRUE),
    "Raw data has 10 bytes, but dtype \"f32\" with shape (2, 3) requires 24 bytes.",
    fixed = TRUE
  )
  expect_error(pjrt_buffer(as.raw(1:3), dtype = "ui8", shape = integer(), row_major = TRUE),
               "with shape () requires 1 byte.", fixed = TRUE)
})

test_that("raw bytes that are no pred value are an error", {
  expect_snapshot(error = TRUE, {
    pjrt_buffer(as.raw(c(0, 1, 7)), dtype = "pred", shape = 3, row_major = TRUE)
  })
  expect_error(pjrt_buffer(as.raw(c(0, 1, 7)), dtype = "pred", shape = 3, row_major = TRUE),
               "Byte 7 at position 3 is not a valid pred value", fixed = TRUE)
})

test_that("pjrt_scalar() needs data of length 1", {
  expect_snapshot(error = TRUE, {
    pjrt_scalar(1:2)
    pjrt_scalar(numeric())
    pjrt_scalar(matrix(1, 2, 2))
  })
  expect_error(pjrt_scalar(1:2), "`data` must have length 1.", fixed = TRUE)
})

test_that("pjrt_empty() needs dtype and shape", {
  expect_snapshot(error = TRUE, {
    pjrt_empty()
    pjrt_empty("f32")
  })
  expect_error(pjrt_empty(shape = 1), "`dtype` must be provided.", fixed = TRUE)
})

test_that("values a dtype cannot hold are errors naming value, position and dtype", {
  expect_snapshot(error = TRUE, {
    pjrt_buffer(c(1, 256), dtype = "ui8")
    pjrt_buffer(c(1, 2, 300), dtype = "i8")
    pjrt_buffer(c(0, -1), dtype = "ui64")
    pjrt_buffer(c(1, NA), dtype = "i16")
    pjrt_buffer(c(1, NaN), dtype = "ui32")
    pjrt_buffer(c(1, Inf), dtype = "i64")
    pjrt_buffer(2^63, dtype = "i64")
    pjrt_buffer(2^64, dtype = "ui64")
    pjrt_buffer(c(1L, 70000L), dtype = "ui16")
    pjrt_buffer(bit64::as.integer64(c(1, NA)), dtype = "ui64")
    pjrt_buffer(bit64::as.integer64("5000000000"), dtype = "i32")
    pjrt_buffer(c(TRUE, NA))
    pjrt_buffer(c(0, 0.5), dtype = "pred")
    pjrt_buffer(2L, dtype = "bool")
    pjrt_scalar(-1, dtype = "ui8")
  })
  expect_error(pjrt_buffer(c(1, 256), dtype = "ui8"),
               "Value 256 at position 2 cannot be represented as ui8 (range 0 to 255)",
               fixed = TRUE)
  expect_error(pjrt_buffer(c(0, 0.5), dtype = "pred"),
               "Value 0.5 at position 2 cannot be represented as pred (allowed values 0 and 1)",
               fixed = TRUE)
})

test_that("missing values rejected by check = 'error' are errors", {
  expect_snapshot(error = TRUE, {
    pjrt_buffer(c(1L, 2L, NA), check = "error")
    pjrt_scalar(NA_integer_, check = "error")
    pjrt_buffer(bit64::as.integer64(c(NA, 1)), check = "error")
  })
  expect_error(pjrt_buffer(c(1L, 2L, NA), check = "error"),
               "Value NA at position 3 cannot be represented as i32 with check = \"error\"",
               fixed = TRUE)
})

test_that("complex data at a real dtype is an error", {
  expect_snapshot(error = TRUE, {
    pjrt_buffer(1i, dtype = "f64")
    pjrt_buffer(c(1, 2i), dtype = "i32")
  })
  expect_error(pjrt_buffer(1i, dtype = "pred"),
               "Complex data can only be stored as c64 or c128, not pred.", fixed = TRUE)
})

test_that("a PJRTBuffer cannot be re-typed or re-shaped by pjrt_buffer()", {
  b <- pjrt_buffer(1:3)
  expect_snapshot(error = TRUE, {
    pjrt_buffer(b, dtype = "f32")
    pjrt_buffer(b, shape = c(3, 1))
  })
  expect_error(pjrt_buffer(b, dtype = "f32"), "cannot be re-typed to \"f32\"", fixed = TRUE)
})

test_that("unused arguments are named", {
  expect_snapshot(error = TRUE, {
    pjrt_buffer(1, foo = 1)
    pjrt_buffer(1, foo = 1, bar = 2)
    pjrt_buffer(1, "f32", NULL, 1, 5)
    pjrt_buffer(1, row_major = TRUE)
    pjrt_scalar(1, foo = 1)
    pjrt_buffer(as.raw(1), dtype = "ui8", shape = 1, row_major = TRUE, foo = 1)
    pjrt_buffer(pjrt_buffer(1), foo = 1)
  })
  expect_error(pjrt_buffer(1, foo = 1), "Unused argument(s): foo", fixed = TRUE)
})

test_that("bad check values are errors", {
  b <- pjrt_buffer(1)
  expect_snapshot(error = TRUE, {
    pjrt_buffer(1, check = "foo")
    pjrt_buffer(1L, check = "wrn")
    pjrt_buffer(1, check = NA)
    pjrt_buffer(1, check = c("warn", "error"))
    pjrt_scalar(1, check = 1)
    pjrt_buffer(as.raw(1), dtype = "ui8", shape = 1, row_major = TRUE, check = "foo")
    pjrt_scalar(as.raw(1), dtype = "ui8", check = "foo")
    pjrt_buffer(b, check = "foo")
    as_array(b, check = "foo")
    as_array(b, check = 1)
  })
  expect_error(as_array(b, check = "foo"),
               "`check` must be one of \"warn\", \"error\", or \"ignore\", not \"foo\".",
               fixed = TRUE)
  expect_error(pjrt_buffer(1, check = NA),
               "`check` must be \"warn\", \"error\", \"ignore\", TRUE or FALSE, not `NA`.",
               fixed = TRUE)
})

test_that("values R cannot tell from NA are errors with as_array(check = 'error')", {
  expect_snapshot(error = TRUE, {
    as_array(pjrt_buffer(-2^31, dtype = "i32"), check = "error")
    as_array(pjrt_buffer(c(-2^63, -2^63), dtype = "i64"), check = "error")
    as_array(pjrt_buffer(2^63, dtype = "ui64"), check = "error")
  })
  expect_error(as_array(pjrt_buffer(2^63, dtype = "ui64"), check = "error"),
               "1 ui64 value of 2^63 or more does not fit integer64", fixed = TRUE)
})

test_that("as_raw() needs row_major", {
  b <- pjrt_buffer(1:3)
  expect_snapshot(error = TRUE, {
    as_raw(b)
    as_raw(b, row_major = NA)
    as_raw(b, row_major = 1)
  })
  expect_error(as_raw(b), "`row_major` must be provided.", fixed = TRUE)
})

test_that("bad device arguments are errors", {
  expect_snapshot(error = TRUE, {
    pjrt_buffer(1, device = 1)
    pjrt_buffer(1, device = TRUE)
    pjrt_buffer(1, device = c("cpu", "cpu"))
    pjrt_buffer(1, device = NA_character_)
    pjrt_buffer(1, device = "cpu:x")
    pjrt_buffer(1, device = "cpu:-1")
    pjrt_buffer(1, device = "cpu:1:2")
    pjrt_buffer(1, device = "cpu:3")
    pjrt_buffer(1, device = "tpu")
    pjrt_empty("f32", 1, device = "tpu:0")
    pjrt_device(3)
    pjrt_device("cpu:1")
    devices(1)
    devices(NA_character_)
    devices("tpu")
    copy_buffer(1, "cpu")
    copy_buffer(pjrt_buffer(1), "cpu:2")
  })
  expect_error(pjrt_buffer(1, device = "cpu:3"),
               "Device index 3 out of range for platform cpu (1 device)", fixed = TRUE)
  expect_error(pjrt_buffer(1, device = "cpu:x"),
               "Device \"cpu:x\" is not of the form \"<platform>:<index>\"", fixed = TRUE)
})

test_that("the cuda platform errors clearly without CUDA", {
  skip_if(tryCatch({
    devices("cuda")
    TRUE
  }, error = function(e) FALSE), "CUDA is available on this machine")
  expect_snapshot(error = TRUE, {
    pjrt_buffer(1, device = "cuda")
    copy_buffer(pjrt_buffer(1), "cuda:0")
  })
})

test_that("element types and devices only support == and !=", {
  t <- elt_type(pjrt_buffer(1))
  d <- pjrt_device()
  expect_snapshot(error = TRUE, {
    t + 1
    t < "f64"
    d > d
  })
  expect_error(t + 1, "Element types only support `==` and `!=`, not `+`.", fixed = TRUE)
  expect_error(d > d, "Devices only support `==` and `!=`, not `>`.", fixed = TRUE)
})

test_that("a buffer restored from a file is an error, not a crash", {
  path <- withr::local_tempfile(fileext = ".rds")
  saveRDS(pjrt_buffer(c(1, 2)), path)
  b <- readRDS(path)
  expect_snapshot(error = TRUE, {
    as_array(b)
    as_raw(b, row_major = TRUE)
    shape(b)
    elt_type(b)
    device(b)
    copy_buffer(b, "cpu")
  })
  msg <- "This PJRTBuffer is no longer valid (it was saved and restored, or released)."
  expect_error(as_array(b), msg, fixed = TRUE)
  expect_error(length(b), msg, fixed = TRUE)
  expect_error(dim(b), msg, fixed = TRUE)
  expect_error(platform(b), msg, fixed = TRUE)
})

test_that("an object that only claims to be a PJRTBuffer is an error, not a crash", {
  fake <- structure(list(), class = "PJRTBuffer")
  expect_error(as_array(fake), "Expected a PJRTBuffer.", fixed = TRUE)
  expect_error(shape(fake), "Expected a PJRTBuffer.", fixed = TRUE)
  expect_error(as_raw(fake, row_major = TRUE), "Expected a PJRTBuffer.", fixed = TRUE)
  expect_error(copy_buffer(fake, "cpu"), "Expected a PJRTBuffer.", fixed = TRUE)
})
