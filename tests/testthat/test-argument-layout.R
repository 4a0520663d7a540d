# Buffers a program reads by rows (an embedding table, a softmax input) made from R matrices,
# which are column-major: the second run that reads one by rows stores it again dense
# row-major, in place of its column-major storage. Values never depend on it.

stored_row_major <- function(b) pjrt:::ffi_buffer_stored_row_major(b)

lookup_src <- function(rows, width, count) {
  table <- sprintf("tensor<%dx%dxf32>", rows, width)
  out <- sprintf("tensor<%dx%dxf32>", count, width)
  idx <- sprintf("tensor<%dx1xi32>", count)
  paste(c(
    sprintf("func.func @main(%%table: %s, %%idx: %s) -> %s {", table, idx, out),
    paste0("  %y = \"stablehlo.gather\"(%table, %idx) {dimension_numbers = #stablehlo.gather<",
           "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], ",
           "index_vector_dim = 1>, slice_sizes = array<i64: 1, ", width, ">, ",
           "indices_are_sorted = false} : (", table, ", ", idx, ") -> ", out),
    sprintf("  return %%y : %s", out), "}"), collapse = "\n")
}

test_that("an embedding table from an R matrix is stored row-major from its second lookup", {
  set.seed(1)
  table <- matrix(round(rnorm(50 * 6), 3), 50, 6)
  idx <- c(0L, 49L, 7L, 7L, 12L)
  exe <- pjrt_compile(pjrt_program(lookup_src(50, 6, 5)))
  tb <- pjrt_buffer(table, dtype = "f32")
  ib <- pjrt_buffer(matrix(idx, 5, 1))
  bytes <- as_raw(tb, row_major = FALSE)
  expected <- table[idx + 1, ]
  expect_false(stored_row_major(tb))
  expect_equal(as_array(pjrt_execute(exe, tb, ib)), expected, tolerance = 1e-6)
  expect_false(stored_row_major(tb))  # read once: left as it is
  second <- as_array(pjrt_execute(exe, tb, ib))
  expect_true(stored_row_major(tb))
  third <- as_array(pjrt_execute(exe, tb, ib))
  expect_identical(second, third)
  expect_equal(second, expected, tolerance = 1e-6)
  # The buffer reads as before: the same R array and the same bytes in R's order.
  expect_equal(as_array(tb), table, tolerance = 1e-6)
  expect_identical(as_raw(tb, row_major = FALSE), bytes)
})

test_that("re-laying a buffer out does not grow its memory, and keeps views made before", {
  skip_under_valgrind()
  live <- function() pjrt:::ffi_buffer_memory_bytes()
  table <- matrix(seq_len(512 * 512) / 1024, 512, 512)  # 1 MiB of f32
  exe <- pjrt_compile(pjrt_program(lookup_src(512, 512, 4)))
  ib <- pjrt_buffer(matrix(c(3L, 1L, 4L, 1L), 4, 1))
  invisible(gc())
  base <- live()
  tb <- pjrt_buffer(table, dtype = "f32")
  for (i in 1:3) got <- pjrt_execute(exe, tb, ib)
  expect_true(stored_row_major(tb))
  expect_identical(as_array(got), table[c(4, 2, 5, 2), ])
  rm(got)
  invisible(gc())
  expect_identical(live() - base, 2^20)  # the buffer alone: its column-major storage is freed
  rm(tb)
  invisible(gc())
  expect_identical(live(), base)
  # A view taken before the re-layout keeps reading its own storage.
  small <- matrix(as.numeric(1:12), 3, 4)
  exe <- pjrt_compile(pjrt_program(lookup_src(3, 4, 2)))
  sb <- pjrt_buffer(small, dtype = "f32")
  view <- HArray$new_from_buffer(sb)$slice(list(c(0L, 4L, 3L), c(1L, 3L, 1L)))
  for (i in 1:2) pjrt_execute(exe, sb, pjrt_buffer(matrix(c(2L, 0L), 2, 1)))
  expect_true(stored_row_major(sb))
  expect_identical(view$collect(), small[2:3, c(1, 4)])
  expect_identical(as_array(sb), small)
})

test_that("a donated argument is never re-laid out", {
  donating <- pjrt_compile(pjrt_program(paste(
    "func.func @main(%x: tensor<64x64xf32> {tf.aliasing_output = 0 : i32}) -> tensor<64x64xf32> {",
    "  %z = stablehlo.constant dense<0.0> : tensor<f32>",
    "  %m = stablehlo.reduce(%x init: %z) applies stablehlo.add across dimensions = [1] : (tensor<64x64xf32>, tensor<f32>) -> tensor<64xf32>",
    "  %b = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<64xf32>) -> tensor<64x64xf32>",
    "  %y = stablehlo.subtract %x, %b : tensor<64x64xf32>",
    "  return %y : tensor<64x64xf32>", "}", sep = "\n")))
  m <- matrix(seq_len(64 * 64) / 64, 64, 64)
  x <- pjrt_buffer(m, dtype = "f32")
  keep <- pjrt_execution_options(non_donatable_input_indices = 0L)
  for (i in 1:3) {
    y <- pjrt_execute(donating, x, execution_options = keep)
    expect_equal(as_array(y), m - rowSums(m), tolerance = 1e-6)
  }
  expect_false(stored_row_major(x))
  y <- pjrt_execute(donating, x)
  expect_equal(as_array(y), m - rowSums(m), tolerance = 1e-6)
  expect_error(as_array(x), "donated")
})

test_that("a batched product of R arrays gives the same values from the copies", {
  set.seed(2)
  a <- array(round(rnorm(4 * 3 * 5), 2), c(4, 3, 5))
  b <- array(round(rnorm(4 * 5 * 2), 2), c(4, 5, 2))
  exe <- pjrt_compile(pjrt_program(paste(
    "func.func @main(%a: tensor<4x3x5xf64>, %b: tensor<4x5x2xf64>) -> tensor<4x3x2xf64> {",
    paste("  %y = stablehlo.dot_general %a, %b, batching_dims = [0] x [0],",
          "contracting_dims = [2] x [1] : (tensor<4x3x5xf64>, tensor<4x5x2xf64>) -> tensor<4x3x2xf64>"),
    "  return %y : tensor<4x3x2xf64>", "}", sep = "\n")))
  ab <- pjrt_buffer(a, dtype = "f64")
  bb <- pjrt_buffer(b, dtype = "f64")
  expected <- array(0, c(4, 3, 2))
  for (k in 1:4) expected[k, , ] <- a[k, , ] %*% b[k, , ]
  runs <- lapply(1:3, function(i) as_array(pjrt_execute(exe, ab, bb)))
  expect_true(stored_row_major(ab))
  expect_true(stored_row_major(bb))
  expect_equal(runs[[1]], expected, tolerance = 1e-13)
  expect_identical(runs[[2]], runs[[1]])
  expect_identical(runs[[3]], runs[[1]])
})

test_that("a fused result of R matrices comes back column-major, read like any other buffer", {
  fma_src <- paste(
    "func.func @main(%x: tensor<3x4xf64>, %y: tensor<3x4xf64>) -> tensor<3x4xf64> {",
    "  %m = stablehlo.multiply %x, %y : tensor<3x4xf64>",
    "  %s = stablehlo.add %m, %x : tensor<3x4xf64>",
    "  return %s : tensor<3x4xf64>",
    "}", sep = "\n")
  exe <- pjrt_compile(pjrt_program(fma_src))
  x <- matrix(c(1.5, -2, 3, 0.25, 7, -1, 2, 9, -4, 6, 0.5, 10), 3, 4)
  y <- matrix(c(2, 0.5, -1, 4, 3, 8, -0.5, 1, 2, -3, 6, 0.75), 3, 4)
  result <- pjrt_execute(exe, pjrt_buffer(x, dtype = "f64"), pjrt_buffer(y, dtype = "f64"))
  expect_false(stored_row_major(result))
  # R's own x * y + x: the same two IEEE operations per element.
  expect_identical(as_array(result), x * y + x)
  # From row-major operands the same values come back row-major.
  transpose <- pjrt_compile(pjrt_program(paste(
    "func.func @main(%a: tensor<4x3xf64>) -> tensor<3x4xf64> {",
    "  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<4x3xf64>) -> tensor<3x4xf64>",
    "  return %t : tensor<3x4xf64>",
    "}", sep = "\n")))
  row_major_copy <- function(m) pjrt_execute(transpose, pjrt_buffer(t(m), dtype = "f64"))
  rows_x <- row_major_copy(x)
  expect_true(stored_row_major(rows_x))
  from_rows <- pjrt_execute(exe, rows_x, row_major_copy(y))
  expect_true(stored_row_major(from_rows))
  expect_identical(as_array(from_rows), x * y + x)
  # Printing, raw bytes in either order, HArray views and safetensors read through the layout.
  expect_identical(capture.output(print(result)), capture.output(print(from_rows)))
  expect_identical(as_raw(result, row_major = TRUE), as_raw(from_rows, row_major = TRUE))
  expect_identical(as_raw(result, row_major = FALSE), as_raw(from_rows, row_major = FALSE))
  expect_true(HArray$new_from_buffer(result)$eq(HArray$new_from_buffer(from_rows)))
  path <- withr::local_tempfile(fileext = ".safetensors")
  pjrt_save_safetensors(list(r = result), path)
  expect_identical(as_array(pjrt_load_safetensors(path)$r), x * y + x)
})
