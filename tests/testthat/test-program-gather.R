# Gathers of rows as JAX lowers table[idx]: the rows R's own indexing gives, whatever the
# table's layout (an R matrix, or a program's row-major result), clamped as the spec clamps.

row_gather_program <- function(rows, width, count, dtype = "f32", index_type = "i32") {
  table <- sprintf("tensor<%dx%dx%s>", rows, width, dtype)
  result <- sprintf("tensor<%dx%dx%s>", count, width, dtype)
  idx <- sprintf("tensor<%dx%s>", count, index_type)
  idx2 <- sprintf("tensor<%dx1x%s>", count, index_type)
  pjrt_program(paste0(
    "func.func @main(%t: ", table, ", %i: ", idx, ") -> (", result, ", ", result, ") {\n",
    "  %i2 = stablehlo.reshape %i : (", idx, ") -> ", idx2, "\n",
    # The same lookup from a row-major copy of the table (a transpose of its transpose).
    "  %tt = stablehlo.transpose %t, dims = [1, 0] : (", table, ") -> ",
    sprintf("tensor<%dx%dx%s>", width, rows, dtype), "\n",
    "  %r = stablehlo.transpose %tt, dims = [1, 0] : (",
    sprintf("tensor<%dx%dx%s>", width, rows, dtype), ") -> ", table, "\n",
    "  %rr = stablehlo.add %r, %r : ", table, "\n",
    "  %a = \"stablehlo.gather\"(%t, %i2) {dimension_numbers = #stablehlo.gather<",
    "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], ",
    "index_vector_dim = 1>, slice_sizes = array<i64: 1, ", width, ">} : (", table, ", ", idx2,
    ") -> ", result, "\n",
    "  %b = \"stablehlo.gather\"(%rr, %i2) {dimension_numbers = #stablehlo.gather<",
    "offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], ",
    "index_vector_dim = 1>, slice_sizes = array<i64: 1, ", width, ">} : (", table, ", ", idx2,
    ") -> ", result, "\n",
    "  return %a, %b : ", result, ", ", result, "\n}\n"))
}

test_that("a row gather of an R matrix gives the rows R's indexing gives", {
  set.seed(7)
  table <- matrix(as.numeric(sample.int(1e6, 3000 * 200)), 3000)  # exact in f32
  idx <- sample.int(3000, 5000, replace = TRUE) - 1L
  idx[1:3] <- c(-4L, 3000L, 2999L)  # clamped to the first, last and last row
  exe <- pjrt_compile(row_gather_program(3000, 200, 5000))
  out <- pjrt_execute(exe, pjrt_buffer(table, dtype = "f32"), pjrt_buffer(idx, dtype = "i32"))
  expected <- table[pmin(pmax(idx, 0L), 2999L) + 1L, ]
  expect_identical(as_array(out[[1]]), expected)
  expect_identical(as_array(out[[2]]), 2 * expected)  # from the row-major table
})

test_that("row gathers of one-byte and sixteen-byte elements keep every bit", {
  table <- matrix(-50:49, 20)
  idx <- c(19L, 0L, 7L)
  exe <- pjrt_compile(row_gather_program(20, 5, 3, dtype = "i8", index_type = "i64"))
  out <- pjrt_execute(exe, pjrt_buffer(table, dtype = "i8"), pjrt_buffer(idx, dtype = "i64"))
  expect_identical(as_array(out[[1]]), table[idx + 1L, ])
  z <- matrix(complex(real = 1:12, imaginary = -(1:12)), 4)
  exe <- pjrt_compile(row_gather_program(4, 3, 2, dtype = "complex<f64>"))
  out <- pjrt_execute(exe, pjrt_buffer(z, dtype = "c128"), pjrt_buffer(c(3L, 1L), dtype = "i32"))
  expect_identical(as_array(out[[1]]), z[c(4, 2), ])
  expect_identical(as_array(out[[2]]), 2 * z[c(4, 2), ])
})
