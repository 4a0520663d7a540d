# as_array() and friends: reading buffers back into R vectors under the strict rules.
#' Convert a buffer to R
#'
#' `as_array()` returns the values as an R array with `dim = shape(x)` (a plain vector
#' without dim for a 0-d buffer), in R's column-major order: logical for `pred`, integer for
#' `i8`, `i16`, `i32`, `ui8`, `ui16`, [bit64::integer64] for `i64`, `ui32`, `ui64`, double for
#' the float dtypes and complex for `c64` and `c128`. `as_raw()` returns the element bytes.
#'
#' Some values cannot be told apart from NA in R: INT_MIN in `i32` and INT64_MIN in `i64`
#' buffers read as NA, and `ui64` values of 2^63 or more, which integer64 cannot hold, are
#' returned as NA. `check` says what happens then: `"warn"` (default) warns with the count,
#' `"error"` errors, `"ignore"` is silent. Upstream pjrt's spellings work too: `"err"` (its
#' development version) and `TRUE` (its releases) mean `"error"`, `FALSE` means `"ignore"`.
#'
#' An `f64` or `i32` buffer in host memory, dense in R's column-major order (any buffer made
#' from an R vector, every 1-d buffer), comes back without a copy: the result is a read-only
#' view of the buffer's memory (an ALTREP vector) that keeps that memory alive after the
#' buffer is gone. R copies it on the first modification, on `saveRDS()` (which writes an
#' ordinary vector) and when C code asks for writable memory, so changing the result never
#' changes the buffer. `check` still applies: an `i32` buffer is scanned for INT_MIN once (the
#' count is remembered by the buffer), unless `check = "ignore"`. Buffers of other dtypes or
#' layouts, on a GPU, or mapped from a safetensors file (which could change on disk underneath)
#' are copied. `options(pjrt.altrep = FALSE)` turns views off: every result is then a copy.
#'
#' @param x A PJRTBuffer.
#' @param check `"warn"`, `"error"` or `"ignore"`; or `"err"` or `TRUE` (`"error"`), or
#'   `FALSE` (`"ignore"`).
#' @param row_major Required for `as_raw()`: `TRUE` for bytes in C (row-major) order,
#'   `FALSE` for R's column-major order.
#' @param ... Unused.
#' @seealso [pjrt_buffer()] to make buffers, [PJRTBuffer] for base R conversions such as
#'   `as.matrix()`, [shape()] and [elt_type()] for the properties.
#' @return An R array or vector (`as_array()`), a raw vector (`as_raw()`).
#' @examples
#' b <- pjrt_buffer(matrix(1:6, nrow = 2), dtype = "i16")
#' as_array(b)
#' as_raw(b, row_major = TRUE)
#' @export
as_array <- function(x, ...) UseMethod("as_array")

#' @rdname as_array
#' @export
as_array.PJRTBuffer <- function(x, check = "warn", ...) {
  # Written for the small call: every step here costs about as much as the copy of a few
  # values (validation of a non-default `check` only when one is given, option pjrt.altrep
  # read by the binding, no wrapper closures).
  if (!missing(check)) check <- check_missing_mode(check)
  values <- .Call(`_pjrt_ffi_buffer_values`, x, check != "ignore")
  if (is.symbol(values)) abort_core_failure(environment())
  ambiguous <- attr(values, "pjrt_na_count", exact = TRUE)
  if (!is.null(ambiguous)) {
    values <- ffi_vector_drop_attribute(values, "pjrt_na_count")
    report_ambiguous(ambiguous, with_core(ffi_buffer_dtype(x)), check)
  }
  values
}

report_ambiguous <- function(count, dtype, check, call = caller_env()) {
  if (check == "ignore") return(invisible())
  what <- if (dtype == "ui64") {
    "{count} ui64 value{?s} of 2^63 or more {?does/do} not fit integer64 and {?reads/read} as NA."
  } else {
    paste0("{count} value{?s} of ", na_sentinel_text(dtype), " in an ", dtype,
           " buffer {?reads/read} as NA.")
  }
  hint <- "Use {.code check = \"ignore\"} to read them silently."
  if (check == "error") {
    cli::cli_abort(c(what, x = "{.code check = \"error\"} rejects values R cannot tell from NA."),
                   call = call)
  }
  cli::cli_warn(c(what, i = hint), call = call)
}

#' @rdname as_array
#' @export
as_raw <- function(x, row_major, ...) UseMethod("as_raw")

#' @rdname as_array
#' @export
as_raw.PJRTBuffer <- function(x, row_major, ...) {
  if (missing(row_major)) {
    cli::cli_abort(c(
      "{.arg row_major} must be provided.",
      i = "Use {.code TRUE} for bytes in C (row-major) order, {.code FALSE} for R's column-major order."
    ))
  }
  with_core(ffi_buffer_to_raw(x, check_bool(row_major, "row_major")))
}

#' @export
as.array.PJRTBuffer <- function(x, ...) as_array(x, ...)

#' @export
as.vector.PJRTBuffer <- function(x, mode = "any") {
  values <- without_dim(as_array(x))
  if (inherits(values, "integer64")) {
    if (mode %in% c("any", "numeric", "double")) return(bit64::as.double.integer64(values))
    if (mode == "complex") return(as.complex(bit64::as.double.integer64(values)))
    dim(values) <- NULL
    return(as.vector(as.character(values), mode))
  }
  as.vector(values, mode)
}

#' @export
as.double.PJRTBuffer <- function(x, ...) as.double(without_dim(as_array(x)))

#' @export
as.integer.PJRTBuffer <- function(x, ...) as.integer(without_dim(as_array(x)))

# The fresh result of as_array() without dim, dropped in place: `dim<-` would duplicate it
# (copying a view of a buffer's memory); as.double() and friends then return it as it is.
without_dim <- function(values) ffi_vector_drop_attribute(values, "dim")

#' @export
as.logical.PJRTBuffer <- function(x, ...) as.logical(as_array(x))

#' Shape of a buffer
#'
#' `shape()` returns the dimensions as an integer vector (`integer()` for a 0-d buffer).
#' `dim()` returns the same, except `NULL` for a 0-d buffer (as for an R vector), and
#' `length()` the number of elements.
#'
#' @param x A PJRTBuffer.
#' @param ... Unused.
#' @seealso [elt_type()], [device()], [pjrt_buffer()].
#' @return An integer vector.
#' @examples
#' shape(pjrt_buffer(matrix(1:6, nrow = 2)))
#' shape(pjrt_scalar(1))
#' @export
shape <- function(x, ...) UseMethod("shape")

#' @export
shape.PJRTBuffer <- function(x, ...) with_core(ffi_buffer_shape(x))

#' @export
dim.PJRTBuffer <- function(x) {
  dims <- with_core(ffi_buffer_shape(x))
  if (length(dims) == 0) NULL else dims
}

#' @export
length.PJRTBuffer <- function(x) {
  n <- prod(as.double(with_core(ffi_buffer_shape(x))))
  if (n <= .Machine$integer.max) as.integer(n) else n
}

# testthat::expect_equal() compares buffers by dtype, shape and values.
#' @exportS3Method waldo::compare_proxy
# The values are compared without dim (the shape is compared on its own, and waldo cannot
# compare double arrays of equal length but different dims). integer64 values are compared
# exactly as decimal strings: with a tolerance, waldo compares their bits as tiny doubles and
# finds any two equal. ui64 values of 2^63 or more all read as NA, so ui64 buffers are also
# compared by their bytes.
compare_proxy.PJRTBuffer <- function(x, path) {
  dtype <- with_core(ffi_buffer_dtype(x))
  values <- as_array(x, check = "ignore")
  dim(values) <- NULL
  if (inherits(values, "integer64")) values <- as.character(values)
  object <- list(dtype = dtype, shape = shape(x), values = values)
  if (dtype == "ui64") object$bytes <- as_raw(x, row_major = FALSE)
  list(object = object, path = paste0("as_array(", path, ")"))
}
