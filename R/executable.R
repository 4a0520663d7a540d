# Compiling programs into executables bound to a device, and running them on buffers.

#' Compile a program
#'
#' `pjrt_compile()` parses and verifies a [pjrt_program()] (types, shapes, operand counts,
#' attributes, region signatures, values defined before use) and plans its execution on one
#' device. Programs run on pjrt's own runtime: there is no plugin and nothing to download.
#' Every problem in the text is an error giving the line and column of the program text and
#' the offending token or op.
#'
#' @param program A `PJRTProgram` from [pjrt_program()].
#' @param compile_options `NULL`: this runtime has no compile options.
#' @param device The device the executable runs on: `NULL` (the default device), a
#'   PJRTDevice, `"cpu"` or `"cpu:<index>"` (see [pjrt_device()]). Programs run on CPU devices
#'   only in this version; a CUDA device is an error.
#' @return A `PJRTLoadedExecutable`, bound to `device`: printing it shows the device and the
#'   signature of `@main` (and which arguments are donated to which results).
#' @seealso [pjrt_execute()] to run it; [pjrt_program()].
#' @examples
#' program <- pjrt_program("
#' func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
#'   %0 = stablehlo.multiply %x, %x : tensor<2x2xf32>
#'   return %0 : tensor<2x2xf32>
#' }")
#' executable <- pjrt_compile(program)
#' executable
#' try(pjrt_compile(pjrt_program("func.func @main() -> tensor<f32> {\n  return %x\n}")))
#' @export
pjrt_compile <- function(program, compile_options = NULL, device = NULL) {
  if (!inherits(program, "PJRTProgram")) {
    cli::cli_abort("{.arg program} must be a PJRTProgram, not {.obj_type_friendly {program}}.")
  }
  if (!is.null(compile_options)) {
    cli::cli_abort(c(
      "{.arg compile_options} must be NULL, not {.obj_type_friendly {compile_options}}.",
      i = "This runtime has no compile options."
    ))
  }
  spec <- device_spec(device)
  check_program_platform(spec)
  with_core(ffi_program_compile(program$code, spec))
}

# Programs run on CPU devices only; the platform is checked before a CUDA device is resolved
# (which would load the CUDA driver).
check_program_platform <- function(spec, call = caller_env()) {
  platform <- if (identical(spec, "")) with_core(ffi_default_platform()) else sub(":.*$", "", spec)
  if (identical(platform, "cuda")) {
    cli::cli_abort(c(
      "Programs run on CPU devices only in this version, not on {.str {spec}}.",
      i = "Compile with {.code device = \"cpu\"} and copy buffers there with {.fn copy_buffer}."
    ), call = call)
  }
  invisible()
}

check_executable <- function(executable, call = caller_env()) {
  if (!inherits(executable, "PJRTLoadedExecutable")) {
    cli::cli_abort(
      "{.arg executable} must be a PJRTLoadedExecutable, not {.obj_type_friendly {executable}}.",
      call = call
    )
  }
  invisible(executable)
}

#' @rdname pjrt_compile
#' @param x A `PJRTLoadedExecutable`.
#' @param ... Ignored.
#' @export
print.PJRTLoadedExecutable <- function(x, ...) {
  device <- new_device(with_core(ffi_executable_device(x)))
  aliasing <- with_core(ffi_executable_aliasing(x))
  cat("PJRTLoadedExecutable\n")
  cat("  device: ", as.character(device), "\n", sep = "")
  cat("  @main: ", with_core(ffi_executable_signature(x)), "\n", sep = "")
  donated <- which(!is.na(aliasing))
  if (length(donated) > 0) {
    pairs <- paste0(donated - 1L, " -> ", aliasing[donated])
    cat("  donates (argument -> result, 0-based): ", paste(pairs, collapse = ", "), "\n",
        sep = "")
  }
  invisible(x)
}

#' @rdname pjrt_compile
#' @export
device.PJRTLoadedExecutable <- function(x, ...) {
  check_executable(x)
  new_device(with_core(ffi_executable_device(x)))
}

#' What a program compiled to
#'
#' `inspect_plan()` shows what pjrt's runtime made of `@main` after its passes, the steps it
#' runs in order: single ops, `fusion` steps (chains of element-wise ops run as one pass over
#' memory), `row fusion` steps (reductions over the last dims with the element-wise ops
#' before and after them, such as softmax or layer norm, run as one pass over blocks of rows)
#' and `matrix-vector pair` steps (a linear model's gradient, `t(X) %*% f(X %*% w)`, run as one
#' pass over blocks of the rows of `X`), each with the ops it runs, its result types and their size, and the program lines it
#' comes from. Every result is dense row-major, except that a `fusion` step whose result the
#' program only returns writes it column-major when its full-size operands are (R matrices):
#' such steps say "column-major when its operands are". The steps of a `while` loop's `cond` and
#' `body`, and of the branches of an `if` or a `case`, are listed indented under the step that
#' runs them (the ops inside a loop body run once per trip). A `canonicalised:` line counts what the
#' exact rewrites made before planning changed in the program's functions: identity ops
#' (a convert to the same type, a transpose by the identity, ...) forwarded, repeated
#' computations merged, ops that read through a chain of transposes, reshapes or broadcasts,
#' and unused ops removed. This is pjrt's counterpart of the optimised
#' HLO that runtimes built on XLA show ([inspect_hlo()]); the text is for reading and may change
#' between versions.
#'
#' @param executable A `PJRTLoadedExecutable` from [pjrt_compile()].
#' @return A `PJRTPlan`: one string, printed as it reads.
#' @seealso [pjrt_compile()].
#' @examples
#' executable <- pjrt_compile(pjrt_program("
#' func.func @main(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
#'   %zero = stablehlo.constant dense<0.0> : tensor<f32>
#'   %e = stablehlo.exponential %x : tensor<4x3xf32>
#'   %s = stablehlo.reduce(%e init: %zero) applies stablehlo.add across dimensions = [1]
#'     : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
#'   %b = stablehlo.broadcast_in_dim %s, dims = [0] : (tensor<4xf32>) -> tensor<4x3xf32>
#'   %p = stablehlo.divide %e, %b : tensor<4x3xf32>
#'   return %p : tensor<4x3xf32>
#' }"))
#' inspect_plan(executable)
#' @export
inspect_plan <- function(executable) {
  check_executable(executable)
  structure(with_core(ffi_executable_plan(executable)), class = "PJRTPlan")
}

#' @export
print.PJRTPlan <- function(x, ...) {
  cat(unclass(x))
  invisible(x)
}
