# Readiness of buffers and promises of R arrays: upstream's asynchronous names, over runs that
# are asynchronous when pjrt_async() is on.

#' Asynchronous transfers and readiness
#'
#' With [pjrt_async()] on, [pjrt_execute()] returns before the program has run, and its results
#' are buffers whose values come later; otherwise every buffer is ready when the call that
#' made it returns. `is_ready()` tells whether a buffer's value is there, without waiting.
#' `await()` waits for it (an error of the run is raised here) and returns its argument
#' invisibly. `as_array_async()` returns a `PJRTArrayPromise` of the buffer's R array at once;
#' `value()` and `as_array()` of the promise wait for the buffer and convert it (once; later
#' calls return the same array), and `is_ready()` of a promise is its buffer's readiness.
#' `value()` of a buffer is the buffer itself. Reading a buffer in any other way (printing,
#' [as_array()], passing it to a program) waits as well.
#'
#' @param x A PJRTBuffer, or (for `value()`, `as_array()`, `is_ready()` and `await()`) a
#'   `PJRTArrayPromise`.
#' @param ... Passed on to [as_array()] by `as_array_async()` (`check`); ignored elsewhere.
#' @return `as_array_async()` a `PJRTArrayPromise`; `value()` an R array (promise) or the
#'   buffer; `is_ready()` `TRUE` or `FALSE`; `await()` `x`, invisibly.
#' @seealso [as_array()], [pjrt_execute()].
#' @examples
#' b <- pjrt_buffer(matrix(1:4, 2), dtype = "f32")
#' promise <- as_array_async(b)
#' promise
#' is_ready(promise)
#' value(promise)
#' identical(as_array(promise), value(promise))
#' await(b)
#' @export
as_array_async <- function(x, ...) UseMethod("as_array_async")

#' @rdname as_array_async
#' @export
as_array_async.PJRTBuffer <- function(x, ...) {
  with_core(ffi_buffer_is_ready(x))  # a donated or invalid buffer is an error now
  promise <- new.env(parent = emptyenv())
  promise$buffer <- x
  promise$args <- list(...)
  class(promise) <- "PJRTArrayPromise"
  promise
}

# The promise's array, converted on first use.
promise_value <- function(x) {
  if (is.null(x$buffer)) return(x$value)
  x$value <- do.call(as_array, c(list(x$buffer), x$args))
  x$buffer <- NULL
  x$value
}

#' @export
as_array_async.default <- function(x, ...) check_buffer(x)

check_buffer <- function(x, call = caller_env()) {
  if (!inherits(x, "PJRTBuffer")) {
    cli::cli_abort("{.arg x} must be a PJRTBuffer, not {.obj_type_friendly {x}}.", call = call)
  }
  invisible(x)
}

#' @rdname as_array_async
#' @export
value <- function(x, ...) UseMethod("value")

#' @export
value.PJRTArrayPromise <- function(x, ...) promise_value(x)

#' @rdname as_array_async
#' @export
as_array.PJRTArrayPromise <- function(x, ...) promise_value(x)

#' @export
value.PJRTBuffer <- function(x, ...) {
  with_core(ffi_buffer_dtype(x))  # a donated or invalid buffer is an error, as everywhere
  x
}

#' @export
value.default <- function(x, ...) abort_not_async(x)

#' @rdname as_array_async
#' @export
is_ready <- function(x, ...) UseMethod("is_ready")

#' @export
is_ready.PJRTArrayPromise <- function(x, ...) {
  is.null(x$buffer) || with_core(ffi_buffer_is_ready(x$buffer))
}

#' @export
is_ready.PJRTBuffer <- function(x, ...) with_core(ffi_buffer_is_ready(x))

#' @export
is_ready.default <- function(x, ...) abort_not_async(x)

#' @rdname as_array_async
#' @export
await <- function(x, ...) {
  # A buffer, the common call (once per run where runs are awaited), answers without S3
  # dispatch or further closure calls (await.PJRTBuffer()'s body, inlined): each R closure call
  # costs about a microsecond, and the four of the dispatched path took 4.7 us.
  if (inherits(x, "PJRTBuffer")) {
    if (is.symbol(.Call(`_pjrt_ffi_buffer_await`, x))) abort_core_failure(environment())
    return(invisible(x))
  }
  UseMethod("await")
}

#' @export
await.PJRTArrayPromise <- function(x, ...) {
  promise_value(x)
  invisible(x)
}

#' @export
await.PJRTBuffer <- function(x, ...) {
  with_core(ffi_buffer_await(x))
  invisible(x)
}

#' @export
await.default <- function(x, ...) abort_not_async(x)

abort_not_async <- function(x, call = caller_env()) {
  cli::cli_abort(
    "{.arg x} must be a PJRTBuffer or a PJRTArrayPromise, not {.obj_type_friendly {x}}.",
    call = call
  )
}

#' @export
print.PJRTArrayPromise <- function(x, ...) {
  if (!is_ready(x)) {
    cat("PJRTArrayPromise (pending)\n")
    return(invisible(x))
  }
  array <- promise_value(x)
  dims <- dim(array) %||% length(array)
  type <- if (inherits(array, "integer64")) "integer64" else typeof(array)
  cat("PJRTArrayPromise (ready): ", type, " array of shape (",
      paste(dims, collapse = ", "), ")\n", sep = "")
  invisible(x)
}

#' Run programs asynchronously
#'
#' With `pjrt_async(TRUE)`, the default, [pjrt_execute()] returns as soon as the run is
#' queued, as upstream pjrt does: the results are buffers whose values come later, while R goes
#' on (preparing the next batch, say). `pjrt_async(FALSE)` runs programs inside the call. Every read of such a buffer waits for its run: [as_array()], printing,
#' [await()], [copy_buffer()], saving, an [HArray] of it, and passing it to the next
#' [pjrt_execute()] (which waits for it before queueing the next run). [is_ready()] tells
#' without waiting. `pjrt_async()` without an argument returns the setting. It starts `TRUE`,
#' or `FALSE` when the environment variable `PJRT_ASYNC` is `0` or `false` when pjrt loads.
#'
#' Each device runs its queue in order on a thread of its own. An error raised while a
#' program runs is raised at the first read of any of its results, with the op and
#' line:column, classed as it is in a synchronous run. An interrupt (Ctrl-C) while waiting
#' stops the running program and cancels the ones queued behind it; their results then raise
#' an interrupt when read, and later runs work as usual. A forked child ([parallel::mclapply()])
#' inherits no run in flight: the fork waits for the queues first. When R exits with runs
#' still queued (a script whose last results nobody reads), they are cancelled and the running
#' one is awaited before R ends.
#'
#' A run that takes a pending result as an argument waits for it before it is queued (so R
#' waits there when it queues a chain of runs faster than they compute). What is not
#' asynchronous: programs with custom calls (they may call back into code that
#' needs R's thread) and programs of several devices ([pjrt_execute_sharded()]) run at once,
#' as before; so does [dispatcher()]. A quick program runs at once too, on R's thread, as
#' XLA's CPU client runs cheap computations: one without a `while` loop whose latest run took
#' under 50 microseconds, when no run queued before it is still to finish (handing it to the
#' device's thread and waking R again would cost about twice that); its results are ready when
#' the call returns. A donated buffer is invalid as soon as the call returns
#' (in a synchronous run, one the run failed before writing stays usable).
#'
#' @param enable `TRUE` or `FALSE` to set, `NULL` (default) to read the setting.
#' @return The setting before the call, invisibly when setting it.
#' @examples
#' old <- pjrt_async(TRUE)
#' program <- pjrt_program("
#' func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
#'   %0 = stablehlo.exponential %x : tensor<3xf32>
#'   return %0 : tensor<3xf32>
#' }")
#' y <- pjrt_execute(pjrt_compile(program), pjrt_buffer(c(0, 1, 2), dtype = "f32"))
#' is_ready(y) # perhaps not yet
#' as_array(y) # waits
#' pjrt_async(old)
#' @export
pjrt_async <- function(enable = NULL) {
  if (is.null(enable)) return(with_core(ffi_async_execution(NA)))
  check_bool(enable, "enable")
  invisible(with_core(ffi_async_execution(enable)))
}
