# The 8-bit float dtypes f8e4m3fn and f8e5m2: creation under the strict rules, reading back,
# printing, literal text, safetensors and programs. Expected values are worked out by hand
# from each format's definition (sign, exponent bias, mantissa), never from the package.

# A buffer's values as a plain vector (as_array() gives a 1-d array).
values <- function(buffer) as.vector(as_array(buffer))

# The value of each code of a format, computed here from its definition.
e4m3fn_value <- function(code) {
  sign <- if (code >= 128) -1 else 1
  e <- (code %/% 8) %% 16
  m <- code %% 8
  if (e == 15 && m == 7) return(NaN)  # the only NaN codes: 0x7F, 0xFF; no infinities
  if (e == 0) sign * m * 2^-9 else sign * (1 + m / 8) * 2^(e - 7)
}
e5m2_value <- function(code) {
  sign <- if (code >= 128) -1 else 1
  e <- (code %/% 4) %% 32
  m <- code %% 4
  if (e == 31) return(if (m == 0) sign * Inf else NaN)
  if (e == 0) sign * m * 2^-16 else sign * (1 + m / 4) * 2^(e - 15)
}

test_that("every f8e4m3fn and f8e5m2 code reads back as its value", {
  codes <- 0:255
  e4 <- values(pjrt_buffer(as.raw(codes), "f8e4m3fn", shape = 256, row_major = TRUE))
  expect_identical(e4, vapply(codes, e4m3fn_value, numeric(1)))
  e5 <- values(pjrt_buffer(as.raw(codes), "f8e5m2", shape = 256, row_major = TRUE))
  expect_identical(e5, vapply(codes, e5m2_value, numeric(1)))
})

test_that("doubles round to nearest, ties to even, at the f8e4m3fn boundaries", {
  x <- c(1, 0.1, 448, 450, 464, -464, 2^-6, 7 * 2^-9, 2^-9, 2^-10, 3 * 2^-10, 1 + 1 / 16,
         1 + 3 / 16)
  expected <- c(1, 0.1015625, 448, 448, 448, -448, 2^-6, 7 * 2^-9, 2^-9, 0, 2^-8, 1, 1.25)
  expect_identical(values(pjrt_buffer(x, "f8e4m3fn")), expected)
  expect_identical(as_raw(pjrt_buffer(c(1, -2, 448, -0), "f8e4m3fn"), row_major = FALSE),
                   as.raw(c(0x38, 0xC0, 0x7E, 0x80)))
  zero <- values(pjrt_buffer(-0, "f8e4m3fn"))
  expect_identical(1 / zero, -Inf)
  expect_identical(values(pjrt_buffer(c(NaN, NA), "f8e4m3fn")), c(NaN, NaN))
  # Integers: 17 is a tie between 16 (even) and 18; 19 between 18 and 20 (even).
  expect_identical(values(pjrt_buffer(c(17L, 19L, NA), "f8e4m3fn")), c(16, 20, NaN))
  expect_identical(values(pjrt_buffer(bit64::as.integer64(c(-464, 3)), "f8e4m3fn")),
                   c(-448, 3))
})

test_that("values beyond f8e4m3fn's range are errors (it has no infinities)", {
  expect_snapshot(error = TRUE, {
    pjrt_buffer(c(1, 464.5), "f8e4m3fn")
    pjrt_buffer(c(-Inf, 1), "f8e4m3fn")
    pjrt_buffer(c(1L, 2L, 500L), "f8e4m3fn")
  })
})

test_that("doubles round to f8e5m2 with overflow to Inf", {
  x <- c(1, 0.1, 57344, 61439, 61440, -61440, Inf, NaN, 2^-14, 2^-16, 2^-17, 3 * 2^-17)
  expected <- c(1, 0.09375, 57344, 57344, Inf, -Inf, Inf, NaN, 2^-14, 2^-16, 0, 2^-15)
  expect_identical(values(pjrt_buffer(x, "f8e5m2")), expected)
  expect_identical(as_raw(pjrt_buffer(c(1, Inf, -Inf), "f8e5m2"), row_major = FALSE),
                   as.raw(c(0x3C, 0x7C, 0xFC)))
})

test_that("the MLIR spellings are aliases and elt_type() gives the dtype name", {
  expect_identical(as.character(elt_type(pjrt_buffer(1, "f8E4M3FN"))), "f8e4m3fn")
  expect_identical(as.character(elt_type(pjrt_buffer(1, "f8E5M2"))), "f8e5m2")
})

test_that("f8 buffers print like f32 and spell literals with round-trip digits", {
  expect_snapshot({
    print(pjrt_buffer(c(1.5, 448, -0.1015625, NaN), "f8e4m3fn", shape = c(2, 2)))
    print(pjrt_buffer(c(57344, -Inf, 2^-16), "f8e5m2"))
  })
  expect_identical(as.vector(format_buffer(pjrt_buffer(c(1.5, NaN, 0.1, -448), "f8e4m3fn"))),
                   c("1.50e+00", "0x7F", "1.02e-01", "-4.48e+02"))
  expect_identical(as.vector(format_buffer(pjrt_buffer(c(Inf, -Inf, 57344, NaN), "f8e5m2"))),
                   c("0x7C", "0xFC", "5.7e+04", "0x7E"))
})

test_that("f8 buffers round-trip through safetensors as F8_E4M3 and F8_E5M2", {
  path <- tempfile(fileext = ".safetensors")
  on.exit(unlink(path))
  a <- pjrt_buffer(as.raw(0:255), "f8e4m3fn", shape = 256, row_major = TRUE)
  b <- pjrt_buffer(as.raw(0:255), "f8e5m2", shape = c(16, 16), row_major = TRUE)
  pjrt_save_safetensors(list(a = a, b = b), path)
  header_size <- readBin(path, "integer", n = 1, size = 8)
  header <- rawToChar(readBin(path, "raw", n = 8 + header_size)[-(1:8)])
  expect_match(header, '"a":{"dtype":"F8_E4M3","shape":[256]', fixed = TRUE)
  expect_match(header, '"b":{"dtype":"F8_E5M2","shape":[16,16]', fixed = TRUE)
  loaded <- pjrt_load_safetensors(path)
  expect_identical(as.character(elt_type(loaded$a)), "f8e4m3fn")
  expect_identical(as_raw(loaded$a, row_major = FALSE), as.raw(0:255))
  expect_identical(as.character(elt_type(loaded$b)), "f8e5m2")
  expect_identical(as_raw(loaded$b, row_major = FALSE), as_raw(b, row_major = FALSE))
})

test_that("programs compute f8 arithmetic in f32 and round once", {
  src <- paste(
    "func.func @main(%x: tensor<4xf8E4M3FN>, %y: tensor<4xf8E4M3FN>) -> tensor<4xf8E4M3FN> {",
    "  %0 = stablehlo.add %x, %y : tensor<4xf8E4M3FN>",
    "  return %0 : tensor<4xf8E4M3FN>",
    "}", sep = "\n")
  x <- pjrt_buffer(c(1, 0.1015625, 448, 1.125), "f8e4m3fn")
  y <- pjrt_buffer(c(1, 0.1015625, 448, 0.0625), "f8e4m3fn")
  # 448 + 448 overflows to NaN; 1.125 + 0.0625 = 1.1875 ties between 1.125 and 1.25 (even).
  expect_identical(values(run_program(src, x, y)), c(2, 0.203125, NaN, 1.25))
})

test_that("programs convert f32 to f8 and back, and bitcast f8 to ui8", {
  src <- paste(
    "func.func @main(%x: tensor<3xf32>) -> (tensor<3xf8E5M2>, tensor<3xf32>, tensor<3xui8>) {",
    "  %0 = stablehlo.convert %x : (tensor<3xf32>) -> tensor<3xf8E5M2>",
    "  %1 = stablehlo.convert %0 : (tensor<3xf8E5M2>) -> tensor<3xf32>",
    "  %2 = stablehlo.bitcast_convert %0 : (tensor<3xf8E5M2>) -> tensor<3xui8>",
    "  return %0, %1, %2 : tensor<3xf8E5M2>, tensor<3xf32>, tensor<3xui8>",
    "}", sep = "\n")
  out <- run_program(src, pjrt_buffer(c(0.1, 1e6, -3), "f32"))
  expect_identical(values(out[[1]]), c(0.09375, Inf, -3))
  expect_identical(values(out[[2]]), c(0.09375, Inf, -3))
  expect_identical(values(out[[3]]), c(0x2EL, 0x7CL, 0xC2L))
})

test_that("the program-only small floats work in constants and convert, and nowhere else", {
  src <- paste(
    "func.func @main() -> tensor<3xf32> {",
    "  %0 = stablehlo.constant dense<[0.1, 0x1F, 100.0]> : tensor<3xf6E2M3FN>",
    "  %1 = stablehlo.convert %0 : (tensor<3xf6E2M3FN>) -> tensor<3xf32>",
    "  return %1 : tensor<3xf32>",
    "}", sep = "\n")
  # 0.1 rounds to 0.125; 0x1F is 1.875 * 2^(3 - 1); 100 saturates (no Inf, no NaN).
  expect_identical(values(run_program(src)), c(0.125, 7.5, 7.5))
  add <- paste(
    "func.func @main() -> tensor<2xf32> {",
    "  %0 = stablehlo.constant dense<1.0> : tensor<2xf8E4M3FNUZ>",
    "  %1 = stablehlo.add %0, %0 : tensor<2xf8E4M3FNUZ>",
    "  %2 = stablehlo.convert %1 : (tensor<2xf8E4M3FNUZ>) -> tensor<2xf32>",
    "  return %2 : tensor<2xf32>",
    "}", sep = "\n")
  expect_snapshot(error = TRUE, pjrt_compile(pjrt_program(add)))
})
