# Small StableHLO programs shared by the program tests, and a compile-and-run shortcut.

# `@main` adding two tensors of `type` (an MLIR tensor type such as "tensor<2x3xf32>").
add_program <- function(type = "tensor<2x3xf32>") {
  pjrt_program(sprintf(paste(
    "func.func @main(%%a: %1$s, %%b: %1$s) -> %1$s {",
    "  %%0 = stablehlo.add %%a, %%b : %1$s",
    "  return %%0 : %1$s",
    "}", sep = "\n"), type))
}

# Compiles `src` (program text or a PJRTProgram) for `device` and runs it on `...`.
run_program <- function(src, ..., device = NULL) {
  program <- if (inherits(src, "PJRTProgram")) src else pjrt_program(src)
  pjrt_execute(pjrt_compile(program, device = device), ...)
}

# `@main` multiplying two f64 vectors, its first argument donated to its result.
donation_src <- paste(
  "func.func @main(%x: tensor<3xf64> {tf.aliasing_output = 0 : i32}, %y: tensor<3xf64>)",
  "    -> tensor<3xf64> {",
  "  %0 = stablehlo.multiply %x, %y : tensor<3xf64>",
  "  return %0 : tensor<3xf64>", "}", sep = "\n")

# Counts from 0 to %n one step at a time (about half a microsecond a step): the program text,
# and its compiled form.
counting_text <- "
func.func @main(%n: tensor<i64>) -> tensor<i64> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %r = stablehlo.while(%i = %zero) : tensor<i64>
  cond {
    %c = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %next = stablehlo.add %i, %one : tensor<i64>
    stablehlo.return %next : tensor<i64>
  }
  return %r : tensor<i64>
}"
counting <- function() pjrt_compile(pjrt_program(counting_text))

steps <- function(n) pjrt_buffer(n, dtype = "i64", shape = integer())
