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
