# stablehlo.convolution in the pretty form JAX prints, checked against a naive convolution
# written here in R: the input is padded and dilated into an explicit array, each window is cut
# out with `[` and multiplied with the kernel by %*%.

prog <- function(...) paste(c(...), collapse = "\n")
dims_text <- function(d) paste(d, collapse = "x")
ttype <- function(d, dtype = "f32") sprintf("tensor<%sx%s>", dims_text(d), dtype)

# A JAX-style program: one convolution of `x` (type `lt`) with `w` (type `rt`).
conv_src <- function(lt, rt, ot, dims = "[b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f]",
                     window = "stride = [1, 1], pad = [[0, 0], [0, 0]]", groups = c(1, 1)) {
  prog(
    sprintf("func.func public @main(%%arg0: %s, %%arg1: %s) -> (%s {jax.result_info = \"\"}) {",
            lt, rt, ot),
    sprintf(paste0("  %%0 = stablehlo.convolution(%%arg0, %%arg1) dim_numbers = %s, ",
                   "window = {%s} {batch_group_count = %d : i64, feature_group_count = %d : i64, ",
                   "precision_config = [#stablehlo<precision DEFAULT>, ",
                   "#stablehlo<precision DEFAULT>]} : (%s, %s) -> %s"),
            dims, window, groups[2], groups[1], lt, rt, ot),
    sprintf("  return %%0 : %s", ot), "}")
}

# x: N x H x W x C, w: KH x KW x I x O (I = C / groups); pad: 2 x 2 (rows: H, W; low, high),
# non-negative. Returns N x H' x W' x O.
naive_conv <- function(x, w, stride = c(1, 1), pad = matrix(0, 2, 2), lhs_dilate = c(1, 1),
                       rhs_dilate = c(1, 1), groups = 1) {
  d <- dim(x)
  k <- dim(w)
  dilated <- (d[2:3] - 1) * lhs_dilate + 1
  padded_size <- pad[, 1] + dilated + pad[, 2]
  padded <- array(0, c(d[1], padded_size, d[4]))
  padded[, pad[1, 1] + (seq_len(d[2]) - 1) * lhs_dilate[1] + 1,
         pad[2, 1] + (seq_len(d[3]) - 1) * lhs_dilate[2] + 1, ] <- x
  span <- (k[1:2] - 1) * rhs_dilate + 1
  out_size <- (padded_size - span) %/% stride + 1
  per_group <- k[4] / groups
  out <- array(0, c(d[1], out_size, k[4]))
  for (i in seq_len(out_size[1])) for (j in seq_len(out_size[2])) {
    rows <- (i - 1) * stride[1] + (seq_len(k[1]) - 1) * rhs_dilate[1] + 1
    cols <- (j - 1) * stride[2] + (seq_len(k[2]) - 1) * rhs_dilate[2] + 1
    for (g in seq_len(groups)) {
      features <- (g - 1) * k[3] + seq_len(k[3])
      outputs <- (g - 1) * per_group + seq_len(per_group)
      patch <- matrix(padded[, rows, cols, features, drop = FALSE], d[1])
      kernel <- matrix(w[, , , outputs, drop = FALSE], ncol = per_group)
      out[, i, j, outputs] <- patch %*% kernel
    }
  }
  out
}

run_conv <- function(src, x, w, dtype = "f32") {
  as_array(run_program(src, pjrt_buffer(x, dtype = dtype), pjrt_buffer(w, dtype = dtype)))
}

test_that("a LeNet-like layer (5x5 VALID, then 3x3 SAME with stride 2) matches the naive one", {
  set.seed(1)
  x <- array(rnorm(4 * 28 * 28), c(4, 28, 28, 1))
  w1 <- array(rnorm(25 * 6, sd = 0.2), c(5, 5, 1, 6))
  got1 <- run_conv(conv_src(ttype(c(4, 28, 28, 1)), ttype(c(5, 5, 1, 6)), ttype(c(4, 24, 24, 6))),
                   x, w1)
  expect_equal(got1, naive_conv(x, w1), tolerance = 1e-5)
  w2 <- array(rnorm(9 * 6 * 16, sd = 0.2), c(3, 3, 6, 16))
  src2 <- conv_src(ttype(c(4, 24, 24, 6)), ttype(c(3, 3, 6, 16)), ttype(c(4, 12, 12, 16)),
                   window = paste("stride = [2, 2], pad = [[0, 1], [0, 1]], lhs_dilate = [1, 1],",
                                  "rhs_dilate = [1, 1], reverse = [false, false]"))
  expect_equal(run_conv(src2, got1, w2),
               naive_conv(got1, w2, stride = c(2, 2), pad = matrix(c(0, 0, 1, 1), 2)),
               tolerance = 1e-5)
})

test_that("channels-first layouts, dilations and padding agree with the naive convolution", {
  set.seed(2)
  x <- array(rnorm(2 * 7 * 6 * 3), c(2, 7, 6, 3))
  w <- array(rnorm(3 * 2 * 3 * 4), c(3, 2, 3, 4))
  expected <- naive_conv(x, w, stride = c(2, 1), pad = matrix(c(1, 0, 2, 1), 2),
                         lhs_dilate = c(1, 2), rhs_dilate = c(2, 1))
  out_nchw <- aperm(expected, c(1, 4, 2, 3))
  src <- conv_src(ttype(c(2, 3, 7, 6), "f64"), ttype(c(4, 3, 3, 2), "f64"),
                  ttype(dim(out_nchw), "f64"),
                  dims = "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]",
                  window = paste("stride = [2, 1], pad = [[1, 2], [0, 1]], lhs_dilate = [1, 2],",
                                 "rhs_dilate = [2, 1]"))
  got <- run_conv(src, aperm(x, c(1, 4, 2, 3)), aperm(w, c(4, 3, 1, 2)), dtype = "f64")
  expect_equal(got, out_nchw, tolerance = 1e-12)
})

test_that("depthwise convolution (feature_group_count = channels) and negative padding", {
  set.seed(3)
  x <- array(rnorm(2 * 6 * 6 * 4), c(2, 6, 6, 4))
  w <- array(rnorm(9 * 4 * 2), c(3, 3, 1, 8))
  src <- conv_src(ttype(c(2, 6, 6, 4)), ttype(c(3, 3, 1, 8)), ttype(c(2, 6, 6, 8)),
                  window = "pad = [[1, 1], [1, 1]]", groups = c(4, 1))
  expect_equal(run_conv(src, x, w), naive_conv(x, w, pad = matrix(1, 2, 2), groups = 4),
               tolerance = 1e-5)
  # Negative low padding drops the first row and column: the same as convolving x[, -1, -1, ].
  neg <- conv_src(ttype(c(2, 6, 6, 4)), ttype(c(3, 3, 1, 8)), ttype(c(2, 3, 3, 8)),
                  window = "pad = [[-1, 0], [-1, 0]]", groups = c(4, 1))
  expect_equal(run_conv(neg, x, w), naive_conv(x[, -1, -1, , drop = FALSE], w, groups = 4),
               tolerance = 1e-5)
})

test_that("f32 channels-first layouts, kernel dilation and feature groups agree with the naive one", {
  set.seed(4)
  x <- array(rnorm(3 * 9 * 8 * 4), c(3, 9, 8, 4))
  w <- array(rnorm(3 * 2 * 2 * 6), c(3, 2, 2, 6))  # two groups of 2 input -> 3 output features
  expected <- naive_conv(x, w, stride = c(2, 1), pad = matrix(c(1, 0, 2, 1), 2),
                         rhs_dilate = c(2, 3), groups = 2)
  out_nchw <- aperm(expected, c(1, 4, 2, 3))
  src <- conv_src(ttype(c(3, 4, 9, 8)), ttype(c(6, 2, 3, 2)), ttype(dim(out_nchw)),
                  dims = "[b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1]",
                  window = "stride = [2, 1], pad = [[1, 2], [0, 1]], rhs_dilate = [2, 3]",
                  groups = c(2, 1))
  got <- run_conv(src, aperm(x, c(1, 4, 2, 3)), aperm(w, c(4, 3, 1, 2)))
  expect_equal(got, out_nchw, tolerance = 1e-5)
  # The same in NHWC, result in NCHW: the layouts of input and output differ.
  mixed <- conv_src(ttype(c(3, 9, 8, 4)), ttype(c(3, 2, 2, 6)), ttype(dim(out_nchw)),
                    dims = "[b, 0, 1, f]x[0, 1, i, o]->[b, f, 0, 1]",
                    window = "stride = [2, 1], pad = [[1, 2], [0, 1]], rhs_dilate = [2, 3]",
                    groups = c(2, 1))
  expect_equal(run_conv(mixed, x, w), out_nchw, tolerance = 1e-5)
})

test_that("one executable gives the naive result for operands of changing layouts and values", {
  # oneDNN's primitives are kept per operand layout: R arrays (column-major) and program
  # results (row-major) of one shape must each get their own, and new values the same ones.
  set.seed(7)
  x <- array(rnorm(2 * 6 * 5 * 3), c(2, 6, 5, 3))
  w <- array(rnorm(3 * 3 * 3 * 4), c(3, 3, 3, 4))
  src <- conv_src(ttype(dim(x)), ttype(dim(w)), ttype(c(2, 4, 3, 4)))
  executable <- pjrt_compile(pjrt_program(src))
  row_major <- function(a) {
    copy <- sprintf("func.func @main(%%a: %1$s) -> %1$s {\n  %%0 = stablehlo.add %%a, %%a : %1$s\n  return %%0 : %1$s\n}",
                    ttype(dim(a)))
    pjrt_execute(pjrt_compile(pjrt_program(copy)), pjrt_buffer(a / 2, dtype = "f32"))
  }
  for (round in 1:2) {
    for (layout in c("R", "row-major")) {
      v <- x * round
      input <- if (layout == "R") pjrt_buffer(v, dtype = "f32") else row_major(v)
      got <- as_array(pjrt_execute(executable, input, pjrt_buffer(w, dtype = "f32")))
      expect_equal(got, naive_conv(v, w), tolerance = 1e-5, label = paste(layout, round))
    }
  }
})

test_that("integer convolutions are exact and i8 operands can give an i32 result", {
  x <- array(c(1:16), c(1, 4, 4, 1))
  w <- array(c(1L, 2L, 3L, 4L), c(2, 2, 1, 1))
  expected <- naive_conv(x, w)
  src <- conv_src(ttype(c(1, 4, 4, 1), "i32"), ttype(c(2, 2, 1, 1), "i32"),
                  ttype(c(1, 3, 3, 1), "i32"))
  expect_identical(run_conv(src, x, w, dtype = "i32"), array(as.integer(expected), dim(expected)))
  wide <- conv_src(ttype(c(1, 4, 4, 1), "i8"), ttype(c(2, 2, 1, 1), "i8"),
                   ttype(c(1, 3, 3, 1), "i32"))
  expect_identical(run_conv(wide, x * 7L, w, dtype = "i8"),
                   array(as.integer(naive_conv(x * 7, w)), dim(expected)))
})

test_that("mistyped convolutions are compile errors with line and column", {
  bad_result <- conv_src(ttype(c(1, 4, 4, 1)), ttype(c(3, 3, 1, 2)), ttype(c(1, 4, 4, 1)),
                         window = "pad = [[1, 1], [1, 1]]")
  expect_snapshot(error = TRUE, pjrt_compile(pjrt_program(bad_result)))
  bad_groups <- conv_src(ttype(c(1, 4, 4, 3)), ttype(c(3, 3, 1, 2)), ttype(c(1, 2, 2, 2)),
                         groups = c(2, 1))
  expect_snapshot(error = TRUE, pjrt_compile(pjrt_program(bad_groups)))
  bad_dims <- conv_src(ttype(c(1, 4, 4, 1)), ttype(c(3, 3, 1, 1)), ttype(c(1, 2, 2, 1)),
                       dims = "[b, 0, 1, f]x[0, 1, i, i]->[b, 0, 1, f]")
  expect_snapshot(error = TRUE, pjrt_compile(pjrt_program(bad_dims)))
})
