# Shared pieces of the dispatcher tests: AnvlArray leaves and compile callbacks.

# An AnvlArray of the "pjrt" backend around a buffer, as anvl makes them.
anvl_array <- function(data, ambiguous = FALSE, backend = "pjrt") {
  buffer <- if (inherits(data, "PJRTBuffer")) data else pjrt_buffer(data, dtype = "f32")
  structure(list(data = buffer, ambiguous = ambiguous, device = device(buffer), backend = backend),
            class = "AnvlArray")
}

# `@main` of one element-wise op over `n` arguments of `type`.
op_program <- function(op, type = "tensor<2xf32>", n = 2) {
  arguments <- paste0("%a", seq_len(n), ": ", type, collapse = ", ")
  operands <- paste0("%a", seq_len(n), collapse = ", ")
  pjrt_program(sprintf("func.func @main(%s) -> %s {\n  %%0 = stablehlo.%s %s : %s\n  return %%0 : %s\n}",
                       arguments, type, op, operands, type, type))
}

# A compile callback returning `exec` with one result of `dtype` and `shape`, counting its calls
# in `counter` (an environment) and keeping the last `info` there.
counting_compile <- function(exec, counter, dtype = "f32", shape = 2L, ...) {
  counter$n <- 0
  function(info) {
    counter$n <- counter$n + 1
    counter$info <- info
    list(exec = exec, device = pjrt_device("cpu:0"), out_tree = build_tree(0),
         out_avals = list(list(dtype = dtype, shape = shape)), ...)
  }
}

# A dispatcher of the "pjrt" backend over counting_compile().
pjrt_dispatcher <- function(exec, counter, ..., static = character(), capacity = 10,
                            context = NULL) {
  dispatcher(capacity, counting_compile(exec, counter, ...), static = static,
             default_device = function() pjrt_device("cpu:0"), context = context)
}

# An array of an R-closure backend: its fields are read back by `field_extractor`.
closure_array <- function(value, dtype = "f64", device = "cpu", backend = "quickr") {
  structure(list(data = value, dtype = dtype, shape = length(value), ambiguous = FALSE,
                 device = structure(list(name = device), class = "TestDevice"), backend = backend),
            class = "AnvlArray")
}

field_extractor <- function(leaf) {
  list(aval = list(dtype = leaf$dtype, shape = leaf$shape, ambiguous = leaf$ambiguous),
       device = leaf$device, backend = leaf$backend)
}

closure_dispatcher <- function(counter, r_fun, ..., backend = "quickr",
                               default_device = function() structure(list(name = "cpu"), class = "TestDevice")) {
  counter$n <- 0
  dispatcher(10, function(info) {
    counter$n <- counter$n + 1
    counter$info <- info
    list(r_fun = r_fun)
  }, backend = backend, extractor = field_extractor, default_device = default_device, ...)
}

# A result's values as a plain vector (one-dimensional arrays lose their dim).
values_of <- function(result) plain(as_array(result$data))

plain <- function(v) {
  if (length(dim(v)) == 1) dim(v) <- NULL
  v
}

# `@main(x: tensor<2xf32>, s: tensor<f32>)`: x + s.
add_scalar_program <- function() {
  pjrt_program(paste(
    "func.func @main(%x: tensor<2xf32>, %s: tensor<f32>) -> tensor<2xf32> {",
    "  %b = stablehlo.broadcast_in_dim %s, dims = [] : (tensor<f32>) -> tensor<2xf32>",
    "  %0 = stablehlo.add %x, %b : tensor<2xf32>",
    "  return %0 : tensor<2xf32>", "}", sep = "\n"))
}
