# Buffers as Arrow arrays through nanoarrow (the Arrow C data interface), and back.

# The Arrow type of each dtype that has one (bf16, the 8-bit floats and the complex types
# have none).
arrow_type_of_dtype <- c(
  pred = "bool", i8 = "int8", i16 = "int16", i32 = "int32", i64 = "int64",
  ui8 = "uint8", ui16 = "uint16", ui32 = "uint32", ui64 = "uint64",
  f16 = "half_float", f32 = "float", f64 = "double"
)

#' Buffers as Arrow arrays
#'
#' `nanoarrow::as_nanoarrow_array()` of a PJRTBuffer gives an Arrow array over the buffer's
#' memory, without a copy for a host buffer in R's memory order (a `pred` buffer is packed
#' into Arrow's bitmap, a copy); the array keeps the memory alive after the buffer is gone. A
#' 1-d buffer becomes a primitive array (`i8`..`ui64` as int8..uint64, `f16` as half_float,
#' `f32` as float, `f64` as double, `pred` as bool); a buffer of shape `c(d1, ..., dk)`
#' becomes an array of length `dk` of nested fixed-size lists, the innermost of size `d1`
#' (R's column-major order: the innermost lists are the columns); a 0-d buffer an array of
#' length 1. Zero extents are kept (a `c(0, 3)` buffer is an array of 3 lists of size 0).
#' `bf16`, `f8e4m3fn`, `f8e5m2`, `c64` and `c128` have no Arrow type and are an error.
#'
#' `pjrt_buffer()` of a `nanoarrow_array` is the inverse: a primitive array of one of these
#' types, or nested fixed-size lists of one, becomes a buffer sharing the array's memory (bool
#' is unpacked, a copy). Arrays with nulls are an error (buffers have no missing values), as
#' are other Arrow types (convert those with `nanoarrow::convert_array()` first) and arrays
#' longer than 2^31 - 1, the largest extent of a buffer.
#'
#' @param data A `nanoarrow_array`.
#' @param x A PJRTBuffer.
#' @param dtype `NULL` or the dtype the array's type gives (no conversion is done).
#' @param shape `NULL` or the shape the array's type and length give.
#' @param device `NULL` for the CPU, else the device to copy the buffer to.
#' @param schema Must be `NULL`: the schema follows from the buffer.
#' @param ... Unused.
#' @return A `nanoarrow_array`; a PJRTBuffer.
#' @name pjrt_arrow
#' @examplesIf requireNamespace("nanoarrow", quietly = TRUE)
#' b <- pjrt_buffer(matrix(c(1, 2, 3, 4, 5, 6), 2), dtype = "f64")
#' a <- nanoarrow::as_nanoarrow_array(b)
#' a
#' pjrt_buffer(a)
NULL

#' @rdname pjrt_arrow
#' @exportS3Method nanoarrow::as_nanoarrow_array
as_nanoarrow_array.PJRTBuffer <- function(x, ..., schema = NULL) {
  if (!is.null(schema)) {
    cli::cli_abort("{.arg schema} must be {.code NULL}: a buffer's Arrow type follows from its dtype.")
  }
  dtype <- with_core(ffi_buffer_dtype(x))
  type <- arrow_type_of_dtype[dtype]
  if (is.na(type)) {
    cli::cli_abort(c(
      "A {.val {dtype}} buffer has no Arrow type.",
      i = "Arrow arrays can hold {.val {names(arrow_type_of_dtype)}}."
    ))
  }
  dims <- shape(x)
  schema <- nanoarrow::na_type(type)
  for (size in dims[-length(dims)]) schema <- arrow_fixed_size_list(schema, size)
  holder <- with_core(ffi_buffer_to_arrow(x))
  array <- nanoarrow::nanoarrow_allocate_array()
  nanoarrow::nanoarrow_pointer_move(with_core(ffi_arrow_address(holder)), array)
  nanoarrow::nanoarrow_array_set_schema(array, schema)
  array
}

# A fixed-size list type of `size` items of `child`. Arrow allows size 0 (the lists of a
# buffer with a zero extent), which nanoarrow's na_fixed_size_list() refuses: that one is made
# as size 1 and its format string rewritten ("+w:0"; nanoarrow parses and validates it).
arrow_fixed_size_list <- function(child, size) {
  if (size > 0) return(nanoarrow::na_fixed_size_list(child, size))
  nanoarrow::nanoarrow_schema_modify(nanoarrow::na_fixed_size_list(child, 1L),
                                     list(format = "+w:0"))
}

#' @rdname pjrt_arrow
#' @export
pjrt_buffer.nanoarrow_array <- function(data, dtype = NULL, device = NULL, shape = NULL, ...) {
  layout <- arrow_layout(nanoarrow::infer_nanoarrow_schema(data))
  # Arrow arrays can be longer than a buffer's extents, which are R dims (below 2^31).
  if (data$length > .Machine$integer.max) {
    cli::cli_abort(c(
      "An Arrow array of length {format(data$length, big.mark = ',', scientific = FALSE)} cannot become a buffer.",
      i = "A buffer's extents are at most 2^31 - 1 (2,147,483,647), as R's dims are; slice the array first."
    ))
  }
  dims <- c(layout$sizes, data$length)
  if (!is.null(dtype) && as_dtype_name(dtype) != layout$dtype) {
    cli::cli_abort(
      "{.arg dtype} must be {.code NULL} or {.val {layout$dtype}} for this Arrow array, not {.val {as_dtype_name(dtype)}}."
    )
  }
  if (!is.null(shape) && !identical(as_shape(shape), as.integer(dims))) {
    cli::cli_abort("{.arg shape} must be {.code NULL} or the array's own shape ({dims}).")
  }
  buffer <- with_core(ffi_buffer_from_arrow(data, layout$dtype, as.integer(dims)))
  if (is.null(device)) buffer else copy_buffer(buffer, device)
}

# The dtype and the fixed-size list sizes (innermost first) of an Arrow schema.
arrow_layout <- function(schema) {
  sizes <- integer()
  parsed <- nanoarrow::nanoarrow_schema_parse(schema)
  while (identical(parsed$type, "fixed_size_list") && is.null(parsed$extension_name)) {
    sizes <- c(parsed$fixed_size, sizes)
    schema <- schema$children[[1]]
    parsed <- nanoarrow::nanoarrow_schema_parse(schema)
  }
  dtype <- names(arrow_type_of_dtype)[match(parsed$type, arrow_type_of_dtype)]
  if (!is.null(parsed$extension_name) || length(dtype) != 1 || is.na(dtype)) {
    cli::cli_abort(c(
      "An Arrow array of type {.val {parsed$extension_name %||% parsed$type}} cannot become a buffer.",
      i = "Buffers are made from arrays of {.val {unname(arrow_type_of_dtype)}}, or nested fixed-size lists of them."
    ))
  }
  list(dtype = dtype, sizes = as.integer(sizes))
}
