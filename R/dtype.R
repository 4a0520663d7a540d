# Every fact the R layer uses about dtypes comes from the core's one table, read once per
# session (at load, through init_harray_classes()): R re-declares none of it.
dtype_cache <- new.env(parent = emptyenv())

# A list: `dtypes`, a data frame with one row per dtype (`name`, `r_type` as as_array()
# returns it, `zero_copy` when R vectors of that type share memory with the buffer, `harray`
# the HDataType name or NA), and `aliases`, the other spellings (a named character vector,
# spelling = name).
dtype_table <- function() {
  if (is.null(dtype_cache$table)) {
    core <- ffi_dtype_table()
    dtypes <- data.frame(core[c("name", "r_type", "zero_copy", "harray")])
    dtype_cache$table <- list(dtypes = dtypes, aliases = core$aliases)
  }
  dtype_cache$table
}

dtype_names <- function() dtype_table()$dtypes$name

dtype_aliases <- function() dtype_table()$aliases

# HDataType names and the dtypes behind them: c(Float32 = "f32", ...).
hdatatype_dtypes <- function() {
  dtypes <- dtype_table()$dtypes
  harray <- !is.na(dtypes$harray)
  out <- dtypes$name[harray]
  names(out) <- dtypes$harray[harray]
  out
}

# The R type as_array() returns for a dtype name ("logical", "integer", "integer64", ...);
# NA for anything else.
dtype_r_type <- function(dtype) {
  dtypes <- dtype_table()$dtypes
  dtypes$r_type[match(dtype, dtypes$name)]
}

# How the values R cannot tell from NA are written in messages: "-2147483648 (INT_MIN)".
na_sentinel_text <- function(dtype) {
  if (dtype == "i32") "-2147483648 (INT_MIN)" else "-9223372036854775808 (INT64_MIN)"
}

# The canonical dtype name for a string, a PJRTElementType or a tengen or xlamisc DataType.
as_dtype_name <- function(dtype, arg = "dtype", call = caller_env()) {
  if (inherits(dtype, c("PJRTElementType", "DataType"))) dtype <- as.character(dtype)
  check_string(dtype, arg, what = "a single string naming a dtype", call = call)
  valid <- dtype_names()
  aliases <- dtype_aliases()
  if (dtype %in% valid) return(dtype)
  if (dtype %in% names(aliases)) return(unname(aliases[[dtype]]))
  cli::cli_abort(c(
    "Unknown dtype {.val {dtype}}.",
    i = "Valid dtypes are {.val {valid}}."
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
print.PJRTElementType <- function(x, ...) print_formatted(x)

#' @export
Ops.PJRTElementType <- function(e1, e2) {
  check_equality_operator(.Generic, "Element types")
  canonical <- function(x) {
    name <- as.character(x)
    aliases <- dtype_aliases()
    if (is_string(name) && name %in% names(aliases)) name <- unname(aliases[[name]])
    name
  }
  get(.Generic)(canonical(e1), canonical(e2))
}
