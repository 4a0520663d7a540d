# The main job of pjrt in one script: run by `make demo`.
library(pjrt)

section <- function(title) cat("\n== ", title, " ==\n", sep = "")

section("Buffers from R data, printed")
x <- pjrt_buffer(matrix(c(1.5, 2, 3, 4, 5, 6), nrow = 2), dtype = "f32")
print(x)
print(pjrt_buffer(matrix(1:6, nrow = 2)))
print(pjrt_scalar(42, dtype = "f32"))
counts <- pjrt_buffer(c(0, 17, 255), dtype = "ui8")
print(counts)
cat("dtype:", as.character(elt_type(counts)), " shape:", shape(counts),
    " device:", as.character(device(counts)), "\n")

section("Strict conversion: no silent wrap-around")
print(tryCatch(pjrt_buffer(c(1, 256), dtype = "ui8"), error = conditionMessage))
print(as_array(pjrt_buffer(2^40, dtype = "i64")))

section("Zero-copy: a double vector as f64 shares its memory, safely")
v <- c(1, 2, 3)
b <- pjrt_buffer(v, dtype = "f64")
v[1] <- 100
print(as_array(b))

section("Back to R")
print(as_array(x))
print(as_raw(pjrt_buffer(1:3, dtype = "i16"), row_major = TRUE))

section("HArray: a zero-copy view with the axes reversed, sliced")
h <- HArray$new_from_values(array(as.double(1:12), c(3, 4)), HDataType$Float64)
h$print()
s <- h$slice(list(c(0L, 4L, 2L), c(NA, NA, -1L)))
s$print()
cat("slice shares memory with its source:", !h$is_unique(), "\n")

section("safetensors: save and load")
path <- tempfile(fileext = ".safetensors")
pjrt_save_safetensors(list(weights = x, counts = counts), path)
loaded <- pjrt_load_safetensors(path)
print(names(loaded))
print(loaded$weights)
cat("identical values after the round trip:",
    identical(as_array(loaded$weights), as_array(x)), "\n")
unlink(path)

section("A StableHLO program on pjrt's own runtime")
program <- pjrt_program("
func.func @main(%x: tensor<2x3xf32>, %w: tensor<3x2xf32>, %b: tensor<f32>) -> tensor<2x2xf32> {
  %xw = stablehlo.dot_general %x, %w, contracting_dims = [1] x [0] : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x2xf32>
  %bb = stablehlo.broadcast_in_dim %b, dims = [] : (tensor<f32>) -> tensor<2x2xf32>
  %sum = stablehlo.add %xw, %bb : tensor<2x2xf32>
  %y = stablehlo.tanh %sum : tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}")
executable <- pjrt_compile(program)
print(executable)
w <- pjrt_buffer(matrix(c(0.1, 0.2, 0.3, -0.1, -0.2, -0.3), nrow = 3), dtype = "f32")
y <- pjrt_execute(executable, x, w, pjrt_scalar(0.5, dtype = "f32"))
print(y)
cat("matches base R:",
    isTRUE(all.equal(as_array(y), tanh(as_array(x) %*% as_array(w) + 0.5), tolerance = 1e-6)), "\n")
