# pjrt_buffer(): creation under the strict rules, zero-copy and queries.
test_that("each method has its default dtype", {
  expect_equal(as.character(elt_type(pjrt_buffer(c(TRUE, FALSE)))), "pred")
  expect_equal(as.character(elt_type(pjrt_buffer(1:3))), "i32")
  expect_equal(as.character(elt_type(pjrt_buffer(c(1.5, 2)))), "f32")
  expect_equal(as.character(elt_type(pjrt_buffer(c(1i, 2)))), "c64")
  expect_equal(as.character(elt_type(pjrt_buffer(i64(c(1, 2))))), "i64")
  expect_equal(as.character(elt_type(pjrt_scalar(TRUE))), "pred")
  expect_equal(as.character(elt_type(pjrt_scalar(1L))), "i32")
  expect_equal(as.character(elt_type(pjrt_scalar(1.5))), "f32")
  expect_equal(as.character(elt_type(pjrt_scalar(1i))), "c64")
  expect_equal(as.character(elt_type(pjrt_scalar(i64(1)))), "i64")
})

test_that("each method stores its values", {
  expect_identical(as_array(pjrt_buffer(c(TRUE, FALSE, TRUE))), array(c(TRUE, FALSE, TRUE)))
  expect_identical(as_array(pjrt_buffer(c(1L, -7L, 3L))), array(c(1L, -7L, 3L)))
  expect_identical(as_array(pjrt_buffer(c(1.5, -2.25))), array(c(1.5, -2.25)))
  expect_identical(as_array(pjrt_buffer(c(1.5 + 2i, -1i))), array(c(1.5 + 2i, -1i)))
  got <- as_array(pjrt_buffer(i64(c("-5", "9007199254740993"))))
  expect_s3_class(got, "integer64")
  expect_identical(as.character(got), c("-5", "9007199254740993"))
  # f32 rounds: 0.1 is not a float.
  expect_identical(as.vector(as_array(pjrt_buffer(0.1))), as.double(0.100000001490116119384765625))
})

test_that("dtype may be given for every method and is honoured", {
  expect_identical(as_array(pjrt_buffer(c(TRUE, FALSE), dtype = "i8")), array(c(1L, 0L)))
  expect_identical(as_array(pjrt_buffer(1:2, dtype = "f64")), array(c(1, 2)))
  expect_identical(as_array(pjrt_buffer(c(1, 2), dtype = "ui16")), array(c(1L, 2L)))
  expect_identical(as_array(pjrt_buffer(c(1i, 2), dtype = "c128")), array(c(1i, 2 + 0i)))
  expect_identical(as_array(pjrt_buffer(i64(c(1, 2)), dtype = "f64")), array(c(1, 2)))
  expect_identical(as_array(pjrt_buffer(1L, dtype = "bool")), array(TRUE))
})

test_that("the default device is cpu:0", {
  b <- pjrt_buffer(1:3)
  expect_identical(device(b), pjrt_device("cpu:0"))
  expect_identical(platform(b), "cpu")
})

test_that("the shape defaults to dim(data), else length(data)", {
  expect_identical(shape(pjrt_buffer(1:5)), 5L)
  expect_identical(shape(pjrt_buffer(matrix(1:6, nrow = 2))), c(2L, 3L))
  a <- array(as.double(1:24), c(2, 3, 4))
  b <- pjrt_buffer(a, dtype = "f64")
  expect_identical(shape(b), c(2L, 3L, 4L))
  expect_identical(as_array(b), a)
  expect_identical(shape(pjrt_buffer(array(1:3))), 3L)
})

test_that("a length-1 vector gives shape 1, only pjrt_scalar() gives 0-d", {
  expect_identical(shape(pjrt_buffer(1)), 1L)
  expect_identical(dim(pjrt_buffer(1)), 1L)
  expect_identical(shape(pjrt_scalar(1)), integer())
  expect_null(dim(pjrt_scalar(1)))
  expect_identical(length(pjrt_scalar(1)), 1L)
  expect_identical(shape(pjrt_scalar(matrix(2L))), integer())
})

test_that("a length-0 vector gives an empty buffer of shape 0", {
  for (data in list(logical(), integer(), double(), complex(), i64(character()))) {
    b <- pjrt_buffer(data)
    expect_identical(shape(b), 0L)
    expect_identical(length(b), 0L)
    expect_length(as_array(b), 0)
  }
  b <- pjrt_buffer(double(), shape = c(0, 5))
  expect_identical(shape(b), c(0L, 5L))
  expect_identical(dim(as_array(b)), c(0L, 5L))
})

test_that("shapes given as doubles are stored as integers", {
  b <- pjrt_buffer(1:6, shape = c(2, 3))
  expect_identical(shape(b), c(2L, 3L))
  expect_type(shape(b), "integer")
  expect_identical(dim(b), c(2L, 3L))
  expect_identical(length(b), 6L)
})

test_that("a supplied shape re-shapes data in column-major order", {
  b <- pjrt_buffer(1:6, shape = c(3, 2))
  expect_identical(as_array(b), matrix(1:6, nrow = 3))
  m <- matrix(c(1, 2, 3, 4, 5, 6), nrow = 2)
  b <- pjrt_buffer(m, dtype = "f64", shape = c(3, 2))
  expect_identical(as_array(b), matrix(c(1, 2, 3, 4, 5, 6), nrow = 3))
  b <- pjrt_buffer(m, dtype = "i16", shape = 6)
  expect_identical(as_array(b), array(1:6))
})

test_that("a length-1 vector is recycled to any shape", {
  expect_identical(as_array(pjrt_buffer(7L, shape = c(2, 3))), matrix(7L, 2, 3))
  expect_identical(as_array(pjrt_buffer(3.7, dtype = "i8", shape = c(2, 2))), matrix(3L, 2, 2))
  expect_identical(as_array(pjrt_buffer(TRUE, shape = 4)), array(rep(TRUE, 4)))
  expect_identical(as_array(pjrt_buffer(1 + 1i, dtype = "c128", shape = 3)), array(rep(1 + 1i, 3)))
  big <- as_array(pjrt_buffer(5, dtype = "i16", shape = c(1000, 101)))
  expect_identical(dim(big), c(1000L, 101L))
  expect_true(all(big == 5L))
  expect_identical(shape(pjrt_buffer(1, shape = c(0, 3))), c(0L, 3L))
  expect_identical(shape(pjrt_buffer(1, dtype = "f64", shape = 5)), 5L)
})

test_that("no other recycling happens", {
  expect_error(pjrt_buffer(1:2, shape = 4), "Data has length 2, but specified shape is 4",
               fixed = TRUE)
  expect_error(pjrt_buffer(1:3, shape = c(3, 2)), "Data has length 3, but specified shape is 3x2",
               fixed = TRUE)
  expect_error(pjrt_buffer(double(), shape = 2), "Data has length 0, but specified shape is 2",
               fixed = TRUE)
})

test_that("ALTREP vectors are read correctly", {
  expect_identical(as_array(pjrt_buffer(1:10)), array(1:10))
  expect_identical(as_array(pjrt_buffer(1:10, dtype = "ui8")), array(1:10))
  expect_identical(as_array(pjrt_buffer(1:10, dtype = "f64")), array(as.double(1:10)))
  expect_identical(as_array(pjrt_buffer(10:1, shape = c(5, 2))), matrix(10:1, nrow = 5))
})

test_that("raw data with row_major = TRUE is in C order", {
  bytes <- as.raw(c(1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0)) # i16 1..6, little endian
  b <- pjrt_buffer(bytes, dtype = "i16", shape = c(2, 3), row_major = TRUE)
  expect_identical(shape(b), c(2L, 3L))
  expect_identical(as_array(b), matrix(1:6, nrow = 2, byrow = TRUE))
})

test_that("raw data with row_major = FALSE is in R's column-major order", {
  bytes <- as.raw(c(1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0))
  b <- pjrt_buffer(bytes, dtype = "i16", shape = c(2, 3), row_major = FALSE)
  expect_identical(as_array(b), matrix(1:6, nrow = 2))
})

test_that("raw data works at rank 3 and for every item size", {
  b <- pjrt_buffer(as.raw(0:23), dtype = "ui8", shape = c(2, 3, 4), row_major = TRUE)
  expect_identical(as_array(b), aperm(array(0:23, c(4, 3, 2)), 3:1))
  f32_one <- as.raw(c(0x00, 0x00, 0x80, 0x3f))
  expect_identical(as_array(pjrt_buffer(f32_one, dtype = "f32", shape = 1, row_major = TRUE)),
                   array(1))
  f64_bytes <- writeBin(c(1.5, -2), raw(), size = 8, endian = "little")
  expect_identical(
    as_array(pjrt_buffer(f64_bytes, dtype = "f64", shape = 2, row_major = FALSE)),
    array(c(1.5, -2))
  )
  c128_bytes <- writeBin(c(1, 2), raw(), size = 8, endian = "little")
  expect_identical(
    as_array(pjrt_buffer(c128_bytes, dtype = "c128", shape = 1, row_major = TRUE)),
    array(1 + 2i)
  )
  expect_identical(
    as_array(pjrt_buffer(as.raw(c(1, 0, 1)), dtype = "pred", shape = 3, row_major = TRUE)),
    array(c(TRUE, FALSE, TRUE))
  )
})

test_that("raw data of zero elements and 0-d raw data", {
  b <- pjrt_buffer(raw(), dtype = "f32", shape = c(0, 2), row_major = TRUE)
  expect_identical(shape(b), c(0L, 2L))
  b <- pjrt_buffer(as.raw(c(0, 0, 0x80, 0x3f)), dtype = "f32", shape = integer(),
                   row_major = TRUE)
  expect_identical(shape(b), integer())
  expect_identical(as_array(b), 1)
})

test_that("raw pred bytes must be 0 or 1", {
  expect_error(
    pjrt_buffer(as.raw(c(1, 2)), dtype = "pred", shape = 2, row_major = TRUE),
    "Byte 2 at position 2 is not a valid pred value (0 or 1)", fixed = TRUE
  )
})

test_that("pjrt_scalar() makes 0-d buffers of every dtype", {
  for (dtype in setdiff(all_dtypes, complex_dtypes)) {
    b <- pjrt_scalar(1, dtype = dtype)
    expect_identical(shape(b), integer())
    expect_identical(as.character(elt_type(b)), dtype)
    got <- as_array(b)
    expect_null(dim(got))
    expect_equal(as.double(got), 1)
  }
  for (dtype in complex_dtypes) {
    expect_identical(as_array(pjrt_scalar(2 - 1i, dtype = dtype)), 2 - 1i)
  }
  expect_identical(as_array(pjrt_scalar(TRUE)), TRUE)
  expect_identical(as_array(pjrt_scalar(-3L, dtype = "i8")), -3L)
  expect_identical(as.character(as_array(pjrt_scalar(i64("-9007199254740993")))),
                   "-9007199254740993")
})

test_that("pjrt_scalar() of raw needs one element's bytes; row_major is optional", {
  one <- as.raw(c(0x00, 0x00, 0x80, 0x3f))
  b <- pjrt_scalar(one, dtype = "f32")
  expect_identical(shape(b), integer())
  expect_identical(as_array(b), 1)
  expect_identical(as_array(pjrt_scalar(one, dtype = "f32", row_major = FALSE)), 1)
  expect_identical(as_array(pjrt_scalar(as.raw(200), dtype = "ui8")), 200L)
  expect_error(pjrt_scalar(one, dtype = "f64"), "Raw data has 4 bytes", fixed = TRUE)
})

test_that("pjrt_empty() allocates the requested shape and dtype", {
  for (dtype in all_dtypes) {
    b <- pjrt_empty(dtype, c(2, 3))
    expect_identical(as.character(elt_type(b)), dtype)
    expect_identical(shape(b), c(2L, 3L))
    # Reading the uninitialised values is fine here but a memcheck error (f16 decoding branches
    # on them), so under valgrind the read is left to the ordinary runs.
    if (!nzchar(Sys.getenv("PJRT_VALGRIND"))) {
      got <- suppressWarnings(as_array(b, check = "ignore"))
      expect_identical(dim(got), c(2L, 3L))
      expect_identical(r_type(got), r_type_of[[dtype]])
    }
    expect_length(as_raw(b, row_major = TRUE), 6 * c(
      pred = 1, i8 = 1, i16 = 2, i32 = 4, i64 = 8, ui8 = 1, ui16 = 2, ui32 = 4, ui64 = 8,
      f16 = 2, bf16 = 2, f32 = 4, f64 = 8, c64 = 8, c128 = 16
    )[[dtype]])
  }
})

test_that("pjrt_empty() accepts zero-size and 0-d shapes and aliases", {
  expect_identical(shape(pjrt_empty("f32", c(0, 3))), c(0L, 3L))
  expect_identical(length(pjrt_empty("f32", c(0, 3))), 0L)
  expect_identical(shape(pjrt_empty("f32", 0)), 0L)
  expect_identical(shape(pjrt_empty("ui8", integer())), integer())
  expect_identical(length(pjrt_empty("ui8", integer())), 1L)
  expect_identical(as.character(elt_type(pjrt_empty("s16", 2))), "i16")
  expect_identical(as.character(elt_type(pjrt_empty(elt_type(pjrt_buffer(1)), 2))), "f32")
  expect_identical(as.character(as_array(pjrt_empty("f32", c(0, 3)))), character())
})

test_that("only check (and row_major for raw) are accepted in ...", {
  expect_error(pjrt_buffer(1, foo = 1), "Unused argument(s): foo", fixed = TRUE)
  expect_error(pjrt_buffer(1:2, foo = 1, bar = 2), "Unused argument(s): foo, bar", fixed = TRUE)
  expect_error(pjrt_buffer(1, "f32", NULL, 1, 5), "Unused argument(s): 5", fixed = TRUE)
  expect_error(pjrt_buffer(1, row_major = TRUE), "Unused argument(s): row_major", fixed = TRUE)
  expect_error(pjrt_buffer(TRUE, foo = 1), "Unused argument(s): foo", fixed = TRUE)
  expect_error(pjrt_buffer(1i, foo = 1), "Unused argument(s): foo", fixed = TRUE)
  expect_error(pjrt_buffer(i64(1), foo = 1), "Unused argument(s): foo", fixed = TRUE)
  expect_error(pjrt_buffer(as.raw(1), "ui8", shape = 1, row_major = TRUE, foo = 1),
               "Unused argument(s): foo", fixed = TRUE)
  expect_error(pjrt_buffer(pjrt_buffer(1), foo = 1), "Unused argument(s): foo", fixed = TRUE)
  expect_error(pjrt_scalar(1, foo = 1), "Unused argument(s): foo", fixed = TRUE)
  expect_error(pjrt_scalar(as.raw(1), "ui8", foo = 1), "Unused argument(s): foo", fixed = TRUE)
  # The recognised ones work.
  expect_identical(as_array(pjrt_buffer(1, check = "error")), array(1))
  expect_identical(as_array(pjrt_scalar(1L, check = "ignore")), 1L)
  expect_identical(
    as_array(pjrt_buffer(as.raw(1), "ui8", shape = 1, row_major = TRUE, check = "ignore")),
    array(1L)
  )
})

test_that("pjrt_buffer() of a PJRTBuffer returns the same object", {
  b <- pjrt_buffer(1:3)
  expect_identical(pjrt_buffer(b), b)
  expect_identical(buffer_address(pjrt_buffer(b)), buffer_address(b))
  expect_identical(pjrt_buffer(b, dtype = "i32"), b)
  expect_identical(pjrt_buffer(b, dtype = "s32"), b)
  expect_identical(pjrt_buffer(b, dtype = elt_type(b)), b)
  expect_identical(pjrt_buffer(b, shape = 3), b)
  expect_identical(pjrt_buffer(b, device = "cpu:0"), b)
  expect_identical(pjrt_buffer(b, device = "cpu"), b)
  expect_identical(pjrt_buffer(b, check = "error"), b)
  expect_error(pjrt_buffer(b, dtype = "f32"), "cannot be re-typed")
  expect_error(pjrt_buffer(b, shape = c(1, 3)), "must match the buffer's shape")
})

test_that("pjrt_buffer() of a PJRTBuffer with another device copies it there", {
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "2")
  b <- pjrt_buffer(c(1.5, 2.5), dtype = "f64")
  moved <- pjrt_buffer(b, device = "cpu:1")
  expect_identical(device(moved), pjrt_device("cpu:1"))
  expect_identical(as_array(moved), as_array(b))
  expect_false(identical(buffer_address(moved), buffer_address(b)))
})

test_that("extractors agree", {
  b <- pjrt_buffer(array(1:24, c(2, 3, 4)), dtype = "ui16")
  expect_identical(shape(b), c(2L, 3L, 4L))
  expect_identical(dim(b), c(2L, 3L, 4L))
  expect_identical(length(b), 24L)
  expect_identical(elt_type(b), dtype(b))
  expect_identical(as.character(dtype(b)), "ui16")
})

test_that("sizes are computed in 64 bits", {
  # Overflow of the element and byte counts is caught without allocating anything.
  expect_error(
    pjrt_buffer(as.raw(1:4), dtype = "ui8", shape = c(2^31 - 1, 2^31 - 1), row_major = TRUE),
    "requires 4611686014132420609 bytes", fixed = TRUE
  )
  expect_error(pjrt_empty("f64", c(2^31 - 1, 2^31 - 1)),
               "4611686014132420609 elements of 8 bytes do not fit a 64-bit byte count",
               fixed = TRUE)
  expect_error(pjrt_empty("f64", c(2^31 - 1, 2^31 - 1, 4)),
               "more elements than a 64-bit count can hold", fixed = TRUE)
  # A zero dimension makes any shape empty.
  expect_identical(length(pjrt_empty("f64", c(2^31 - 1, 2^31 - 1, 0))), 0L)
  # A long vector of 2^31 elements (an ALTREP sequence: no memory) needs an explicit shape.
  expect_error(pjrt_buffer(1:2^31), "Data of length 2,147,483,648 needs an explicit `shape`",
               fixed = TRUE)
})

test_that("length() of a buffer with more than 2^31 elements is a double", {
  # 4 GiB of address space, never touched (pjrt_empty() does not fill it), so this is fast
  # and costs no real memory; skipped where the address space cannot be reserved.
  skip_if(.Machine$sizeof.pointer < 8, "32-bit platform")
  b <- tryCatch(pjrt_empty("ui8", c(2^31 - 1, 2)), error = function(e) NULL)
  skip_if(is.null(b), "cannot reserve 4 GiB of address space")
  expect_identical(shape(b), c(2147483647L, 2L))
  expect_identical(length(b), 4294967294)
  expect_identical(dim(b), c(2147483647L, 2L))
  rm(b)
  invisible(gc())
})

test_that("counts of stored missing values and of values read as NA leave no attribute", {
  expect_warning(b <- pjrt_buffer(c(1L, NA, NA), dtype = "i32"), "2 missing values were stored")
  expect_identical(attributes(b), list(class = "PJRTBuffer"))
  expect_identical(suppressWarnings(as_array(b)), array(c(1L, NA, NA)))
  expect_warning(b64 <- pjrt_buffer(bit64::as.integer64(c(1, NA)), dtype = "i64"),
                 "1 missing value was stored")
  expect_identical(names(attributes(b64)), "class")
  expect_silent(b0 <- pjrt_buffer(c(1L, 2L), dtype = "i32"))
  expect_identical(attributes(b0), list(class = "PJRTBuffer"))
})

test_that("the common call made in C++ equals the fully checked one", {
  cases <- list(
    logical = c(TRUE, FALSE, TRUE), integer = c(3L, -7L), double = c(0.5, -2, 1e10),
    complex = complex(real = c(1, 2), imaginary = c(-1, 0.25)), matrix = matrix(1:6, 2),
    array = array(c(1.5, 2.5, 3.5, 4.5), c(1, 2, 2))
  )
  for (x in cases) {
    dims <- if (is.null(dim(x))) length(x) else dim(x)
    common <- pjrt_buffer(x)
    # An explicit shape takes the R checks (the same dims, so the same buffer).
    checked <- pjrt_buffer(x, shape = dims)
    expect_identical(as.character(elt_type(common)), as.character(elt_type(checked)))
    expect_identical(shape(common), as.integer(dims))
    expect_identical(as_array(common), as_array(checked))
  }
  expect_identical(as_array(pjrt_buffer(c(1, 2.5), "f64")), array(c(1, 2.5)))
  big <- bit64::as.integer64(c(1, 2^40))
  expect_identical(as.character(elt_type(pjrt_buffer(big))), "i64")
  expect_identical(as.character(as_array(pjrt_buffer(big))), c("1", "1099511627776"))
  # Classed data, aliases and unknown dtypes go to the methods and their checks.
  expect_identical(as.character(elt_type(pjrt_buffer(c(1, 2), dtype = "s32"))), "i32")
  expect_error(pjrt_buffer(factor("a")), "cannot make a buffer from")
  expect_error(pjrt_buffer(1, dtype = "f128"), "Unknown dtype")
  expect_warning(b <- pjrt_buffer(c(1L, NA)), "1 missing value was stored as -2147483648")
  expect_identical(as_array(b, check = "ignore"), array(c(1L, NA)))
})
