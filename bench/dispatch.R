# dispatch() on a cache hit against pjrt_execute() of the same executable (target: at most
# 1.5x), for a one-op program over two f32 vectors. dispatch() does everything pjrt_execute()
# does, plus flattening the argument list, keying and looking up the cache, and wrapping the
# result as an AnvlArray; a second table passes a bare R scalar, uploaded per call, against
# pjrt_scalar() + pjrt_execute(). Run with
# `make bench` (or Rscript bench/dispatch.R).
source(file.path("bench", "helpers.R"))

sizes <- c(1, 100, 10000)
for (n in sizes) {
  type <- sprintf("tensor<%dxf32>", n)
  add <- pjrt_compile(pjrt_program(sprintf(
    "func.func @main(%%a: %1$s, %%b: %1$s) -> %1$s {\n  %%0 = stablehlo.add %%a, %%b : %1$s\n  return %%0 : %1$s\n}",
    type)))
  add_scalar <- pjrt_compile(pjrt_program(sprintf(paste(
    "func.func @main(%%a: %1$s, %%s: tensor<f32>) -> %1$s {",
    "  %%b = stablehlo.broadcast_in_dim %%s, dims = [] : (tensor<f32>) -> %1$s",
    "  %%0 = stablehlo.add %%a, %%b : %1$s",
    "  return %%0 : %1$s", "}", sep = "\n"), type)))
  entry <- function(exec) {
    force(exec)
    function(info) list(exec = exec, device = pjrt_device(), out_tree = build_tree(0),
                        out_avals = list(list(dtype = "f32", shape = as.integer(n))))
  }
  d <- dispatcher(10, entry(add), default_device = pjrt_device)
  d_scalar <- dispatcher(10, entry(add_scalar), default_device = pjrt_device)
  a <- pjrt_buffer(as.double(seq_len(n)), dtype = "f32")
  b <- pjrt_buffer(rep(2, n), dtype = "f32")
  wrap <- function(buffer) structure(list(data = buffer, ambiguous = FALSE, backend = "pjrt"),
                                     class = "AnvlArray")
  x <- wrap(a)
  y <- wrap(b)
  args <- list(x = x, y = y)
  scalar_args <- list(x = x, s = 2)
  stopifnot(identical(as_array(dispatch(d, args)$data), as_array(pjrt_execute(add, a, b))))
  stopifnot(identical(as_array(dispatch(d_scalar, scalar_args)$data), as_array(pjrt_execute(add, a, b))))
  # Median of single calls over many iterations: robust against other processes' bursts.
  per_call <- function(expr) {
    expr <- substitute(expr)
    env <- parent.frame()
    as.numeric(bench::mark(awaited(eval(expr, env)), iterations = 20000, check = FALSE,
                           filter_gc = TRUE, memory = FALSE)$median)
  }
  execute <- per_call(pjrt_execute(add, a, b))
  hit <- per_call(dispatch(d, args))
  report(list(row(sprintf("dispatch() cache hit, two arrays, n = %g", n), hit, 1.5)),
         "pjrt_execute() of the same executable", execute, n)
  # The same with a bare R scalar, against making the scalar buffer and running the program.
  execute_scalar <- per_call(pjrt_execute(add_scalar, a, pjrt_scalar(2, dtype = "f32")))
  scalar_hit <- per_call(dispatch(d_scalar, scalar_args))
  report(list(row(sprintf("dispatch() cache hit, array + R scalar, n = %g", n), scalar_hit, 1.5)),
         "pjrt_scalar() + pjrt_execute() of the same executable", execute_scalar, n)
}
