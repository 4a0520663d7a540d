# inspect_plan(): what a program compiled to, fused steps with their ops.

softmax_text <- "func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %ninf = stablehlo.constant dense<0xFF800000> : tensor<f32>
  %m = stablehlo.reduce(%x init: %ninf) applies stablehlo.maximum across dimensions = [1] : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
  %mb = stablehlo.broadcast_in_dim %m, dims = [0] : (tensor<4xf32>) -> tensor<4x3xf32>
  %d = stablehlo.subtract %x, %mb : tensor<4x3xf32>
  %e = stablehlo.exponential %d : tensor<4x3xf32>
  %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1] : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
  %b = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<4xf32>) -> tensor<4x3xf32>
  %p = stablehlo.divide %e, %b : tensor<4x3xf32>
  return %p : tensor<4x3xf32>
}"

test_that("inspect_plan() shows softmax as one row-fused step and computes it", {
  executable <- pjrt_compile(pjrt_program(softmax_text))
  plan <- inspect_plan(executable)
  expect_s3_class(plan, "PJRTPlan")
  expect_snapshot(print(plan))
  expect_match(plan, "row fusion of 7 ops", fixed = TRUE)
  x <- matrix(c(1, -2, 0.5, 3, 2, 0, -1, 4, 0.25, 1, 1, 1), 4)
  expected <- exp(x - apply(x, 1, max))
  expected <- expected / rowSums(expected)
  expect_equal(as_array(pjrt_execute(executable, pjrt_buffer(x, dtype = "f32"))), expected,
               tolerance = 1e-6)
})

test_that("inspect_plan() lists element-wise fusion and single ops", {
  executable <- pjrt_compile(pjrt_program("func.func @main(%x: tensor<5xf32>) -> tensor<5xf32> {
  %a = stablehlo.multiply %x, %x : tensor<5xf32>
  %b = stablehlo.add %a, %x : tensor<5xf32>
  %c = stablehlo.reverse %b, dims = [0] : tensor<5xf32>
  return %c : tensor<5xf32>
}"))
  expect_snapshot(print(inspect_plan(executable)))
  expect_snapshot(error = TRUE, inspect_plan("not an executable"))
})

test_that("inspect_plan() counts what canonicalisation rewrote, and results keep their values", {
  executable <- pjrt_compile(pjrt_program("func.func @main(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = stablehlo.convert %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  %t = stablehlo.transpose %a, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %u = stablehlo.transpose %t, dims = [1, 0] : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %n1 = stablehlo.negate %u : tensor<2x3xf32>
  %n2 = stablehlo.negate %x : tensor<2x3xf32>
  %unused = stablehlo.sine %x : tensor<2x3xf32>
  %p = stablehlo.multiply %n1, %n2 : tensor<2x3xf32>
  return %p : tensor<2x3xf32>
}"))
  expect_snapshot(print(inspect_plan(executable)))
  x <- matrix(c(1, -2, 0.5, 3, 2, 0), 2)
  expect_equal(as_array(pjrt_execute(executable, pjrt_buffer(x, dtype = "f32"))), x * x)
})

test_that("inspect_plan() lists the steps of a loop's condition and body under the loop", {
  executable <- pjrt_compile(pjrt_program("
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %n = stablehlo.constant dense<3> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %r:2 = stablehlo.while(%i = %zero, %a = %x) : tensor<i64>, tensor<4xf32>
    cond {
      %lt = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %lt : tensor<i1>
    } do {
      %i2 = stablehlo.add %i, %one : tensor<i64>
      %h = stablehlo.multiply %a, %a : tensor<4xf32>
      %s = stablehlo.add %h, %a : tensor<4xf32>
      stablehlo.return %i2, %s : tensor<i64>, tensor<4xf32>
    }
  return %r#1 : tensor<4xf32>
}"))
  expect_snapshot(print(inspect_plan(executable)))
  # Three trips of a <- a * a + a from 1, 2, 0.5, 0 (by hand: 1 -> 2 -> 6 -> 42; 0.5 -> 0.75 -> 1.3125 -> 3.03515625).
  x <- pjrt_buffer(c(1, 2, 0.5, 0), dtype = "f32")
  expect_identical(as.vector(as_array(pjrt_execute(executable, x))), c(42, 1806, 3.03515625, 0))
})

test_that("inspect_plan() shows a linear model's gradient as one matrix-vector pair", {
  # t(X) %*% (plogis(X %*% w) - y) / n for a 3000 x 70 R matrix: one pass over X.
  n <- 3000
  p <- 70
  matrix_type <- sprintf("tensor<%dx%dxf32>", n, p)
  rows_type <- sprintf("tensor<%dxf32>", n)
  cols_type <- sprintf("tensor<%dxf32>", p)
  text <- paste0(
    "func.func @main(%x: ", matrix_type, ", %y: ", rows_type, ", %w: ", cols_type, ") -> ",
    cols_type, " {\n",
    "  %z = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (", matrix_type, ", ",
    cols_type, ") -> ", rows_type, "\n",
    "  %p = stablehlo.logistic %z : ", rows_type, "\n",
    "  %d = stablehlo.subtract %p, %y : ", rows_type, "\n",
    "  %g = stablehlo.dot_general %d, %x, contracting_dims = [0] x [0] : (", rows_type, ", ",
    matrix_type, ") -> ", cols_type, "\n",
    "  %scale = stablehlo.constant dense<", 1 / n, "> : ", cols_type, "\n",
    "  %r = stablehlo.multiply %g, %scale : ", cols_type, "\n",
    "  return %r : ", cols_type, "\n}")
  executable <- pjrt_compile(pjrt_program(text))
  expect_snapshot(print(inspect_plan(executable)))
  set.seed(11)
  x <- matrix(rnorm(n * p), n)
  y <- as.numeric(runif(n) < 0.5)
  w <- rnorm(p) / 10
  as_f32 <- function(v) as_array(pjrt_buffer(v, dtype = "f32"))
  got <- as_array(pjrt_execute(executable, pjrt_buffer(x, dtype = "f32"),
                               pjrt_buffer(y, dtype = "f32"), pjrt_buffer(w, dtype = "f32")))
  xf <- as_f32(x)
  expected <- drop(crossprod(xf, plogis(xf %*% as_f32(w)) - y)) / n
  expect_equal(as.vector(got), expected, tolerance = 1e-5)
})
