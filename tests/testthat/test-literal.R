# format_buffer(): elements as StableHLO literal text.

test_that("floats are spelled with the digits that round-trip their dtype", {
  x <- c(1.5, -0.1, 1e-30, 123456789)
  # Expected from R's own formatting of the values each dtype holds.
  expect_identical(format_buffer(pjrt_buffer(x, dtype = "f64")),
                   array(sprintf("%.16e", x), 4))
  f32_values <- as_array(pjrt_buffer(x, dtype = "f32"))  # the exact f32 values, as doubles
  expect_identical(format_buffer(pjrt_buffer(x, dtype = "f32")),
                   array(sprintf("%.8e", f32_values), 4))
  expect_identical(format_buffer(pjrt_buffer(c(1, 1 / 3), dtype = "f16")),
                   array(c("1.0000e+00", "3.3325e-01")))
  expect_identical(format_buffer(pjrt_buffer(c(1, -3), dtype = "bf16")),
                   array(c("1.000e+00", "-3.000e+00")))
})

test_that("NaN and infinities are hex bit patterns, NA included", {
  x <- c(NaN, NA, Inf, -Inf)
  expect_identical(format_buffer(pjrt_buffer(x, dtype = "f32", check = "ignore")),
                   array(c("0x7FC00000", "0x7FC00000", "0x7F800000", "0xFF800000")))
  expect_identical(format_buffer(pjrt_buffer(x, dtype = "f64", check = "ignore")),
                   array(c("0x7FF8000000000000", "0x7FF8000000000000", "0x7FF0000000000000",
                           "0xFFF0000000000000")))
})

test_that("integers, pred and complex; dims as the buffer's, a 0-d buffer gives a string", {
  m <- matrix(c(-128L, 0L, 5L, 127L), 2)
  expect_identical(format_buffer(pjrt_buffer(m, dtype = "i8")),
                   matrix(c("-128", "0", "5", "127"), 2))
  big <- pjrt_buffer(as.raw(rep(0xff, 8)), dtype = "ui64", shape = integer(), row_major = TRUE)
  expect_identical(format_buffer(big), "18446744073709551615")
  expect_identical(format_buffer(pjrt_buffer(c(TRUE, FALSE))), array(c("true", "false")))
  expect_identical(format_buffer(pjrt_buffer(1.5 - 2i, dtype = "c64")),
                   array("(1.50000000e+00, -2.00000000e+00)"))
  expect_identical(format_buffer(pjrt_buffer(integer(), dtype = "i32", shape = c(0, 3))),
                   matrix(character(), 0, 3))
  expect_identical(format_buffer(pjrt_scalar(2L)), "2")
})

test_that("the text compiles back to the same bits", {
  set.seed(7)
  for (dtype in c("f64", "f32", "f16", "bf16")) {
    b <- pjrt_buffer(c(rnorm(20) * 10^sample(-20:20, 20, TRUE), 0, -0, Inf, -Inf), dtype = dtype)
    type <- sprintf("tensor<24x%s>", dtype)
    src <- sprintf("func.func @main() -> %1$s {\n  %%0 = stablehlo.constant dense<[%2$s]> : %1$s\n  return %%0 : %1$s\n}",
                   type, paste(format_buffer(b), collapse = ", "))
    expect_identical(as_raw(run_program(src), row_major = TRUE), as_raw(b, row_major = TRUE),
                     label = dtype)
  }
})

test_that("format_buffer() refuses what is not a buffer", {
  expect_snapshot(format_buffer(1:3), error = TRUE)
})
