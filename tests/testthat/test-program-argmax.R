# argmax and argmin as JAX lowers them (a reduce of the values with an iota), against R: the
# first NaN of a row if it has one, else the first position of its maximum (minimum).

argmax_program <- function(rows, cols, direction = "GT", dtype = "f32") {
  v <- sprintf("tensor<%s>", dtype)
  m <- sprintf("tensor<%dx%dx%s>", rows, cols, dtype)
  init <- if (direction == "GT") "0xFF800000" else "0x7F800000"
  if (dtype == "f64") init <- if (direction == "GT") "0xFFF0000000000000" else "0x7FF0000000000000"
  pjrt_program(paste0(
    "func.func @main(%x: ", m, ") -> tensor<", rows, "xi32> {\n",
    "  %iota = stablehlo.iota dim = 1 : tensor<", rows, "x", cols, "xi32>\n",
    "  %init = stablehlo.constant dense<", init, "> : ", v, "\n",
    "  %zero = stablehlo.constant dense<0> : tensor<i32>\n",
    "  %r:2 = \"stablehlo.reduce\"(%x, %iota, %init, %zero) ({\n",
    "  ^bb0(%a: ", v, ", %b: tensor<i32>, %c: ", v, ", %d: tensor<i32>):\n",
    "    %p = stablehlo.compare ", direction, ", %a, %c, FLOAT : (", v, ", ", v, ") -> tensor<i1>\n",
    "    %n = stablehlo.compare NE, %a, %a, FLOAT : (", v, ", ", v, ") -> tensor<i1>\n",
    "    %f = stablehlo.or %p, %n : tensor<i1>\n",
    "    %e = stablehlo.compare EQ, %a, %c, FLOAT : (", v, ", ", v, ") -> tensor<i1>\n",
    "    %l = stablehlo.compare LT, %b, %d, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n",
    "    %t = stablehlo.and %e, %l : tensor<i1>\n",
    "    %k = stablehlo.or %f, %t : tensor<i1>\n",
    "    %rv = stablehlo.select %f, %a, %c : tensor<i1>, ", v, "\n",
    "    %ri = stablehlo.select %k, %b, %d : tensor<i1>, tensor<i32>\n",
    "    stablehlo.return %rv, %ri : ", v, ", tensor<i32>\n",
    "  }) {dimensions = array<i64: 1>} : (", m, ", tensor<", rows, "x", cols, "xi32>, ", v,
    ", tensor<i32>) -> (tensor<", rows, "x", dtype, ">, tensor<", rows, "xi32>)\n",
    "  return %r#1 : tensor<", rows, "xi32>\n}\n"))
}

# R's answer, 0-based.
r_argpick <- function(x, pick = which.max) {
  apply(x, 1, function(row) if (anyNA(row)) which(is.na(row))[1] - 1L else pick(row) - 1L)
}

test_that("argmax and argmin of an R matrix agree with R, NaNs and ties included", {
  set.seed(3)
  x <- matrix(sample(c(-2, 0, 1, 5), 300 * 70, replace = TRUE), 300)
  x[sample(length(x), 40)] <- NaN
  for (dtype in c("f32", "f64")) {
    b <- pjrt_buffer(x, dtype = dtype)
    max_exe <- pjrt_compile(argmax_program(300, 70, "GT", dtype))
    min_exe <- pjrt_compile(argmax_program(300, 70, "LT", dtype))
    expect_identical(as_array(pjrt_execute(max_exe, b)), array(r_argpick(x), 300))
    expect_identical(as_array(pjrt_execute(min_exe, b)), array(r_argpick(x, which.min), 300))
  }
})

test_that("a row of -Inf, the init value, has its argmax at 0", {
  x <- rbind(rep(-Inf, 4), c(1, 3, 3, 2))
  out <- pjrt_execute(pjrt_compile(argmax_program(2, 4)), pjrt_buffer(x, dtype = "f32"))
  expect_identical(as_array(out), array(c(0L, 1L), 2))
})

test_that("an iota returned by a program reads back as counts along its dimension", {
  exe <- pjrt_compile(pjrt_program(paste0(
    "func.func @main() -> tensor<3x4xi32> {\n",
    "  %0 = stablehlo.iota dim = 1 : tensor<3x4xi32>\n",
    "  return %0 : tensor<3x4xi32>\n}\n")))
  out <- pjrt_execute(exe)
  expect_identical(as_array(out), matrix(rep(0:3, each = 3), 3))
  expect_identical(as_raw(out, row_major = TRUE), writeBin(rep(0:3, 3), raw(), size = 4))
})
