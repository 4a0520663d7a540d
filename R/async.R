# Upstream's asynchronous names over synchronous execution: promises that are always ready.

#' Asynchronous transfers and readiness
#'
#' Programs run synchronously here: a buffer is ready as soon as the call that made it
#' returns. These functions exist so that code written for runtimes that compute in the
#' background works unchanged. `as_array_async()` converts a buffer to an R array (as
#' [as_array()] does, at once) and returns it wrapped in a `PJRTArrayPromise`; `value()`
#' and `as_array()` return a promise's array (`value()` of a buffer is the buffer itself);
#' `is_ready()` is always `TRUE`; `await()` waits for its argument (returning at once) and
#' returns it invisibly.
#'
#' @param x A PJRTBuffer, or (for `value()`, `as_array()`, `is_ready()` and `await()`) a
#'   `PJRTArrayPromise`.
#' @param ... Passed on to [as_array()] by `as_array_async()` (`check`); ignored elsewhere.
#' @return `as_array_async()` a `PJRTArrayPromise`; `value()` an R array (promise) or the
#'   buffer; `is_ready()` `TRUE`; `await()` `x`, invisibly.
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
  structure(list(value = as_array(x, ...)), class = "PJRTArrayPromise")
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
value.PJRTArrayPromise <- function(x, ...) x$value

#' @rdname as_array_async
#' @export
as_array.PJRTArrayPromise <- function(x, ...) x$value

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
is_ready.PJRTArrayPromise <- function(x, ...) TRUE

#' @export
is_ready.PJRTBuffer <- function(x, ...) {
  with_core(ffi_buffer_dtype(x))
  TRUE
}

#' @export
is_ready.default <- function(x, ...) abort_not_async(x)

#' @rdname as_array_async
#' @export
await <- function(x, ...) UseMethod("await")

#' @export
await.PJRTArrayPromise <- function(x, ...) invisible(x)

#' @export
await.PJRTBuffer <- function(x, ...) {
  with_core(ffi_buffer_dtype(x))
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
  dims <- dim(x$value) %||% length(x$value)
  type <- if (inherits(x$value, "integer64")) "integer64" else typeof(x$value)
  cat("PJRTArrayPromise (ready): ", type, " array of shape (",
      paste(dims, collapse = ", "), ")\n", sep = "")
  invisible(x)
}
