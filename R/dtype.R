dtype_names <- c(
  "pred", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64",
  "f16", "bf16", "f32", "f64", "c64", "c128"
)
dtype_aliases <- c(
  i1 = "pred", bool = "pred", s8 = "i8", s16 = "i16", s32 = "i32", s64 = "i64",
  u8 = "ui8", u16 = "ui16", u32 = "ui32", u64 = "ui64"
)

# The canonical dtype name for a string, a PJRTElementType or a tengen DataType.
as_dtype_name <- function(dtype, arg = "dtype", call = caller_env()) {
  if (inherits(dtype, c("PJRTElementType", "DataType"))) dtype <- as.character(dtype)
  if (!is.character(dtype) || length(dtype) != 1 || is.na(dtype)) {
    cli::cli_abort(
      "{.arg {arg}} must be a single string naming a dtype, not {.obj_type_friendly {dtype}}.",
      call = call
    )
  }
  if (dtype %in% dtype_names) return(dtype)
  if (dtype %in% names(dtype_aliases)) return(unname(dtype_aliases[[dtype]]))
  cli::cli_abort(c(
    "Unknown dtype {.val {dtype}}.",
    i = "Valid dtypes are {.val {dtype_names}}."
  ), call = call)
}

new_element_type <- function(name) structure(name, class = "PJRTElementType")

#' Element types
#'
#' `elt_type()` returns the element type of a buffer as a `PJRTElementType`, which prints
#' as `<f32>`, converts to its name with `as.character()` and compares with `==` / `!=`
#' against another element type or a dtype name (aliases such as `"bool"` included).
#' `dtype()` is the same as `elt_type()` for buffers.
#'
#' @param x A [PJRTBuffer][pjrt_buffer].
#' @param ... Unused.
#' @seealso [shape()], [device()], [pjrt_buffer()] for the dtype names.
#' @return A `PJRTElementType`.
#' @examples
#' b <- pjrt_buffer(1:3)
#' elt_type(b)
#' elt_type(b) == "i32"
#' @export
elt_type <- function(x) UseMethod("elt_type")

#' @export
elt_type.PJRTBuffer <- function(x) new_element_type(with_core(ffi_buffer_dtype(x)))

#' @rdname elt_type
#' @export
dtype <- function(x, ...) UseMethod("dtype")

#' @export
dtype.PJRTBuffer <- function(x, ...) elt_type(x)

#' @export
as.character.PJRTElementType <- function(x, ...) unclass(x)

#' @export
format.PJRTElementType <- function(x, ...) paste0("<", unclass(x), ">")

#' @export
print.PJRTElementType <- function(x, ...) {
  cat(format(x), "\n", sep = "")
  invisible(x)
}

#' @export
Ops.PJRTElementType <- function(e1, e2) {
  if (!.Generic %in% c("==", "!=")) {
    op <- .Generic
    cli::cli_abort("Element types only support {.code ==} and {.code !=}, not {.code {op}}.",
                   call = NULL)
  }
  canonical <- function(x) {
    name <- as.character(x)
    if (length(name) == 1 && !is.na(name) && name %in% names(dtype_aliases)) {
      name <- unname(dtype_aliases[[name]])
    }
    name
  }
  get(.Generic)(canonical(e1), canonical(e2))
}
