# Batched products of R arrays (the batch dim is R's fastest): each batch the product R gives.

test_that("einsum bij,bjk->bik of R arrays gives R's products per batch", {
  set.seed(5)
  a <- array(sample(-4:4, 6 * 5 * 3, replace = TRUE), c(6, 5, 3))  # small integers: exact
  b <- array(sample(-4:4, 6 * 3 * 7, replace = TRUE), c(6, 3, 7))
  for (dtype in c("f32", "f64")) {
    exe <- pjrt_compile(pjrt_program(sprintf(paste0(
      "func.func @main(%%a: tensor<6x5x3x%1$s>, %%b: tensor<6x3x7x%1$s>) -> tensor<6x5x7x%1$s> {\n",
      "  %%y = stablehlo.dot_general %%a, %%b, batching_dims = [0] x [0], ",
      "contracting_dims = [2] x [1] : (tensor<6x5x3x%1$s>, tensor<6x3x7x%1$s>) -> ",
      "tensor<6x5x7x%1$s>\n  return %%y : tensor<6x5x7x%1$s>\n}\n"), dtype)))
    out <- as_array(pjrt_execute(exe, pjrt_buffer(a, dtype = dtype), pjrt_buffer(b, dtype = dtype)))
    expected <- array(0, c(6, 5, 7))
    for (k in 1:6) expected[k, , ] <- a[k, , ] %*% b[k, , ]
    expect_identical(out, expected)
  }
})

test_that("bf16 products of R matrices are R's products rounded once", {
  set.seed(6)
  a <- matrix(sample(-2:2, 40 * 30, replace = TRUE), 40)  # sums of at most 120: exact in bf16
  b <- matrix(sample(-2:2, 30 * 20, replace = TRUE), 30)
  exe <- pjrt_compile(pjrt_program(paste0(
    "func.func @main(%a: tensor<40x30xbf16>, %b: tensor<30x20xbf16>) -> tensor<40x20xbf16> {\n",
    "  %y = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : ",
    "(tensor<40x30xbf16>, tensor<30x20xbf16>) -> tensor<40x20xbf16>\n",
    "  return %y : tensor<40x20xbf16>\n}\n")))
  out <- pjrt_execute(exe, pjrt_buffer(a, dtype = "bf16"), pjrt_buffer(b, dtype = "bf16"))
  expect_identical(as_array(out), a %*% b + 0)
  # 1 + 2^-8 + 2^-8 summed in bf16 would stay 1 (each 1 + 2^-8 ties to even); accumulated in
  # f32 and rounded once it is 1 + 2^-7, which bf16 holds.
  x <- matrix(c(1, 2^-8, 2^-8), 1)
  sum_exe <- pjrt_compile(pjrt_program(paste0(
    "func.func @main(%a: tensor<1x3xbf16>, %b: tensor<3x1xbf16>) -> tensor<1x1xbf16> {\n",
    "  %y = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : ",
    "(tensor<1x3xbf16>, tensor<3x1xbf16>) -> tensor<1x1xbf16>\n",
    "  return %y : tensor<1x1xbf16>\n}\n")))
  got <- pjrt_execute(sum_exe, pjrt_buffer(x, dtype = "bf16"), pjrt_buffer(matrix(1, 3), dtype = "bf16"))
  expect_identical(as_array(got), matrix(1 + 2^-7))
})
