# pjrt_buffer(), pjrt_empty() and their PJRTBuffer objects: creation from R vectors and queries.
#' Create a buffer
#'
#' `pjrt_buffer()` makes a buffer of an exact element type from R data, `pjrt_scalar()` a
#' 0-dimensional buffer from one value, and `pjrt_empty()` a buffer with unspecified
#' contents.
#'
#' @section Extractors:
#' * [shape()] the dimensions (`integer()` for a 0-d buffer); `dim()` and `length()` as for
#'   the R array.
#' * [dtype()] and [elt_type()] the element type, a `PJRTElementType` such as `<f32>`.
#' * [device()] the device holding the data and [platform()] its platform (`"cpu"`, `"cuda"`).
#'
#' @section Converters:
#' * [as_array()] the values as an R array with `dim = shape(x)` (a plain vector for a 0-d
#'   buffer); `as.array()`, `as.matrix()`, `as.vector()`, `as.double()`, `as.integer()`,
#'   `as.logical()` as for that array (see [PJRTBuffer] for the other base R functions).
#' * [as_raw()] the element bytes, in row-major or column-major order.
#' * [copy_buffer()] a copy on another device; [HArray]`$new_from_buffer()` a harmonium view
#'   of the same memory.
#'
#' @section Reading and Writing safetensors:
#' [pjrt_save_safetensors()] writes a named list of buffers to a safetensors file and
#' [pjrt_load_safetensors()] reads one back as a named list of buffers (memory-mapped, so
#' reading is cheap). Buffers also work with the safetensors package (framework `"pjrt"`).
#'
#' @section Scalars:
#' `pjrt_scalar(x)` makes a 0-dimensional buffer (shape `integer()`) from a single value: it
#' prints as one cell, `shape()` is `integer()`, `dim()` is `NULL` and `as_array()` returns a
#' plain length-1 vector. A 1-element vector given to `pjrt_buffer()` instead has shape `1`.
#' A 0-d PJRTBuffer given to `pjrt_scalar()` is returned as it is; a buffer of any other
#' shape is an error.
#'
#' @section Shape:
#' The shape defaults to `dim(data)`, else `length(data)`. A supplied `shape` may re-shape
#' data of the same element count (read in R's column-major order); the only recycling is of
#' a length-1 vector to any shape. Shapes may be given as doubles but must be whole,
#' non-negative and each below 2^31. A vector of 2^31 or more elements needs an explicit
#' shape, since no single dimension can hold its length.
#'
#' @section Conversion rules:
#' * Integer dtypes: doubles are truncated toward zero and the truncated value must fit the
#'   dtype (`255.7` fits `ui8`, `256` does not; `±Inf` never fits). A value that does not fit
#'   is an error naming the value, its position and the dtype: there is no wrap-around and
#'   no clamping, and no buffer is made.
#' * Missing values (`NA`, `NaN`) are errors at integer dtypes and `pred`, except where R's
#'   NA and the dtype share a bit pattern and the vector travels without a copy: integer NA
#'   at `i32` arrives as INT_MIN, `integer64` NA at `i64` as INT64_MIN. `check` decides what
#'   happens then: `"warn"` (default) warns with the count, `"error"` rejects them, and
#'   `"ignore"` skips the scan (creation is then O(1)). The logical spelling of the original
#'   pjrt package is accepted too: `check = TRUE` is `"error"`, `check = FALSE` is `"ignore"`.
#' * `pred` takes `TRUE`/`FALSE` and the numbers 0 and 1 only.
#' * Float dtypes take any number; missing values become NaN, values too large become Inf,
#'   and narrowing rounds to nearest, ties to even. Complex data only goes to `c64`/`c128`;
#'   real data goes to complex with a zero imaginary part.
#' * `f8e4m3fn` has no infinities: a value that would round beyond its largest finite value
#'   448 (a magnitude above 464, or `±Inf`) is an error naming the value and its position,
#'   as for the integer dtypes; missing values become NaN. `f8e5m2` follows the float rule
#'   (largest finite value 57344; beyond it, Inf).
#' * Double at `f64`, integer at `i32`, integer64 at `i64` and complex at `c128` are not
#'   copied: the buffer shares the vector's memory, keeps it alive and marks it not mutable,
#'   so modifying the vector in R afterwards copies it and never changes the buffer.
#'
#' @param data A logical, integer, double, complex, [bit64::integer64] or raw vector (or
#'   array), a PJRTBuffer, or an [HArray].
#' @param dtype The element type: one of `"pred"`, `"i8"`, `"i16"`, `"i32"`, `"i64"`,
#'   `"ui8"`, `"ui16"`, `"ui32"`, `"ui64"`, `"f16"`, `"bf16"`, `"f32"`, `"f64"`, `"c64"`,
#'   `"c128"`, `"f8e4m3fn"`, `"f8e5m2"` (aliases `"bool"`, `"i1"`, `"s8"`..`"s64"`,
#'   `"u8"`..`"u64"`, and MLIR's spellings `"f8E4M3FN"`, `"f8E5M2"`), a
#'   `PJRTElementType` or a tengen or xlamisc `DataType`. Defaults: logical `pred`, integer `i32`, double
#'   `f32`, complex `c64`, integer64 `i64`; required for raw data.
#' @param device `NULL` (the default device), a PJRTDevice, `"cpu"`, `"cuda"` or
#'   `"<platform>:<index>"`.
#' @param shape The dimensions (see the Shape section).
#' @param ... Only `check` (all methods) and `row_major` (raw data) are accepted.
#'   `check` says how missing values that travel without a copy are treated: `"warn"`
#'   (default), `"error"` or `"ignore"`; `TRUE` means `"error"` and `FALSE` `"ignore"`.
#' @param row_major For raw data, required: `TRUE` when the bytes are in C (row-major) order,
#'   `FALSE` when they are in R's column-major order.
#' @return A `PJRTBuffer` (see [PJRTBuffer] for what base R does with one).
#' @seealso [as_array()] to convert back, [print.PJRTBuffer()] for printing, [shape()],
#'   [elt_type()], [device()], [copy_buffer()], [pjrt_save_safetensors()], [HArray].
#' @examples
#' pjrt_buffer(c(1, 2, 3, 4))
#' pjrt_buffer(matrix(1:6, nrow = 2))
#' # A 3-d buffer prints as matrices over its last two dimensions
#' pjrt_buffer(array(1:12, dim = c(2, 2, 3)), dtype = "i16")
#' pjrt_buffer(2^40, dtype = "i64")
#' pjrt_buffer(c(1L, NA), check = FALSE) # NA stored as INT_MIN, silently
#' pjrt_scalar(42, dtype = "f32")
#' pjrt_buffer(as.raw(1:6), dtype = "ui8", shape = c(2, 3), row_major = TRUE)
#' # Memory with unspecified contents, e.g. to be filled by a program
#' e <- pjrt_empty("f32", c(2, 3))
#' shape(e)
#' try(pjrt_buffer(c(1, 256), dtype = "ui8"))
#' @export
pjrt_buffer <- function(data, dtype = NULL, device = NULL, shape = NULL, ...) {
  # The common call (a plain vector or integer64, no options) is checked and made in C++, with
  # only inlined tests around it in R (the tests and attr() that were here cost 4.5K of the
  # call's 20K instructions): the buffer (an object), or a plain list of it when missing values
  # were stored and must be warned about; NULL for anything else, which the methods check and
  # word.
  buffer <- .Call(`_pjrt_ffi_buffer_from_vector_common`, data, dtype, device, shape, ...length())
  if (is.object(buffer)) return(buffer)
  if (is.symbol(buffer)) abort_core_failure(environment())
  if (!is.null(buffer)) {
    buffer <- buffer[[1L]]
    return(warn_if_missing_stored(buffer, with_core(ffi_buffer_dtype(buffer)), environment()))
  }
  UseMethod("pjrt_buffer")
}

#' @export
pjrt_buffer.default <- function(data, dtype = NULL, device = NULL, shape = NULL, ...) {
  abort_unsupported_data(data, "pjrt_buffer")
}

#' @rdname pjrt_buffer
#' @export
pjrt_buffer.logical <- function(data, dtype = NULL, device = NULL, shape = NULL, ...) {
  buffer_from_vector(data, dtype %||% "pred", device, shape, list(...))
}

#' @rdname pjrt_buffer
#' @export
pjrt_buffer.integer <- function(data, dtype = NULL, device = NULL, shape = NULL, ...) {
  buffer_from_vector(data, dtype %||% "i32", device, shape, list(...))
}

#' @rdname pjrt_buffer
#' @export
pjrt_buffer.double <- function(data, dtype = NULL, device = NULL, shape = NULL, ...) {
  buffer_from_vector(data, dtype %||% "f32", device, shape, list(...))
}

#' @rdname pjrt_buffer
#' @export
pjrt_buffer.complex <- function(data, dtype = NULL, device = NULL, shape = NULL, ...) {
  buffer_from_vector(data, dtype %||% "c64", device, shape, list(...))
}

#' @rdname pjrt_buffer
#' @export
pjrt_buffer.integer64 <- function(data, dtype = NULL, device = NULL, shape = NULL, ...) {
  buffer_from_vector(data, dtype %||% "i64", device, shape, list(...))
}

#' @rdname pjrt_buffer
#' @export
pjrt_buffer.raw <- function(data, dtype = NULL, device = NULL, shape = NULL, ..., row_major) {
  buffer_from_raw(data, dtype, device, shape, row_major, list(...), missing(row_major))
}

#' @rdname pjrt_buffer
#' @export
pjrt_buffer.PJRTBuffer <- function(data, dtype = NULL, device = NULL, shape = NULL, ...) {
  dots <- list(...)
  check_dots_allowed(dots, "check")
  check_missing_mode(dots$check %||% "warn")
  # The buffer may be returned as it is: a donated, restored or forged one must be the error
  # every other use of it is, not handed back.
  with_core(ffi_buffer_dtype(data))
  if (!is.null(dtype) && elt_type(data) != as_dtype_name(dtype)) {
    cli::cli_abort(
      "{.arg data} is a buffer of dtype {.val {as.character(elt_type(data))}}; it cannot be re-typed to {.val {as_dtype_name(dtype)}}."
    )
  }
  if (!is.null(shape) && !identical(as_shape(shape), shape(data))) {
    cli::cli_abort("{.arg shape} must match the buffer's shape when {.arg data} is a PJRTBuffer.")
  }
  if (is.null(device)) data else copy_buffer(data, device)
}

#' @rdname pjrt_buffer
#' @export
pjrt_scalar <- function(data, dtype = NULL, device = NULL, ...) UseMethod("pjrt_scalar")

#' @export
pjrt_scalar.default <- function(data, dtype = NULL, device = NULL, ...) {
  abort_unsupported_data(data, "pjrt_scalar")
}

#' @export
pjrt_scalar.logical <- function(data, dtype = NULL, device = NULL, ...) {
  scalar_from_vector(data, dtype %||% "pred", device, list(...))
}

#' @export
pjrt_scalar.integer <- function(data, dtype = NULL, device = NULL, ...) {
  scalar_from_vector(data, dtype %||% "i32", device, list(...))
}

#' @export
pjrt_scalar.double <- function(data, dtype = NULL, device = NULL, ...) {
  scalar_from_vector(data, dtype %||% "f32", device, list(...))
}

#' @export
pjrt_scalar.complex <- function(data, dtype = NULL, device = NULL, ...) {
  scalar_from_vector(data, dtype %||% "c64", device, list(...))
}

#' @export
pjrt_scalar.integer64 <- function(data, dtype = NULL, device = NULL, ...) {
  scalar_from_vector(data, dtype %||% "i64", device, list(...))
}

#' @export
pjrt_scalar.raw <- function(data, dtype = NULL, device = NULL, ...) {
  # One element has no byte order, so `row_major` is optional here.
  dots <- list(...)
  check_dots_allowed(dots, c("check", "row_major"))
  if (!is.null(dots$row_major)) check_bool(dots$row_major, "row_major")
  check <- dots[intersect(names(dots), "check")]
  buffer_from_raw(data, dtype, device, integer(), TRUE, check, FALSE)
}

#' @export
pjrt_scalar.PJRTBuffer <- function(data, dtype = NULL, device = NULL, ...) {
  dims <- shape(data)
  if (length(dims) != 0) {
    cli::cli_abort(c(
      "{.fn pjrt_scalar} needs a 0-d buffer.",
      x = "{.arg data} has {describe_buffer(data)}.",
      i = "Use {.fn pjrt_buffer} for buffers of any shape."
    ))
  }
  pjrt_buffer(data, dtype = dtype, device = device, ...)
}

#' @rdname pjrt_buffer
#' @export
pjrt_empty <- function(dtype, shape, device = NULL) {
  if (missing(dtype)) cli::cli_abort("{.arg dtype} must be provided.")
  if (missing(shape)) cli::cli_abort("{.arg shape} must be provided.")
  with_core(ffi_buffer_empty(as_dtype_name(dtype), as_shape(shape), device_spec(device)))
}

buffer_from_vector <- function(data, dtype, device, shape, dots, call = caller_env()) {
  check_dots_allowed(dots, "check", call = call)
  check <- check_missing_mode(dots$check %||% "warn", call = call)
  dtype <- as_dtype_name(dtype, call = call)
  shape <- if (is.null(shape)) default_shape(data, call) else as_shape(shape, call = call)
  buffer <- with_core(
    ffi_buffer_from_vector(data, inherits(data, "integer64"), dtype, shape, check,
                           device_spec(device, call)),
    call
  )
  warn_if_missing_stored(buffer, dtype, call)
}

warn_if_missing_stored <- function(buffer, dtype, call) {
  missing <- na_count(buffer)
  if (missing > 0) {
    attr(buffer, "pjrt_na_count") <- NULL  # an external pointer: changed in place, not copied
    warn_missing_stored(missing, dtype, call)
  }
  buffer
}

scalar_from_vector <- function(data, dtype, device, dots, call = caller_env()) {
  if (length(data) != 1) cli::cli_abort("{.arg data} must have length 1.", call = call)
  buffer_from_vector(data, dtype, device, integer(), dots, call)
}

buffer_from_raw <- function(data, dtype, device, shape, row_major, dots, row_major_missing,
                            call = caller_env()) {
  check_dots_allowed(dots, "check", call = call)
  check_missing_mode(dots$check %||% "warn", call = call)
  if (is.null(dtype)) cli::cli_abort("{.arg dtype} must be provided for raw data.", call = call)
  if (is.null(shape)) cli::cli_abort("{.arg shape} must be provided for raw data.", call = call)
  if (row_major_missing) {
    cli::cli_abort(c(
      "{.arg row_major} must be provided for raw data.",
      i = "Use {.code TRUE} for bytes in C (row-major) order, {.code FALSE} for R's column-major order."
    ), call = call)
  }
  with_core(
    ffi_buffer_from_raw(data, as_dtype_name(dtype, call = call), as_shape(shape, call = call),
                        check_bool(row_major, "row_major", call), device_spec(device, call)),
    call
  )
}

warn_missing_stored <- function(count, dtype, call) {
  if (count == 0) return(invisible())
  sentinel <- na_sentinel_text(dtype)
  cli::cli_warn(c(
    "{count} missing value{?s} {?was/were} stored as {sentinel}.",
    i = "Use {.code check = \"error\"} to reject missing values, or {.code check = \"ignore\"} to store them silently."
  ), call = call)
}

abort_unsupported_data <- function(data, fn, call = caller_env()) {
  accepted <- if (fn == "pjrt_scalar") {
    "Supply a logical, integer, double, complex, integer64 or raw value, or a 0-d PJRTBuffer."
  } else {
    "Supply a logical, integer, double, complex, integer64 or raw vector, a PJRTBuffer or an HArray."
  }
  cli::cli_abort(c(
    "{.fn {fn}} cannot make a buffer from {.obj_type_friendly {data}} (class {.cls {class(data)}}).",
    i = accepted
  ), call = call)
}
