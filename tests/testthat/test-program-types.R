# Declared result types, region signatures and window geometry are checked when a program
# compiles: mistyped programs are compile errors, never
# crashes or wrong answers.

f32 <- function(x) pjrt_buffer(x, dtype = "f32")

program_text <- function(...) paste(c(...), collapse = "\n")

# A reported crash: dot_general declared tensor<5x7xf32> for 2x3 x 3x4, then a slice of
# rows that do not exist (the process died in ffi_program_execute_common).
mistyped_dot <- program_text(
  "func.func @main(%a: tensor<2x3xf32>, %b: tensor<3x4xf32>) -> tensor<1x7xf32> {",
  "  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<5x7xf32>",
  "  %1 = stablehlo.slice %0 [4:5, 0:7] : (tensor<5x7xf32>) -> tensor<1x7xf32>",
  "  return %1 : tensor<1x7xf32>", "}")

test_that("a mistyped dot_general is a compile error naming both types", {
  expect_snapshot(error = TRUE, pjrt_compile(pjrt_program(mistyped_dot)))
  contracting <- program_text(
    "func.func @main(%a: tensor<2x3xf32>, %b: tensor<4x2xf32>) -> tensor<2x2xf32> {",
    "  %0 = stablehlo.dot_general %a, %b, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<4x2xf32>) -> tensor<2x2xf32>",
    "  return %0 : tensor<2x2xf32>", "}")
  expect_snapshot(error = TRUE, pjrt_compile(pjrt_program(contracting)))
})

test_that("the formerly crashing program fails with an error in a child process", {
  a <- matrix(as.double(1:6), 2, 3)
  b <- matrix(as.double(1:12), 3, 4)
  got <- in_fork(tryCatch(run_program(mistyped_dot, f32(a), f32(b)),
                          pjrt_error = function(e) conditionMessage(e)))
  expect_identical(
    got,
    "2:8: 'stablehlo.dot_general' result type tensor<5x7xf32> should be tensor<2x4xf32>")
})

test_that("mistyped top_k, bitcast_convert and sort comparators are compile errors", {
  top_k <- program_text(
    "func.func @main(%x: tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>) {",
    "  %r:2 = \"chlo.top_k\"(%x) {k = 3 : i64} : (tensor<2x5xf32>) -> (tensor<2x3xf32>, tensor<2x3xi64>)",
    "  return %r#0, %r#1 : tensor<2x3xf32>, tensor<2x3xi64>", "}")
  expect_snapshot(error = TRUE, pjrt_compile(pjrt_program(top_k)))
  bitcast <- program_text(
    "func.func @main(%x: tensor<2xf32>) -> tensor<50000000xi32> {",
    "  %r = stablehlo.bitcast_convert %x : (tensor<2xf32>) -> tensor<50000000xi32>",
    "  return %r : tensor<50000000xi32>", "}")
  expect_snapshot(error = TRUE, pjrt_compile(pjrt_program(bitcast)))
  # A comparator of one argument returned the input unchanged.
  sort_one <- program_text(
    "func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {",
    "  %r = \"stablehlo.sort\"(%x) ({",
    "  ^bb0(%p: tensor<f32>):",
    "    %c = stablehlo.compare LT, %p, %p : (tensor<f32>, tensor<f32>) -> tensor<i1>",
    "    stablehlo.return %c : tensor<i1>",
    "  }) {dimension = 0 : i64} : (tensor<4xf32>) -> tensor<4xf32>",
    "  return %r : tensor<4xf32>", "}")
  expect_snapshot(error = TRUE, pjrt_compile(pjrt_program(sort_one)))
})

window_sum <- function(n, out, attrs) {
  program_text(
    sprintf("func.func @main(%%x: tensor<%sxf32>) -> tensor<%sxf32> {", n, out),
    "  %z = stablehlo.constant dense<0.0> : tensor<f32>",
    "  %r = \"stablehlo.reduce_window\"(%x, %z) ({",
    "  ^bb0(%p: tensor<f32>, %q: tensor<f32>):",
    "    %s = stablehlo.add %p, %q : tensor<f32>",
    "    stablehlo.return %s : tensor<f32>",
    sprintf("  }) {%s} : (tensor<%sxf32>, tensor<f32>) -> tensor<%sxf32>", attrs, n, out),
    sprintf("  return %%r : tensor<%sxf32>", out), "}")
}

test_that("window and slice geometry that overflows int64 is a compile error", {
  # Window 2^32 with padding giving 2^32 + 5 windows: this segfaulted in pjrt_compile().
  wrapped <- window_sum("4", "4294967301", paste(
    "window_dimensions = array<i64: 4294967296>,",
    "padding = dense<[[0, 8589934592]]> : tensor<1x2xi64>"))
  expect_identical(in_fork(tryCatch(pjrt_compile(pjrt_program(wrapped)),
                                    pjrt_error = function(e) "error")), "error")
  expect_snapshot(error = TRUE, pjrt_compile(pjrt_program(wrapped)))
  # Window 5 dilated by 2^62 was accepted and returned its input.
  dilated <- window_sum("5", "5", paste(
    "window_dimensions = array<i64: 5>,",
    "window_dilations = array<i64: 4611686018427387904>"))
  expect_snapshot(error = TRUE, pjrt_compile(pjrt_program(dilated)))
  # [0:8:INT64_MAX] takes one element (it was refused as shape (0)).
  strided <- program_text(
    "func.func @main(%x: tensor<8xf32>) -> tensor<1xf32> {",
    "  %r = stablehlo.slice %x [0:8:9223372036854775807] : (tensor<8xf32>) -> tensor<1xf32>",
    "  return %r : tensor<1xf32>", "}")
  expect_identical(as.vector(as_array(run_program(strided, f32(c(5, 6, 7, 8, 9, 10, 11, 12))))), 5)
})

test_that("a moving sum of window 1000 over 1e6 compiles at once and matches cumsum()", {
  skip_under_valgrind("1e9 window element visits take minutes under memcheck")
  n <- 1000000L
  w <- 1000L
  src <- window_sum(n, n - w + 1L, "window_dimensions = array<i64: 1000>")
  elapsed <- system.time(e <- pjrt_compile(pjrt_program(src)))[["elapsed"]]
  # It took 22-31 s and 7.9 GB; planning is now O(rank). Generous for a busy machine.
  expect_lt(elapsed, 5)
  x <- as.double(seq_len(n) %% 16)
  sums <- cumsum(c(0, x))
  expected <- sums[(w + 1):(n + 1)] - sums[1:(n - w + 1)]
  expect_identical(as.vector(as_array(pjrt_execute(e, f32(x)))), expected)
})

test_that("scatter's dimension numbers are checked when the program compiles", {
  # Three updates for two scatter indices: an error only when the program ran, without a
  # position in the text.
  scatter <- program_text(
    "func.func @main(%x: tensor<4xi32>, %i: tensor<2x1xi32>, %u: tensor<3xi32>) -> tensor<4xi32> {",
    "  %r = \"stablehlo.scatter\"(%x, %i, %u) ({",
    "  ^bb0(%p: tensor<i32>, %q: tensor<i32>):",
    "    %s = stablehlo.add %p, %q : tensor<i32>",
    "    stablehlo.return %s : tensor<i32>",
    "  }) {scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (tensor<4xi32>, tensor<2x1xi32>, tensor<3xi32>) -> tensor<4xi32>",
    "  return %r : tensor<4xi32>", "}")
  expect_snapshot(error = TRUE, pjrt_compile(pjrt_program(scatter)))
})
