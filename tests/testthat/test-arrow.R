# Buffers as Arrow arrays through nanoarrow and back: types, shapes, shared memory, refusals.

arrow_values <- list(
  pred = c(TRUE, FALSE, TRUE, TRUE, FALSE, FALSE, TRUE, FALSE, TRUE),
  i8 = c(-128L, 0L, 127L), i16 = c(-32768L, 1L, 32767L), i32 = c(-2147483647L, 0L, 5L),
  i64 = i64(c("-9223372036854775807", "0", "9223372036854775807")),
  ui8 = c(0L, 1L, 255L), ui16 = c(0L, 65535L, 7L), ui32 = i64(c("0", "4294967295", "3")),
  ui64 = i64(c("0", "9223372036854775807", "12")),
  f16 = c(0.5, -65504, Inf), f32 = c(1.5, -0, NaN), f64 = c(pi, -Inf, 1e-300)
)

# The buffer's own bytes in R's order: an independent check of bit-exactness.
bytes_of <- function(b) as_raw(b, row_major = FALSE)

test_that("1-d buffers of every Arrow type round trip bit-exactly", {
  skip_if_not_installed("nanoarrow")
  arrow_type <- c(
    pred = "bool", i8 = "int8", i16 = "int16", i32 = "int32", i64 = "int64", ui8 = "uint8",
    ui16 = "uint16", ui32 = "uint32", ui64 = "uint64", f16 = "half_float", f32 = "float",
    f64 = "double"
  )
  for (dtype in names(arrow_values)) {
    b <- pjrt_buffer(arrow_values[[dtype]], dtype = dtype)
    a <- nanoarrow::as_nanoarrow_array(b)
    expect_identical(nanoarrow::nanoarrow_schema_parse(nanoarrow::infer_nanoarrow_schema(a))$type,
                     unname(arrow_type[dtype]), label = dtype)
    expect_identical(a$length, length(arrow_values[[dtype]]), label = dtype)
    back <- pjrt_buffer(a)
    expect_identical(as.character(elt_type(back)), dtype, label = dtype)
    expect_identical(shape(back), shape(b), label = dtype)
    expect_identical(bytes_of(back), bytes_of(b), label = dtype)
  }
})

test_that("nanoarrow reads the exported values as R would", {
  skip_if_not_installed("nanoarrow")
  expect_identical(nanoarrow::convert_array(nanoarrow::as_nanoarrow_array(pjrt_buffer(
    c(1.5, 2.5), dtype = "f64"))), c(1.5, 2.5))
  expect_identical(nanoarrow::convert_array(nanoarrow::as_nanoarrow_array(pjrt_buffer(
    c(-3L, 4L), dtype = "i16"))), c(-3L, 4L))
  bits <- nanoarrow::as_nanoarrow_array(pjrt_buffer(arrow_values$pred))
  expect_identical(nanoarrow::convert_array(bits), arrow_values$pred)
  # the bitmap is packed least significant bit first: 1,0,1,1,0,0,1,0 is 0x4d
  expect_identical(as.raw(bits$buffers[[2]])[1], as.raw(0x4d))
})

test_that("n-d buffers become nested fixed-size lists (columns innermost) and come back", {
  skip_if_not_installed("nanoarrow")
  m <- matrix(as.double(1:6), 2)
  a <- nanoarrow::as_nanoarrow_array(pjrt_buffer(m, dtype = "f64"))
  expect_identical(a$length, 3L)
  expect_identical(nanoarrow::nanoarrow_schema_parse(nanoarrow::infer_nanoarrow_schema(a))$fixed_size, 2L)
  expect_identical(nanoarrow::convert_array(a$children[[1]]), as.double(1:6))
  expect_identical(as_array(pjrt_buffer(a)), m)
  cube <- array(1:24, c(2, 3, 4))
  for (dtype in c("i32", "ui8", "f32", "pred")) {
    values <- if (dtype == "pred") cube %% 3 == 0 else cube
    b <- pjrt_buffer(values, dtype = dtype)
    back <- pjrt_buffer(nanoarrow::as_nanoarrow_array(b))
    expect_identical(shape(back), c(2L, 3L, 4L), label = dtype)
    expect_identical(bytes_of(back), bytes_of(b), label = dtype)
  }
  scalar <- nanoarrow::as_nanoarrow_array(pjrt_scalar(7, dtype = "f64"))
  expect_identical(nanoarrow::convert_array(scalar), 7)
  empty <- pjrt_buffer(double(), shape = c(3, 0), dtype = "f64")
  back <- pjrt_buffer(nanoarrow::as_nanoarrow_array(empty))
  expect_identical(shape(back), c(3L, 0L))
})

test_that("row-major buffers (program results) are exported in R's order", {
  skip_if_not_installed("nanoarrow")
  b <- pjrt_buffer(matrix(as.double(1:6), 2), dtype = "f64")
  t <- run_program(add_program("tensor<2x3xf64>"), b, b)
  a <- nanoarrow::as_nanoarrow_array(t)
  expect_identical(nanoarrow::convert_array(a$children[[1]]), 2 * as.double(1:6))
})

# The address of a nanoarrow array's data buffer, printed as buffer_address() prints one.
data_address <- function(array) {
  nanoarrow::nanoarrow_pointer_addr_pretty(array$buffers[[2]]$data)
}

test_that("export and import share memory", {
  skip_if_not_installed("nanoarrow")
  for (dtype in c("f64", "i32", "f16", "ui64", "i8")) {
    b <- pjrt_buffer(c(1, 2, 3, 4), dtype = dtype)
    a <- nanoarrow::as_nanoarrow_array(b)
    expect_identical(data_address(a), buffer_address(b), label = dtype)
    expect_identical(buffer_address(pjrt_buffer(a)), buffer_address(b), label = dtype)
  }
  imported <- nanoarrow::as_nanoarrow_array(c(5, 6, 7))
  expect_identical(buffer_address(pjrt_buffer(imported)), data_address(imported))
  m <- nanoarrow::as_nanoarrow_array(pjrt_buffer(matrix(1:6, 2), dtype = "i32"))
  expect_identical(data_address(m$children[[1]]), buffer_address(pjrt_buffer(m)))
})

test_that("an exported array keeps the memory alive after the buffer is gone", {
  skip_if_not_installed("nanoarrow")
  a <- local(nanoarrow::as_nanoarrow_array(pjrt_buffer(as.double(1:100) / 4, dtype = "f64")))
  gc()
  gc()
  expect_identical(nanoarrow::convert_array(a), as.double(1:100) / 4)
  b <- local({
    array <- nanoarrow::as_nanoarrow_array(c(2.5, 3.5))
    pjrt_buffer(array)
  })
  gc()
  expect_identical(as_array(b), array(c(2.5, 3.5)))
})

test_that("imports honour offsets and refuse nulls, other types and mismatched arguments", {
  skip_if_not_installed("nanoarrow")
  sliced <- nanoarrow::nanoarrow_array_modify(nanoarrow::as_nanoarrow_array(c(1, 2, 3, 4)),
                                              list(offset = 1L, length = 2L))
  expect_identical(as_array(pjrt_buffer(sliced)), array(c(2, 3)))
  expect_snapshot(error = TRUE, {
    pjrt_buffer(nanoarrow::as_nanoarrow_array(c(1, NA)))
    pjrt_buffer(nanoarrow::as_nanoarrow_array(c("a", "b")))
    pjrt_buffer(nanoarrow::as_nanoarrow_array(c(1, 2)), dtype = "f32")
    pjrt_buffer(nanoarrow::as_nanoarrow_array(c(1, 2)), shape = c(1, 2))
  })
  # a null outside the covered part does not matter
  tail_null <- nanoarrow::nanoarrow_array_modify(nanoarrow::as_nanoarrow_array(c(1, 2, NA)),
                                                 list(length = 2L))
  expect_identical(as_array(pjrt_buffer(tail_null)), array(c(1, 2)))
  expect_identical(as_array(pjrt_buffer(nanoarrow::as_nanoarrow_array(c(1, 2)),
                                        dtype = "f64", shape = 2)), array(c(1, 2)))
})

test_that("dtypes without an Arrow type and schemas are refused", {
  skip_if_not_installed("nanoarrow")
  expect_snapshot(error = TRUE, {
    nanoarrow::as_nanoarrow_array(pjrt_buffer(c(1, 2), dtype = "bf16"))
    nanoarrow::as_nanoarrow_array(pjrt_buffer(complex(real = 1, imaginary = 2), dtype = "c64"))
    nanoarrow::as_nanoarrow_array(pjrt_buffer(c(1, 2)), schema = nanoarrow::na_double())
  })
  expect_error(pjrt:::with_core(pjrt:::ffi_buffer_from_arrow(1, "f64", 1L)), "valid nanoarrow array")
  expect_error(pjrt:::with_core(pjrt:::ffi_arrow_address(NULL)), "exported Arrow array")
})

test_that("arrow's R package reads the exported arrays", {
  skip_if_not_installed("nanoarrow")
  skip_if_not_installed("arrow")
  as_arrow_array <- getExportedValue("arrow", "as_arrow_array")
  a <- as_arrow_array(nanoarrow::as_nanoarrow_array(pjrt_buffer(c(1.5, 2.5), dtype = "f64")))
  expect_identical(as.vector(a), c(1.5, 2.5))
})

test_that("buffers with zero extents of any rank export as fixed-size lists of size 0", {
  skip_if_not_installed("nanoarrow")
  # The formats from the outermost level in: a list per dim but the last (R's order, the last
  # dim outermost), then the leaf type; the lengths multiply inwards.
  expected_layout <- function(dims, leaf) {
    k <- length(dims)
    sizes <- rev(dims[-k])
    list(formats = c(if (k > 1) paste0("+w:", sizes), leaf),
         lengths = cumprod(c(dims[[k]], sizes)))
  }
  layout_of <- function(a) {
    formats <- character()
    lengths <- numeric()
    schema <- nanoarrow::infer_nanoarrow_schema(a)
    repeat {
      formats <- c(formats, schema$format)
      lengths <- c(lengths, a$length)
      if (length(a$children) == 0) break
      schema <- schema$children[[1]]
      a <- a$children[[1]]
    }
    list(formats = formats, lengths = lengths)
  }
  shapes <- list(0L, c(0L, 3L), c(3L, 0L), c(0L, 0L), c(2L, 0L, 4L), c(0L, 2L, 3L),
                 c(2L, 3L, 0L), c(1L, 0L, 2L, 5L))
  for (dims in shapes) {
    for (dtype in c("f64", "i32", "pred", "f16")) {
      b <- pjrt_empty(dtype, dims)
      a <- nanoarrow::as_nanoarrow_array(b)
      leaf <- c(f64 = "g", i32 = "i", pred = "b", f16 = "e")[[dtype]]
      label <- paste(dtype, paste(dims, collapse = "x"))
      expect_identical(layout_of(a), expected_layout(as.numeric(dims), leaf), label = label)
      back <- pjrt_buffer(a)
      expect_identical(shape(back), dims, label = label)
      expect_identical(as.character(elt_type(back)), dtype, label = label)
      expect_identical(length(as_raw(back, row_major = FALSE)), 0L, label = label)
    }
  }
  # A 0 x 3 matrix goes through Arrow and back with its shape (this was an error).
  b <- pjrt_buffer(matrix(0, 0, 3), dtype = "f64")
  expect_identical(as_array(pjrt_buffer(nanoarrow::as_nanoarrow_array(b))), matrix(0, 0, 3))
})

test_that("an Arrow array longer than 2^31 - 1 is refused, naming the limit, without a warning", {
  skip_if_not_installed("nanoarrow")
  # A forged struct: a length nanoarrow reports but no memory behind it (never read).
  small <- nanoarrow::as_nanoarrow_array(c(1, 2, 3))
  for (n in c(2^31, 2^31 + 5, 2^40)) {
    forged <- nanoarrow::nanoarrow_array_modify(small, list(length = n), validate = FALSE)
    expect_identical(forged$length, n)
    expect_no_warning(e <- tryCatch(pjrt_buffer(forged), error = identity))
    expect_identical(conditionMessage(e), paste0(
      "An Arrow array of length ", format(n, big.mark = ",", scientific = FALSE),
      " cannot become a buffer.\n",
      "i A buffer's extents are at most 2^31 - 1 (2,147,483,647), as R's dims are; slice the ",
      "array first."
    ))
  }
  forged <- nanoarrow::nanoarrow_array_modify(small, list(length = 2^31), validate = FALSE)
  expect_snapshot(error = TRUE, pjrt_buffer(forged))
})

test_that("a donated, restored or forged buffer is refused by the export", {
  skip_if_not_installed("nanoarrow")
  e <- pjrt_compile(pjrt_program(donation_src))
  donated <- pjrt_buffer(c(4, 5, 6), dtype = "f64")
  pjrt_execute(e, donated, pjrt_buffer(c(1, 2, 3), dtype = "f64"))
  restored <- unserialize(serialize(pjrt_buffer(c(1, 2)), NULL))
  forged <- HArray$new_from_values(array(c(1, 2)), HDataType$Float64)
  class(forged) <- "PJRTBuffer"
  expect_snapshot(error = TRUE, nanoarrow::as_nanoarrow_array(donated))
  expect_snapshot(error = TRUE, nanoarrow::as_nanoarrow_array(restored))
  expect_snapshot(error = TRUE, nanoarrow::as_nanoarrow_array(forged))
})
