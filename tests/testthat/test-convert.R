# Strict conversion rules (SPEC 2.2) at their boundaries, and conversion back to R (2.5).

# ---- integer dtypes from doubles -----------------------------------------------------------

boundary_values <- function(dtype) {
  range <- integer_range[[dtype]]
  # The largest double below hi_excl: hi_excl - 1 when it is exact, else the next double down.
  below_hi <- if (range[[2]] <= 2^53) range[[2]] - 1 else range[[2]] * (1 - 2^-53)
  above_lo <- if (range[[1]] == 0) -1 else if (range[[1]] >= -2^53) range[[1]] - 1 else
    range[[1]] * (1 + 2^-52)
  c(min = range[[1]], max = below_hi, "max+1" = range[[2]], "min-1" = above_lo,
    "NA" = NA, "NaN" = NaN, "Inf" = Inf, "-Inf" = -Inf, "2^53" = 2^53, "2^63" = 2^63,
    "2^64" = 2^64, "255.7" = 255.7, "-0.5" = -0.5, "-0.99" = -0.99, "0" = 0)
}

# Whether a double fits after truncation toward zero: the oracle the package must match.
fits_after_trunc <- function(x, dtype) {
  range <- integer_range[[dtype]]
  !is.na(x) && is.finite(x) && trunc(x) >= range[[1]] && trunc(x) < range[[2]]
}

test_that("doubles at integer dtypes: truncated, range-checked on the truncated value", {
  for (dtype in integer_dtypes) {
    values <- boundary_values(dtype)
    for (label in names(values)) {
      x <- values[[label]]
      what <- paste(dtype, label)
      if (fits_after_trunc(x, dtype)) {
        b <- pjrt_buffer(x, dtype = dtype)
        expect_identical(stored_values(b), trunc(x), label = what)
      } else {
        err <- expect_error(pjrt_buffer(x, dtype = dtype), label = what)
        msg <- conditionMessage(err)
        expect_match(msg, paste0(" at position 1 cannot be represented as ", dtype, " \\(range "),
                     label = what)
        # The message names the value so that it reads back exactly: whole numbers in all
        # their digits (as C's printf writes a double), others as digits that parse back.
        shown <- sub("^Value (\\S+) at position.*$", "\\1", msg)
        if (is.nan(x) && !is.na(x) || is.na(x)) {
          expect_identical(shown, if (is.nan(x)) "NaN" else "NA", label = what)
        } else if (is.finite(x) && x == trunc(x)) {
          expect_identical(shown, sprintf("%.0f", x), label = what)
        } else {
          expect_identical(as.numeric(shown), x, label = what)
        }
      }
    }
  }
})

test_that("the boundary table gives the expected outcomes", {
  # A few spelled out, so the oracle above is itself checked.
  expect_identical(values_text(pjrt_buffer(-128, dtype = "i8")), "-128")
  expect_identical(values_text(pjrt_buffer(127, dtype = "i8")), "127")
  expect_error(pjrt_buffer(128, dtype = "i8"),
               "Value 128 at position 1 cannot be represented as i8 (range -128 to 127)",
               fixed = TRUE)
  expect_error(pjrt_buffer(-129, dtype = "i8"), "Value -129 at position 1", fixed = TRUE)
  expect_identical(values_text(pjrt_buffer(255.7, dtype = "ui8")), "255")
  expect_error(pjrt_buffer(255.7, dtype = "i8"), "Value 255.7 at position 1", fixed = TRUE)
  expect_identical(values_text(pjrt_buffer(-0.5, dtype = "ui8")), "0")
  expect_identical(values_text(pjrt_buffer(-0.99, dtype = "ui64")), "0")
  expect_error(pjrt_buffer(-1, dtype = "ui8"),
               "Value -1 at position 1 cannot be represented as ui8 (range 0 to 255)", fixed = TRUE)
  expect_identical(values_text(pjrt_buffer(65535, dtype = "ui16")), "65535")
  expect_error(pjrt_buffer(65536, dtype = "ui16"), "Value 65536 at position 1", fixed = TRUE)
  expect_identical(values_text(pjrt_buffer(2^31 - 1, dtype = "i32")), "2147483647")
  expect_identical(values_text(pjrt_buffer(-2^31, dtype = "i32")), "NA") # INT_MIN reads as NA
  expect_error(pjrt_buffer(2^31, dtype = "i32"),
               "Value 2147483648 at position 1 cannot be represented as i32", fixed = TRUE)
  expect_identical(values_text(pjrt_buffer(2^32 - 1, dtype = "ui32")), "4294967295")
  expect_error(pjrt_buffer(2^32, dtype = "ui32"), "Value 4294967296 at position 1", fixed = TRUE)
  expect_identical(values_text(pjrt_buffer(2^53, dtype = "i64")), "9007199254740992")
  expect_identical(values_text(pjrt_buffer(-2^63, dtype = "i64")), "NA") # INT64_MIN
  expect_identical(values_text(pjrt_buffer(2^63 - 1024, dtype = "i64")), "9223372036854774784")
  expect_error(pjrt_buffer(2^63, dtype = "i64"), "cannot be represented as i64", fixed = TRUE)
  expect_error(pjrt_buffer(2^64, dtype = "ui64"),
               "cannot be represented as ui64 (range 0 to 18446744073709551615)", fixed = TRUE)
  expect_error(pjrt_buffer(Inf, dtype = "ui64"), "Value Inf at position 1", fixed = TRUE)
  expect_error(pjrt_buffer(-Inf, dtype = "i64"), "Value -Inf at position 1", fixed = TRUE)
  expect_error(pjrt_buffer(NaN, dtype = "i16"), "Value NaN at position 1", fixed = TRUE)
  expect_error(pjrt_buffer(NA_real_, dtype = "ui32"), "Value NA at position 1", fixed = TRUE)
})

test_that("ui64 values of 2^63 and more are stored (and read back with a warning)", {
  b <- pjrt_buffer(c(2^63, 2^64 - 2048), dtype = "ui64")
  expect_identical(as_raw(b, row_major = FALSE), as.raw(c(
    0, 0, 0, 0, 0, 0, 0, 0x80,
    0, 0xf8, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff
  )))
  expect_identical(stored_values(b), c(2^63, 2^64 - 2048))
})

test_that("seed examples", {
  b <- pjrt_buffer(2^40, dtype = "i64")
  got <- as_array(b)
  expect_s3_class(got, "integer64")
  expect_identical(as.character(got), "1099511627776")
  expect_identical(as.integer(as_array(pjrt_buffer(255.7, dtype = "ui8"))), 255L)
  expect_error(pjrt_buffer(c(1, 256), dtype = "ui8"),
               "Value 256 at position 2 cannot be represented as ui8 (range 0 to 255)",
               fixed = TRUE)
  expect_error(pjrt_buffer(c(0, 100, 300), dtype = "ui8"),
               "Value 300 at position 3 cannot be represented as ui8", fixed = TRUE)
})

test_that("the first offending value is reported, also beyond the first chunk", {
  x <- rep(1, 40000)
  x[c(20000, 30000)] <- c(300, -5)
  expect_error(pjrt_buffer(x, dtype = "ui8"), "Value 300 at position 20000 ", fixed = TRUE)
  x <- rep(1L, 70000)
  x[65537] <- 40000L
  expect_error(pjrt_buffer(x, dtype = "i16"), "Value 40000 at position 65537 ", fixed = TRUE)
})

test_that("range errors happen whatever check says", {
  for (check in c("warn", "error", "ignore")) {
    expect_error(pjrt_buffer(300, dtype = "ui8", check = check), "Value 300 at position 1")
    expect_error(pjrt_buffer(NA_real_, dtype = "i32", check = check), "Value NA at position 1")
  }
})

# ---- integer and integer64 data at integer dtypes --------------------------------------------

test_that("integer data at integer dtypes is range-checked", {
  expect_identical(values_text(pjrt_buffer(c(-128L, 127L), dtype = "i8")), c("-128", "127"))
  expect_error(pjrt_buffer(c(1L, 128L), dtype = "i8"), "Value 128 at position 2", fixed = TRUE)
  expect_error(pjrt_buffer(-1L, dtype = "ui32"),
               "Value -1 at position 1 cannot be represented as ui32 (range 0 to 4294967295)",
               fixed = TRUE)
  expect_error(pjrt_buffer(-1L, dtype = "ui64"), "Value -1 at position 1", fixed = TRUE)
  expect_identical(values_text(pjrt_buffer(.Machine$integer.max, dtype = "ui32")), "2147483647")
  expect_identical(values_text(pjrt_buffer(-.Machine$integer.max, dtype = "i64")), "-2147483647")
  expect_error(pjrt_buffer(256L, dtype = "ui8"), "Value 256 at position 1", fixed = TRUE)
  expect_error(pjrt_buffer(65536L, dtype = "ui16"), "Value 65536 at position 1", fixed = TRUE)
  expect_error(pjrt_buffer(-32769L, dtype = "i16"), "Value -32769 at position 1", fixed = TRUE)
})

test_that("integer64 data goes to any integer dtype, range-checked", {
  max64 <- i64("9223372036854775807")
  min64 <- i64("-9223372036854775807") # -2^63 itself is integer64's NA
  expect_identical(values_text(pjrt_buffer(c(max64, min64))), c("9223372036854775807",
                                                                "-9223372036854775807"))
  expect_identical(values_text(pjrt_buffer(max64, dtype = "ui64")), "9223372036854775807")
  expect_error(pjrt_buffer(i64(-1), dtype = "ui64"), "Value -1 at position 1", fixed = TRUE)
  expect_identical(values_text(pjrt_buffer(i64(4294967295), dtype = "ui32")), "4294967295")
  expect_error(pjrt_buffer(i64(4294967296), dtype = "ui32"),
               "Value 4294967296 at position 1 cannot be represented as ui32", fixed = TRUE)
  expect_error(pjrt_buffer(i64(c(0, 2^31)), dtype = "i32"),
               "Value 2147483648 at position 2 cannot be represented as i32", fixed = TRUE)
  expect_identical(values_text(pjrt_buffer(i64(-2^31 + 1), dtype = "i32")), "-2147483647")
  expect_error(pjrt_buffer(max64, dtype = "i8"),
               "Value 9223372036854775807 at position 1 cannot be represented as i8", fixed = TRUE)
})

test_that("integer64 data goes to floats", {
  expect_identical(as.vector(as_array(pjrt_buffer(i64("9007199254740993"), dtype = "f64"))),
                   2^53) # ties to even
  expect_identical(as.vector(as_array(pjrt_buffer(i64("16777217"), dtype = "f32"))), 2^24)
  expect_identical(as.vector(as_array(pjrt_buffer(i64(2049), dtype = "f16"))), 2048)
  # Correctly rounded, not rounded twice through a double: 2^60 + 2^52 + 1 is just above the
  # midpoint between two bf16 values.
  expect_identical(as.vector(as_array(pjrt_buffer(i64("1157425104234217473"), dtype = "bf16"))),
                   2^60 + 2^53)
  expect_identical(as.vector(as_array(pjrt_buffer(i64(-3), dtype = "c128"))), -3 + 0i)
})

# ---- pred ------------------------------------------------------------------------------------

test_that("pred takes TRUE/FALSE and the numbers 0 and 1 only", {
  expect_identical(as_array(pjrt_buffer(c(TRUE, FALSE))), array(c(TRUE, FALSE)))
  expect_identical(as_array(pjrt_buffer(c(0, 1), dtype = "pred")), array(c(FALSE, TRUE)))
  expect_identical(as_array(pjrt_buffer(c(1L, 0L), dtype = "pred")), array(c(TRUE, FALSE)))
  expect_identical(as_array(pjrt_buffer(i64(c(1, 0)), dtype = "pred")), array(c(TRUE, FALSE)))
  expect_identical(as_array(pjrt_buffer(-0, dtype = "pred")), array(FALSE))
  for (bad in list(2, 0.5, -1, 2L, -1L, i64(2), Inf, NaN)) {
    expect_error(pjrt_buffer(c(0, bad)[2], dtype = "pred"),
                 "at position 1 cannot be represented as pred (allowed values 0 and 1)",
                 fixed = TRUE)
  }
  expect_error(pjrt_buffer(c(TRUE, NA)),
               "Value NA at position 2 cannot be represented as pred", fixed = TRUE)
})

test_that("logical data goes to integer and float dtypes", {
  for (dtype in c(integer_dtypes, float_dtypes)) {
    expect_identical(as.double(as_array(pjrt_buffer(c(TRUE, FALSE), dtype = dtype))),
                     c(1, 0), label = dtype)
  }
  expect_identical(as_array(pjrt_buffer(c(TRUE, FALSE), dtype = "c64")), array(c(1 + 0i, 0i)))
})

# ---- missing values at every dtype -----------------------------------------------------------

test_that("NA from each R type at each dtype: error, warning or NaN as specified", {
  sources <- list(
    logical = c(TRUE, NA), integer = c(1L, NA), double = c(1, NA), nan = c(1, NaN),
    integer64 = i64(c(1, NA))
  )
  for (source in names(sources)) {
    x <- sources[[source]]
    for (dtype in all_dtypes) {
      what <- paste(source, "NA at", dtype)
      zero_copy_na <- (source == "integer" && dtype == "i32") ||
        (source == "integer64" && dtype == "i64")
      if (zero_copy_na) {
        expect_warning(b <- pjrt_buffer(x, dtype = dtype), "1 missing value was stored as",
                       label = what)
        expect_identical(values_text(b), c("1", "NA"), label = what)
      } else if (dtype %in% c("pred", integer_dtypes)) {
        shown <- if (source == "nan") "NaN" else "NA"
        expect_error(pjrt_buffer(x, dtype = dtype),
                     paste0("Value ", shown, " at position 2 cannot be represented as ", dtype),
                     fixed = TRUE, label = what)
      } else {
        got <- expect_silent(as_array(pjrt_buffer(x, dtype = dtype)))
        expect_identical(is.na(got), array(c(FALSE, TRUE)), label = what)
        # At c64 and the narrower floats R's NA payload is lost: NaN. f64 and c128 keep
        # the double bits, so NA_real_ stays NA there (as as.double() would give).
        if (dtype == "c64") {
          expect_true(is.nan(Re(got[[2]])), label = what)
        } else if (!dtype %in% c("f64", "c128")) {
          expect_true(is.nan(got[[2]]), label = what)
        }
        if (dtype %in% complex_dtypes) expect_identical(Im(got[[2]]), 0, label = what)
      }
    }
  }
})

test_that("NA_real_ at f64 travels unchanged; at narrower floats it becomes NaN", {
  expect_identical(as_array(pjrt_buffer(NA_real_, dtype = "f64")), array(NA_real_))
  for (dtype in c("f16", "bf16", "f32")) {
    got <- as_array(pjrt_buffer(c(NA, NaN), dtype = dtype))
    expect_true(all(is.nan(got)), label = dtype)
  }
  expect_identical(as_array(pjrt_buffer(NA_integer_, dtype = "f32")), array(NaN))
  expect_identical(as_array(pjrt_buffer(i64(NA), dtype = "f64")), array(NaN))
  expect_identical(as_array(pjrt_buffer(NA, dtype = "f16")), array(NaN))
})

test_that("integer NA at i32 follows check", {
  x <- c(1L, NA, 3L, NA)
  expect_snapshot(b <- pjrt_buffer(x))
  expect_identical(values_text(b), c("1", "NA", "3", "NA"))
  expect_snapshot(b <- pjrt_buffer(c(NA, 2L), dtype = "i32", check = "warn"))
  expect_identical(values_text(b), c("NA", "2"))
  expect_snapshot(pjrt_buffer(x, check = "error"), error = TRUE)
  expect_silent(b <- pjrt_buffer(x, check = "ignore"))
  expect_identical(values_text(b), c("1", "NA", "3", "NA"))
  expect_identical(as_raw(b, row_major = FALSE)[5:8], as.raw(c(0, 0, 0, 0x80)))
  # without missing values, check = "error" is fine
  expect_identical(as_array(pjrt_buffer(1:3, check = "error")), array(1:3))
  expect_snapshot(b <- pjrt_scalar(NA_integer_))
  expect_identical(values_text(b), "NA")
})

test_that("integer64 NA at i64 follows check", {
  x <- i64(c(1, NA))
  expect_snapshot(b <- pjrt_buffer(x))
  expect_identical(values_text(b), c("1", "NA"))
  expect_snapshot(pjrt_buffer(x, dtype = "i64", check = "error"), error = TRUE)
  expect_silent(b <- pjrt_buffer(x, check = "ignore"))
  expect_identical(as_raw(b, row_major = FALSE)[9:16], as.raw(c(0, 0, 0, 0, 0, 0, 0, 0x80)))
})

test_that("integer64 NA at ui64 is an error whatever check says", {
  for (check in c("warn", "error", "ignore")) {
    expect_error(pjrt_buffer(i64(c(1, NA)), dtype = "ui64", check = check),
                 "Value NA at position 2 cannot be represented as ui64", fixed = TRUE)
  }
})

# ---- floats ----------------------------------------------------------------------------------

test_that("floats take any number; too large becomes Inf", {
  expect_identical(as_array(pjrt_buffer(c(1e39, -1e39, 1e-50), dtype = "f32")),
                   array(c(Inf, -Inf, 0)))
  expect_identical(as_array(pjrt_buffer(c(Inf, -Inf, NaN), dtype = "f16")),
                   array(c(Inf, -Inf, NaN)))
  expect_identical(as_array(pjrt_buffer(c(Inf, -Inf, NaN), dtype = "bf16")),
                   array(c(Inf, -Inf, NaN)))
  expect_identical(as_array(pjrt_buffer(c(.Machine$double.xmax, 5e-324), dtype = "f64")),
                   array(c(.Machine$double.xmax, 5e-324)))
  # bf16: the largest value is (2 - 2^-7) * 2^127; the midpoint above it rounds (to even) to Inf.
  expect_identical(as_array(pjrt_buffer(c(1e39, (2 - 2^-7) * 2^127, (2 - 2^-8) * 2^127),
                                        dtype = "bf16")),
                   array(c(Inf, (2 - 2^-7) * 2^127, Inf)))
})

test_that("f32 narrowing rounds to nearest even", {
  got <- as.vector(as_array(pjrt_buffer(c(1 + 2^-24, 1 + 3 * 2^-24, 1 + 2^-24 + 2^-40),
                                        dtype = "f32")))
  expect_identical(got, c(1, 1 + 2^-22, 1 + 2^-23))
})

test_that("f16 rounds to nearest even, directly from double", {
  x <- c(2049, 2051, 65504, 65519, 65520, -65520, 2^-25, 1.5 * 2^-25, 2^-24,
         1 + 2^-11, 1 + 3 * 2^-11, 1 + 2^-11 + 2^-40, 0.1, -0)
  want <- c(2048, 2052, 65504, 65504, Inf, -Inf, 0, 2^-24, 2^-24,
            1, 1 + 2^-9, 1 + 2^-10, 0.0999755859375, -0)
  got <- as.vector(as_array(pjrt_buffer(x, dtype = "f16")))
  expect_identical(got, want)
  expect_identical(1 / got[[length(got)]], -Inf) # the sign of zero is kept
})

test_that("bf16 rounds to nearest even, directly from double", {
  x <- c(257, 259, 1 + 2^-8, 1 + 3 * 2^-8, 1 + 2^-8 + 2^-40, 0.1, 3.39e38, 3.4e38, 3e38)
  want <- c(256, 260, 1, 1 + 2^-6, 1 + 2^-7, 0.10009765625, 3.3895313892515355e38, Inf,
            226 * 2^120)
  expect_identical(as.vector(as_array(pjrt_buffer(x, dtype = "bf16"))), want)
})

test_that("f16 and bf16 accept integer data with the same rounding", {
  expect_identical(as.vector(as_array(pjrt_buffer(c(2049L, 70000L), dtype = "f16"))),
                   c(2048, Inf))
  expect_identical(as.vector(as_array(pjrt_buffer(c(257L, 259L), dtype = "bf16"))), c(256, 260))
})

# ---- complex ---------------------------------------------------------------------------------

test_that("complex data goes only to c64/c128", {
  z <- c(1.5 + 2i, -1i)
  expect_identical(as_array(pjrt_buffer(z, dtype = "c128")), array(z))
  expect_identical(as_array(pjrt_buffer(z)), array(z))
  for (dtype in setdiff(all_dtypes, complex_dtypes)) {
    expect_error(pjrt_buffer(z, dtype = dtype),
                 paste0("Complex data can only be stored as c64 or c128, not ", dtype, "."),
                 fixed = TRUE)
  }
})

test_that("c64 rounds each part to f32; too large parts become Inf", {
  z <- complex(real = c(1 + 2^-24, 1e39, 0.1), imaginary = c(1 + 3 * 2^-24, -1e39, -0.1))
  got <- as.vector(as_array(pjrt_buffer(z, dtype = "c64")))
  expect_identical(Re(got), c(1, Inf, as.double(0.100000001490116119384765625)))
  expect_identical(Im(got), c(1 + 2^-22, -Inf, -as.double(0.100000001490116119384765625)))
})

test_that("real data goes to complex with a zero imaginary part", {
  for (dtype in complex_dtypes) {
    expect_identical(as_array(pjrt_buffer(c(1.5, -2), dtype = dtype)), array(c(1.5, -2) + 0i))
    expect_identical(as_array(pjrt_buffer(c(3L, -4L), dtype = dtype)), array(c(3, -4) + 0i))
    expect_identical(as_array(pjrt_buffer(c(TRUE, FALSE), dtype = dtype)), array(c(1, 0) + 0i))
    expect_identical(as_array(pjrt_buffer(i64(7), dtype = dtype)), array(7 + 0i))
    got <- as.vector(as_array(pjrt_buffer(NA_real_, dtype = dtype)))
    expect_true(is.na(Re(got)))
    expect_identical(Im(got), 0)
  }
})

test_that("complex NA becomes NaN parts at c64 and stays NA at c128", {
  got <- as_array(pjrt_buffer(c(NA_complex_, 1), dtype = "c64"))
  expect_true(is.nan(Re(got[[1]])) && is.nan(Im(got[[1]])))
  expect_identical(got[[2]], 1 + 0i)
  expect_identical(as_array(pjrt_buffer(c(NA_complex_, 1), dtype = "c128")),
                   array(c(NA_complex_, 1)))
})

# ---- as_array() ------------------------------------------------------------------------------

test_that("as_array() gives the R type of each dtype, with dims", {
  for (dtype in all_dtypes) {
    data <- if (dtype %in% complex_dtypes) 1:6 + 0i else if (dtype == "pred") 0:5 %% 2 else 1:6
    b <- pjrt_buffer(data, dtype = dtype, shape = c(2, 3))
    got <- as_array(b)
    expect_identical(r_type(got), r_type_of[[dtype]], label = dtype)
    expect_identical(dim(got), c(2L, 3L), label = dtype)
    if (dtype != "pred") {
      expect_identical(complex_values(got), as.complex(1:6), label = dtype)
    }
    # rank 1 gives a 1-d array; rank 3 keeps all dims
    expect_identical(dim(as_array(pjrt_buffer(data, dtype = dtype))), 6L, label = dtype)
    expect_identical(dim(as_array(pjrt_buffer(data, dtype = dtype, shape = c(1, 3, 2)))),
                     c(1L, 3L, 2L), label = dtype)
    # 0-d gives a plain vector without dim
    s <- as_array(pjrt_scalar(data[[2]], dtype = dtype))
    expect_null(dim(s), label = dtype)
    expect_null(attributes(unclass(s)), label = dtype)
    expect_length(s, 1)
    expect_identical(r_type(s), r_type_of[[dtype]], label = dtype)
  }
})

test_that("as_array() returns the values exactly for each dtype", {
  expect_identical(as_array(pjrt_buffer(c(-128, 127), dtype = "i8")), array(c(-128L, 127L)))
  expect_identical(as_array(pjrt_buffer(c(-32768, 32767), dtype = "i16")),
                   array(c(-32768L, 32767L)))
  expect_identical(as_array(pjrt_buffer(c(0, 255), dtype = "ui8")), array(c(0L, 255L)))
  expect_identical(as_array(pjrt_buffer(c(0, 65535), dtype = "ui16")), array(c(0L, 65535L)))
  expect_identical(values_text(pjrt_buffer(c(0, 2^32 - 1), dtype = "ui32")),
                   c("0", "4294967295"))
  expect_identical(values_text(pjrt_buffer(c(0, 2^63 - 1024), dtype = "ui64")),
                   c("0", "9223372036854774784"))
  expect_identical(as_array(pjrt_buffer(c(65504, 2^-24), dtype = "f16")),
                   array(c(65504, 2^-24)))
})

test_that("as_array() check: INT_MIN in i32", {
  b <- pjrt_buffer(c(-2^31, 1, -2^31), dtype = "i32")
  expect_snapshot(got <- as_array(b))
  expect_identical(got, array(c(NA, 1L, NA)))
  expect_snapshot(as_array(b, check = "error"), error = TRUE)
  expect_silent(got <- as_array(b, check = "ignore"))
  expect_identical(got, array(c(NA, 1L, NA)))
  expect_silent(as_array(pjrt_buffer(1:3), check = "error"))
})

test_that("as_array() check: INT64_MIN in i64", {
  b <- pjrt_buffer(-2^63, dtype = "i64")
  expect_snapshot(got <- as_array(b))
  expect_identical(as.character(got), NA_character_)
  expect_snapshot(as_array(b, check = "error"), error = TRUE)
  expect_silent(got <- as_array(b, check = "ignore"))
  expect_true(is.na(got))
  expect_silent(as_array(pjrt_buffer(i64("-9223372036854775807")), check = "error"))
})

test_that("as_array() check: ui64 >= 2^63", {
  b <- pjrt_buffer(c(1, 2^63, 2^64 - 2048), dtype = "ui64")
  expect_snapshot(got <- as_array(b))
  expect_identical(as.character(got), c("1", NA, NA))
  expect_snapshot(as_array(b, check = "error"), error = TRUE)
  expect_silent(got <- as_array(b, check = "ignore"))
  expect_identical(as.character(got), c("1", NA, NA))
  # The largest ui64, from raw bytes
  b <- pjrt_buffer(as.raw(rep(0xff, 8)), dtype = "ui64", shape = 1, row_major = TRUE)
  expect_warning(got <- as_array(b), "1 ui64 value of 2^63 or more", fixed = TRUE)
  expect_true(is.na(got))
  expect_identical(as_raw(b, row_major = TRUE), as.raw(rep(0xff, 8)))
  expect_silent(as_array(pjrt_buffer(2^63 - 1024, dtype = "ui64"), check = "error"))
})

test_that("as_array() check does not apply to other dtypes", {
  for (dtype in setdiff(all_dtypes, c("i32", "i64", "ui64", complex_dtypes))) {
    expect_silent(as_array(pjrt_buffer(c(0, 1), dtype = dtype), check = "error"))
  }
  expect_identical(as_array(pjrt_buffer(-2^31, dtype = "i64"), check = "error") |> as.character(),
                   "-2147483648")
})

# ---- as_raw() --------------------------------------------------------------------------------

test_that("as_raw() gives the element bytes in either order", {
  b <- pjrt_buffer(matrix(1:6, nrow = 2), dtype = "i16")
  expect_identical(as_raw(b, row_major = FALSE),
                   as.raw(c(1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0)))
  expect_identical(as_raw(b, row_major = TRUE),
                   as.raw(c(1, 0, 3, 0, 5, 0, 2, 0, 4, 0, 6, 0)))
  s <- pjrt_scalar(1, dtype = "f32")
  expect_identical(as_raw(s, row_major = TRUE), as.raw(c(0, 0, 0x80, 0x3f)))
  expect_identical(as_raw(s, row_major = FALSE), as.raw(c(0, 0, 0x80, 0x3f)))
  expect_identical(as_raw(pjrt_buffer(c(1.5, -2), dtype = "f64"), row_major = TRUE),
                   writeBin(c(1.5, -2), raw(), size = 8, endian = "little"))
  expect_identical(as_raw(pjrt_buffer(c(TRUE, FALSE)), row_major = TRUE), as.raw(c(1, 0)))
  expect_identical(as_raw(pjrt_buffer(1, dtype = "bf16"), row_major = TRUE), as.raw(c(0x80, 0x3f)))
  expect_identical(as_raw(pjrt_buffer(1, dtype = "f16"), row_major = TRUE), as.raw(c(0x00, 0x3c)))
  expect_identical(as_raw(pjrt_empty("f32", c(0, 3)), row_major = TRUE), raw())
  a <- array(as.double(1:24), c(2, 3, 4))
  expect_identical(as_raw(pjrt_buffer(a, dtype = "ui8"), row_major = TRUE),
                   as.raw(aperm(a, 3:1)))
})

# ---- base R converters -----------------------------------------------------------------------

test_that("as.array(), as.vector(), as.double(), as.integer(), as.logical() follow as_array()", {
  b <- pjrt_buffer(matrix(c(1.5, 2, 3, 4), 2), dtype = "f64")
  expect_identical(as.array(b), matrix(c(1.5, 2, 3, 4), 2))
  expect_identical(as.vector(b), c(1.5, 2, 3, 4))
  expect_identical(as.double(b), c(1.5, 2, 3, 4))
  expect_identical(as.integer(b), c(1L, 2L, 3L, 4L))
  expect_identical(as.logical(pjrt_buffer(c(TRUE, FALSE))), c(TRUE, FALSE))
  expect_identical(as.logical(pjrt_buffer(c(0, 2), dtype = "i8")), c(FALSE, TRUE))
  expect_identical(as.vector(pjrt_buffer(1:3, dtype = "ui8")), 1:3)
  expect_identical(as.vector(pjrt_buffer(c(TRUE, FALSE))), c(TRUE, FALSE))
  expect_identical(as.vector(pjrt_buffer(1i)), 1i)
  expect_identical(as.vector(pjrt_buffer(1:2), mode = "character"), c("1", "2"))
  expect_identical(as.vector(pjrt_scalar(2.5)), 2.5)
  expect_identical(as.array(pjrt_scalar(2L)), 2L)
})

test_that("integer64-valued buffers convert to plain R vectors", {
  b <- pjrt_buffer(c(1, 2^40), dtype = "i64")
  expect_identical(as.vector(b), c(1, 2^40))
  expect_identical(as.double(b), c(1, 2^40))
  expect_identical(as.vector(b, mode = "character"), c("1", "1099511627776"))
  u <- pjrt_buffer(c(1, 4294967295), dtype = "ui32")
  expect_identical(as.double(u), c(1, 4294967295))
  expect_identical(as.integer(pjrt_buffer(1:3, dtype = "i64")), 1:3)
  expect_identical(as.vector(pjrt_buffer(1:3, dtype = "ui64"), mode = "integer"), 1:3)
  expect_identical(as.logical(pjrt_buffer(c(0, 1), dtype = "i64")), c(FALSE, TRUE))
  expect_warning(got <- as.double(pjrt_buffer(2^63, dtype = "ui64")), "does not fit integer64")
  expect_identical(got, NA_real_)
})

# ---- round trips -----------------------------------------------------------------------------

# Values of each dtype including its extremes, as R data pjrt_buffer() accepts.
round_trip_data <- list(
  pred = c(TRUE, FALSE, TRUE, TRUE, FALSE, FALSE),
  i8 = c(-128, 127, 0, -1, 1, 5),
  i16 = c(-32768, 32767, 0, -1, 1, 5),
  i32 = c(-2147483647L, 2147483647L, 0L, -1L, 1L, 5L),
  i64 = i64(c("-9223372036854775807", "9223372036854775807", "0", "-1", "1", "5")),
  ui8 = c(0, 255, 1, 2, 3, 128),
  ui16 = c(0, 65535, 1, 2, 3, 32768),
  ui32 = c(0, 4294967295, 1, 2, 3, 2147483648),
  ui64 = i64(c("0", "9223372036854775807", "1", "2", "3", "4294967296")),
  f16 = c(65504, -65504, 2^-24, -0, Inf, NaN),
  bf16 = c(3.3895313892515355e38, -1, 2^-133, -0, -Inf, NaN),
  f32 = c(3.4028234663852886e38, 2^-149, 0.1, -0, Inf, NaN),
  f64 = c(.Machine$double.xmax, 5e-324, 0.1, -0, -Inf, NA),
  c64 = complex(real = c(0.1, -0, Inf, 1, 2, 3), imaginary = c(NaN, 1, -1, 0, 3.4e38, -2^-149)),
  c128 = complex(real = c(0.1, -0, Inf, 1, 2, 3), imaginary = c(NaN, 1, -1, 0, 1e300, -5e-324))
)

test_that("pjrt_buffer(as_array(b), dtype = elt_type(b)) reproduces b for every dtype", {
  for (dtype in all_dtypes) {
    b <- pjrt_buffer(round_trip_data[[dtype]], dtype = dtype, shape = c(3, 2))
    again <- pjrt_buffer(as_array(b), dtype = elt_type(b))
    expect_equal(again, b, label = dtype)
    expect_identical(shape(again), c(3L, 2L), label = dtype)
    expect_identical(as_raw(again, row_major = FALSE), as_raw(b, row_major = FALSE), label = dtype)
  }
})

test_that("the raw round trip reproduces b exactly, in either order", {
  for (dtype in all_dtypes) {
    b <- pjrt_buffer(round_trip_data[[dtype]], dtype = dtype, shape = c(3, 2))
    for (row_major in c(FALSE, TRUE)) {
      again <- pjrt_buffer(as_raw(b, row_major = row_major), dtype = elt_type(b),
                           shape = shape(b), row_major = row_major)
      expect_identical(as_raw(again, row_major = FALSE), as_raw(b, row_major = FALSE),
                       label = paste(dtype, row_major))
      expect_equal(again, b, label = paste(dtype, row_major))
    }
    s <- pjrt_scalar(round_trip_data[[dtype]][2], dtype = dtype)
    again <- pjrt_scalar(as_raw(s, row_major = FALSE), dtype = dtype)
    expect_identical(shape(again), integer())
    expect_identical(as_raw(again, row_major = TRUE), as_raw(s, row_major = TRUE), label = dtype)
  }
})

test_that("round trips keep the NA sentinels with check = 'ignore'", {
  b <- pjrt_buffer(c(-2^31, 1), dtype = "i32")
  again <- pjrt_buffer(as_array(b, check = "ignore"), dtype = elt_type(b), check = "ignore")
  expect_identical(as_raw(again, row_major = TRUE), as_raw(b, row_major = TRUE))
  b <- pjrt_buffer(c(-2^63, 1), dtype = "i64")
  again <- pjrt_buffer(as_array(b, check = "ignore"), dtype = elt_type(b), check = "ignore")
  expect_identical(as_raw(again, row_major = TRUE), as_raw(b, row_major = TRUE))
})
