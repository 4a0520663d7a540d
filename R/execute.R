# Running a compiled program: pjrt_execute() and its options (donation, launch id).

#' Run a compiled program
#'
#' `pjrt_execute()` runs `@main` of a [pjrt_compile()]d program on buffers and returns its
#' results as new buffers on the executable's device. As upstream's, it returns as soon as the
#' run is queued on the device (see [pjrt_async()]): the results' values come later, and every
#' read of a result ([as_array()], printing, passing it to the next run) waits for them; an
#' error of the run is raised by that read. With `pjrt_async(FALSE)` the run happens inside the
#' call.
#'
#' @section Arguments and results:
#' The buffers are passed by position (a named argument is an error), one per argument of
#' `@main`, with its dtype and shape: a buffer with R dimensions `c(2, 3)` is the program's
#' `tensor<2x3xf32>`, and element `[i, j]` of the R array is element `(i - 1, j - 1)` of the
#' tensor, whatever the buffer's memory order. Any buffer works, including strided views
#' (made from an [HArray] slice, or loaded from a safetensors file). A buffer on another
#' device than the executable's is an error.
#'
#' Results are ordinary PJRTBuffers (print them, [as_array()], save them with
#' [pjrt_save_safetensors()], view them as [HArray]s); their memory is dense and row-major.
#'
#' A buffer made from an R matrix is column-major. When a program reads an argument by rows
#' (a gather of whole rows such as an embedding lookup, a softmax or layer norm over the last
#' dim, a convolution, a max-pool gradient, a batched matrix product, a loop), the second run
#' that passes the same buffer stores it again dense and row-major, in place of its
#' column-major memory, for later runs (not for buffers over 256 MiB, nor for donated
#' arguments). The buffer's values, and everything that reads them, stay as they were; views
#' taken before keep their own memory.
#'
#' @section Donation:
#' An argument of `@main` marked `{tf.aliasing_output = K : i32}` is donated to result `K`
#' (0-based), unless its 0-based index is in the `non_donatable_input_indices` of
#' `execution_options`: afterwards every use of the donated buffer is an error (`called on
#' deleted or donated buffer`). Its memory becomes result `K`'s memory, with no new
#' allocation, when nothing else can see it and the program allows it: the buffer has memory
#' of its own (a buffer sharing an R vector, a memory-mapped file or an Arrow array keeps it,
#' so R data and files never change), no HArray, `as_array()` view or other argument shares
#' it, it is dense row-major (most of a program's results are; so is any vector), or dense
#' column-major (an R matrix) with result `K` computed by a fused chain whose full-size
#' operands are all column-major, and result `K` is computed by an element-wise op or fused
#' chain that reads the argument last, or is the argument itself. Otherwise the result gets fresh memory. A run that fails before it writes
#' a donated buffer's memory leaves that buffer usable.
#'
#' @param executable A `PJRTLoadedExecutable` from [pjrt_compile()].
#' @param ... The arguments of `@main`: PJRTBuffers, unnamed, in order.
#' @param execution_options `NULL` (the defaults) or [pjrt_execution_options()].
#' @param simplify When `TRUE` (default), a program with one result returns a buffer;
#'   otherwise (and always for zero or several results) the results are an unnamed list.
#' @param check When `TRUE` (default), the arguments are checked in R first: names are an
#'   error, and every mistake is worded for the argument it is in. `FALSE` skips those
#'   checks, for callers that have checked already: names are then ignored. The engine still
#'   checks everything it is handed, so a wrong argument is an error either way (worded by
#'   the engine), never a crash.
#' @return A PJRTBuffer, or a list of them.
#' @seealso [pjrt_program()], [pjrt_compile()], [pjrt_execution_options()],
#'   [as_array_async()].
#' @examples
#' program <- pjrt_program("
#' func.func @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> tensor<2x3xf32> {
#'   %0 = stablehlo.add %a, %b : tensor<2x3xf32>
#'   return %0 : tensor<2x3xf32>
#' }")
#' executable <- pjrt_compile(program)
#' a <- pjrt_buffer(matrix(1:6, 2), dtype = "f32")
#' b <- pjrt_buffer(matrix(10, 2, 3), dtype = "f32")
#' pjrt_execute(executable, a, b)
#' pjrt_execute(executable, a, b, simplify = FALSE)
#' try(pjrt_execute(executable, a = a, b = b))
#' @export
pjrt_execute <- function(executable, ..., execution_options = NULL, simplify = TRUE,
                         check = TRUE) {
  # The common call (default options, unnamed buffers, TRUE or FALSE flags) is checked, run and
  # simplified in C++, with nothing before it in R (each builtin call here cost about 0.1 us: the
  # checks were 11K of a 12-buffer call's 139K instructions); NULL there means anything else,
  # which the checks below word.
  results <- .Call(`_pjrt_ffi_program_execute_common`, executable, list(...), execution_options,
                   simplify, check)
  if (!is.null(results)) {
    if (is.symbol(results)) abort_core_failure(execute_error_call(list(...), environment()))
    return(results)
  }
  buffers <- list(...)
  call <- execute_error_call(buffers, environment())
  if (isFALSE(check)) {
    names(buffers) <- NULL
  } else if (!isTRUE(check)) {
    check_bool(check, "check", call)
  }
  options <- execution_options %||% pjrt_execution_options()
  if (!isFALSE(check)) {
    check_executable(executable, call)
    check_execute_arguments(buffers, call)
  }
  # The options and `simplify` are read in R, so they are checked whatever `check` says.
  check_bool(simplify, "simplify", call)
  if (!inherits(options, "PJRTExecuteOptions")) {
    cli::cli_abort(
      "{.arg execution_options} must be NULL or made by {.fn pjrt_execution_options}, not {.obj_type_friendly {execution_options}}.",
      call = call
    )
  }
  check_non_donatable(executable, options, call)
  results <- with_core(
    ffi_program_execute(executable, buffers, options$non_donatable_input_indices), call
  )
  if (simplify && length(results) == 1) results[[1]] else results
}

# Errors name pjrt_execute()'s call; with thousands of buffers, a light one (see
# light_error_call()), whose option must last as long as pjrt_execute()'s frame `env`.
execute_error_call <- function(buffers, env) {
  if (length(buffers) > 1000L) light_error_call(quote(pjrt_execute()), frame = env) else env
}

check_execute_arguments <- function(buffers, call = caller_env()) {
  labels <- names(buffers)
  if (!is.null(labels) && any(labels != "")) {
    named <- which(labels != "")[[1]]
    cli::cli_abort(c(
      "Expected unnamed arguments.",
      x = "Argument {named} is named {.arg {labels[[named]]}}; pass buffers by position."
    ), call = call)
  }
  for (k in seq_along(buffers)) {
    if (!inherits(buffers[[k]], "PJRTBuffer")) {
      cli::cli_abort(
        "Argument {k} must be a PJRTBuffer, not {.obj_type_friendly {buffers[[k]]}}.",
        call = call
      )
    }
  }
  invisible()
}

# Words the error for excluded indices that name no argument of @main (the core decides which
# arguments are donated, and checks the indices again).
check_non_donatable <- function(executable, options, call = caller_env()) {
  count <- length(with_core(ffi_executable_aliasing(executable), call = call))
  excluded <- options$non_donatable_input_indices
  outside <- excluded[excluded >= count]
  if (length(outside) > 0) {
    cli::cli_abort(c(
      "{.arg non_donatable_input_indices} names argument {outside[[1]]} (0-based), but {.code @main} has {count} argument{?s}.",
      i = "Indices run from 0 to the number of arguments minus 1."
    ), call = call)
  }
  invisible()
}

#' Options for running a program
#'
#' `pjrt_execution_options()` collects the options of [pjrt_execute()].
#'
#' @param non_donatable_input_indices 0-based indices of `@main` arguments that are not
#'   donated even though the program marks them with `tf.aliasing_output` (they stay usable
#'   after the call). Whole, non-negative numbers without duplicates.
#' @param launch_id An integer identifying the launch, kept for code written for multi-device
#'   runtimes; it does not change what a program computes here.
#' @return A `PJRTExecuteOptions` (upstream pjrt's class name), which also inherits from
#'   `PJRTExecutionOptions`, the class name of earlier versions of this package.
#' @seealso [pjrt_execute()].
#' @examples
#' pjrt_execution_options(non_donatable_input_indices = 0)
#' @export
pjrt_execution_options <- function(non_donatable_input_indices = integer(), launch_id = 0L) {
  indices <- non_donatable_input_indices
  if (!is.numeric(indices) || inherits(indices, "integer64") || anyNA(indices) ||
      any(indices < 0 | indices >= 2^31 | indices != trunc(indices))) {
    cli::cli_abort(
      "{.arg non_donatable_input_indices} must be whole, non-negative numbers below 2^31 (0-based argument indices)."
    )
  }
  if (anyDuplicated(indices)) {
    cli::cli_abort("{.arg non_donatable_input_indices} must not repeat an index.")
  }
  if (!is_whole_number(launch_id) || abs(launch_id) >= 2^31) {
    cli::cli_abort("{.arg launch_id} must be a single whole number (a 32-bit integer).")
  }
  structure(
    list(non_donatable_input_indices = sort(as.integer(indices)), launch_id = as.integer(launch_id)),
    class = c("PJRTExecuteOptions", "PJRTExecutionOptions")
  )
}

#' @rdname pjrt_execution_options
#' @param x A `PJRTExecuteOptions`.
#' @param ... Ignored.
#' @export
print.PJRTExecuteOptions <- function(x, ...) {
  indices <- x$non_donatable_input_indices
  cat("PJRTExecuteOptions\n")
  cat("  non_donatable_input_indices: ",
      if (length(indices) == 0) "(none)" else paste(indices, collapse = ", "), "\n", sep = "")
  cat("  launch_id: ", x$launch_id, "\n", sep = "")
  invisible(x)
}
