# stablehlo.fft against R's fft(), fft(inverse = TRUE) and mvfft(). An R array with dims
# c(a, b, c) is the program's tensor<axbxc>, so the op's trailing axes are R's last dims.

fft_src <- function(kind, lengths, in_type, out_type) {
  paste(c(sprintf("func.func @main(%%x: %s) -> %s {", in_type, out_type),
          sprintf("  %%r = stablehlo.fft %%x, type =  %s, length = [%s] : (%s) -> %s", kind,
                  paste(lengths, collapse = ", "), in_type, out_type),
          sprintf("  return %%r : %s", out_type), "}"), collapse = "\n")
}

tensor_type <- function(dims, element) {
  sprintf("tensor<%sx%s>", paste(dims, collapse = "x"), element)
}

dims_of <- function(x) if (is.null(dim(x))) length(x) else dim(x)

# Runs one fft op on `x` (an R vector or array) held as `dtype`.
run_fft <- function(kind, x, lengths, dtype = "c128", out_dims = dims_of(x)) {
  in_dims <- dims_of(x)
  element <- c(c128 = "complex<f64>", c64 = "complex<f32>", f64 = "f64", f32 = "f32")
  out_dtype <- switch(kind, RFFT = c(f64 = "c128", f32 = "c64")[[dtype]],
                      IRFFT = c(c128 = "f64", c64 = "f32")[[dtype]], dtype)
  src <- fft_src(kind, lengths, tensor_type(in_dims, element[[dtype]]),
                 tensor_type(out_dims, element[[out_dtype]]))
  as_array(run_program(src, pjrt_buffer(x, dtype = dtype)))
}

random_complex <- function(...) {
  n <- prod(c(...))
  array(complex(real = rnorm(n), imaginary = rnorm(n)), c(...))
}

# FFT over the last axis of a matrix: mvfft() transforms columns, so transpose around it.
row_fft <- function(m, inverse = FALSE) t(mvfft(t(m), inverse = inverse))

test_that("FFT and IFFT of one vector match fft()", {
  set.seed(1)
  x <- as.vector(random_complex(12))
  expect_equal(as.vector(run_fft("FFT", x, 12)), fft(x), tolerance = 1e-13)
  expect_equal(as.vector(run_fft("IFFT", x, 12)), fft(x, inverse = TRUE) / 12, tolerance = 1e-13)
  f32 <- as.vector(run_fft("FFT", x, 12, dtype = "c64"))
  expect_equal(f32, fft(x), tolerance = 1e-6)
})

test_that("batched FFT over the last axis matches mvfft(), for prime and composite lengths", {
  set.seed(2)
  for (n in c(13, 16, 97, 1009, 4099)) {
    m <- random_complex(5, n)
    expect_equal(run_fft("FFT", m, n), row_fft(m), tolerance = 1e-12, info = n)
    expect_equal(run_fft("IFFT", m, n), row_fft(m, inverse = TRUE) / n, tolerance = 1e-12,
                 info = n)
  }
  m <- random_complex(3, 2, 257)
  got <- run_fft("FFT", m, 257)
  for (i in 1:3) expect_equal(got[i, , ], row_fft(m[i, , ]), tolerance = 1e-12)
})

test_that("2-D and 3-D FFTs match fft() of the whole array, batched too", {
  set.seed(3)
  m <- random_complex(6, 7)
  expect_equal(run_fft("FFT", m, c(6, 7)), fft(m), tolerance = 1e-13)
  expect_equal(run_fft("IFFT", m, c(6, 7)), fft(m, inverse = TRUE) / 42, tolerance = 1e-13)
  a <- random_complex(3, 4, 5)
  expect_equal(run_fft("FFT", a, c(3, 4, 5)), fft(a), tolerance = 1e-13)
  expect_equal(run_fft("IFFT", a, c(3, 4, 5)), fft(a, inverse = TRUE) / 60, tolerance = 1e-13)
  # A batch of two 4 x 5 transforms.
  got <- run_fft("FFT", a, c(4, 5))
  for (i in 1:3) expect_equal(got[i, , ], fft(a[i, , ]), tolerance = 1e-13)
  f32 <- run_fft("FFT", a, c(3, 4, 5), dtype = "c64")
  expect_equal(f32, fft(a), tolerance = 1e-5)
})

test_that("RFFT keeps the first n %/% 2 + 1 values of the transform", {
  set.seed(4)
  x <- matrix(rnorm(4 * 9), 4)
  expect_equal(run_fft("RFFT", x, 9, dtype = "f64", out_dims = c(4, 5)),
               row_fft(x)[, 1:5], tolerance = 1e-13)
  y <- matrix(rnorm(6 * 8), 6)
  expect_equal(run_fft("RFFT", y, c(6, 8), dtype = "f64", out_dims = c(6, 5)),
               fft(y)[, 1:5], tolerance = 1e-13)
  expect_equal(run_fft("RFFT", y, c(6, 8), dtype = "f32", out_dims = c(6, 5)),
               fft(y)[, 1:5], tolerance = 1e-5)
})

test_that("IRFFT inverts RFFT and is the real inverse of the Hermitian spectrum", {
  set.seed(5)
  for (n in c(8, 9, 1009)) {
    x <- matrix(rnorm(3 * n), 3)
    half <- row_fft(x)[, seq_len(n %/% 2 + 1), drop = FALSE]
    back <- run_fft("IRFFT", half, n, dtype = "c128", out_dims = c(3, n))
    expect_equal(back, x, tolerance = 1e-12, info = n)
  }
  a <- array(rnorm(2 * 6 * 10), c(2, 6, 10))
  half <- array(0i, c(2, 6, 6))
  for (i in 1:2) half[i, , ] <- fft(a[i, , ])[, 1:6]
  expect_equal(run_fft("IRFFT", half, c(6, 10), dtype = "c128", out_dims = c(2, 6, 10)), a,
               tolerance = 1e-13)
  expect_equal(run_fft("IRFFT", half, c(6, 10), dtype = "c64", out_dims = c(2, 6, 10)), a,
               tolerance = 1e-5)
})

test_that("single-precision lines of odd lengths, at any alignment, match mvfft()", {
  # Rows of an odd number of complex<f32> (8 bytes) or f32 values start at every alignment, so
  # both the transform in place and the one through a copy are exercised.
  set.seed(7)
  for (n in c(13, 97, 4099)) {
    m <- random_complex(7, n)
    expect_equal(run_fft("FFT", m, n, dtype = "c64"), row_fft(m), tolerance = 1e-5, info = n)
    expect_equal(run_fft("IFFT", m, n, dtype = "c64"), row_fft(m, inverse = TRUE) / n,
                 tolerance = 1e-5, info = n)
    x <- matrix(rnorm(7 * n), 7)
    half <- n %/% 2 + 1
    expect_equal(run_fft("RFFT", x, n, dtype = "f32", out_dims = c(7, half)),
                 row_fft(x)[, seq_len(half)], tolerance = 1e-5, info = n)
    spectrum <- row_fft(x)[, seq_len(half)]
    expect_equal(run_fft("IRFFT", spectrum, n, dtype = "c64", out_dims = c(7, n)), x,
                 tolerance = 1e-5, info = n)
  }
})

test_that("a batch of transforms gives the same bits on one thread and on all", {
  set.seed(8)
  m <- random_complex(96, 1024)
  old <- pjrt_threads(1)
  on.exit(pjrt_threads(old))
  one <- run_fft("FFT", m, 1024, dtype = "c64")
  pjrt_threads(parallel::detectCores())
  expect_identical(run_fft("FFT", m, 1024, dtype = "c64"), one)
  expect_equal(one, row_fft(m), tolerance = 1e-5)
})

test_that("fft type errors name the op, the problem and the types", {
  expect_snapshot(error = TRUE, pjrt_compile(pjrt_program(fft_src(
    "FFT", 4, "tensor<4xcomplex<f32>>", "tensor<4xcomplex<f64>>"))))
  expect_snapshot(error = TRUE, pjrt_compile(pjrt_program(fft_src(
    "FFT", 8, "tensor<4xcomplex<f32>>", "tensor<4xcomplex<f32>>"))))
  expect_snapshot(error = TRUE, pjrt_compile(pjrt_program(fft_src(
    "RFFT", 4, "tensor<4xcomplex<f32>>", "tensor<3xcomplex<f32>>"))))
  expect_snapshot(error = TRUE, pjrt_compile(pjrt_program(fft_src(
    "IRFFT", c(2, 6), "tensor<2x3xcomplex<f64>>", "tensor<2x6xf64>"))))
})

test_that("a JAX-style export of jnp.fft.fft2 on real input and jnp.fft.irfft runs", {
  src <- r"(
module @jit_f attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x6xf32>, %arg1: tensor<3x5xcomplex<f32>>) -> (tensor<4x6xcomplex<f32>> {jax.result_info = "[0]"}, tensor<3x8xf32> {jax.result_info = "[1]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<4x6xf32>) -> tensor<4x6xcomplex<f32>>
    %1 = stablehlo.fft %0, type =  FFT, length = [4, 6] : (tensor<4x6xcomplex<f32>>) -> tensor<4x6xcomplex<f32>>
    %2 = stablehlo.fft %arg1, type =  IRFFT, length = [8] : (tensor<3x5xcomplex<f32>>) -> tensor<3x8xf32>
    return %1, %2 : tensor<4x6xcomplex<f32>>, tensor<3x8xf32>
  }
}
)"
  set.seed(6)
  x <- matrix(rnorm(24), 4)
  y <- matrix(rnorm(24), 3)
  half <- row_fft(y + 0i)[, 1:5]
  out <- run_program(src, pjrt_buffer(x, dtype = "f32"), pjrt_buffer(half, dtype = "c64"))
  expect_equal(as_array(out[[1]]), fft(x), tolerance = 1e-5)
  expect_equal(as_array(out[[2]]), y, tolerance = 1e-5)
})
