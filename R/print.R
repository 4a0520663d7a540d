# print() and format() of PJRTBuffer objects, laid out by the core's printer.
#' Print a buffer
#'
#' `print()` writes a buffer the way the original pjrt package did; `format()` returns the
#' same lines as a character vector. The lines are made by the C++ core, which reads only
#' the elements it prints: printing a buffer of 10^8 elements is as fast as printing a small
#' one.
#'
#' @section Layout:
#' The first line is `PJRTBuffer ` and the last one the footer `[ CPUf32{2x3} ] ` (platform,
#' element type and dimensions; both lines end with a space). A 0-d buffer prints as one
#' cell, a 1-d buffer as a column, a 2-d buffer as a matrix, and a buffer of rank 3 or more
#' as a sequence of matrices over its last two dimensions, each introduced by a line such as
#' `(2,1,.,.) =` (1-based leading indices, the last one varying fastest) and separated by a
#' blank line. Every data line starts with a space; cells are right-aligned to a common
#' width.
#'
#' @section Numbers:
#' Integers print in full up to 6 digits, otherwise as `1.2346e+06`; `pred` prints `1`/`0`.
#' Floats share one style per printed matrix, chosen from the printed elements only:
#' integers (when every finite value is whole), fixed `%.4f` (when every non-zero magnitude
#' lies strictly between 1e-4 and 1e6), scientific `%.4e` for a single element, a common
#' power of ten printed once above the matrix (`1e-07 *`, cells then show the value divided
#' by it), or else scientific. `NaN`, `Inf` and `-Inf` print as `nan`, `inf`, `-inf`.
#' Complex numbers print as `re+imi`, both parts in the style of the matrix. `f16`, `bf16`,
#' `f8e4m3fn` and `f8e5m2` print like `f32`.
#'
#' @section Limits:
#' A matrix wider than `max_width` is printed in column chunks, each introduced by
#' `Columns a to b`; at least one column is always printed, so tiny widths give one column
#' per chunk. `max_rows` is a budget of data lines over the whole buffer and
#' `max_rows_slice` caps the rows of each matrix. When anything is left out, the line
#' ` ... [output was truncated, set max_rows = -1 to see all]` precedes the footer.
#' Negative limits (and `Inf`) mean no limit. The defaults come from the options
#' `pjrt.print_max_rows` (30), `pjrt.print_max_width` (85) and `pjrt.print_max_rows_slice`
#' (unset: the same as `max_rows`).
#'
#' @param x A PJRTBuffer.
#' @param max_rows The most data lines to print over the whole buffer; `-1` for all.
#' @param max_width The width of data lines in characters, including their leading space;
#'   negative for no limit.
#' @param max_rows_slice The most rows to print of each matrix; negative for no limit.
#'   Defaults to the option `pjrt.print_max_rows_slice`, else `max_rows`.
#' @param header Whether to print the `PJRTBuffer ` line.
#' @param footer `NULL` for the default footer, `""` for none, or a string to print in its
#'   place (followed by a space, as the default footer is).
#' @param ... Ignored.
#' @seealso [pjrt_buffer()], [as_array()], [str()][PJRTBuffer] for a one-line summary.
#' @return `print()` returns `x` invisibly; `format()` a character vector of lines.
#' @examples
#' pjrt_buffer(c(1, 2, 3, 4))
#' pjrt_buffer(matrix(1:6, nrow = 2))
#' pjrt_scalar(42, dtype = "f32")
#' pjrt_buffer(c(1.5e-7, 2.5e-7, 9e-7), dtype = "f64")
#' pjrt_buffer(1:24, dtype = "f32", shape = c(2, 3, 4))
#' print(pjrt_buffer(1:100), max_rows = 5)
#' format(pjrt_buffer(c(TRUE, FALSE)), header = FALSE, footer = "")
#' @export
print.PJRTBuffer <- function(x, max_rows = getOption("pjrt.print_max_rows", 30),
                             max_width = getOption("pjrt.print_max_width", 85),
                             max_rows_slice = getOption("pjrt.print_max_rows_slice", max_rows),
                             header = TRUE, footer = NULL, ...) {
  writeLines(format_buffer_lines(x, max_rows, max_width, max_rows_slice, header, footer))
  invisible(x)
}

#' @rdname print.PJRTBuffer
#' @export
format.PJRTBuffer <- function(x, max_rows = getOption("pjrt.print_max_rows", 30),
                              max_width = getOption("pjrt.print_max_width", 85),
                              max_rows_slice = getOption("pjrt.print_max_rows_slice", max_rows),
                              header = TRUE, footer = NULL, ...) {
  format_buffer_lines(x, max_rows, max_width, max_rows_slice, header, footer)
}

format_buffer_lines <- function(x, max_rows, max_width, max_rows_slice, header, footer,
                                call = caller_env()) {
  max_rows <- check_print_limit(max_rows, "max_rows", call)
  max_width <- check_print_limit(max_width, "max_width", call)
  max_rows_slice <- check_print_limit(max_rows_slice, "max_rows_slice", call)
  check_bool(header, "header", call = call)
  check_string(footer, "footer", allow_null = TRUE, call = call)
  with_core(ffi_buffer_format(x, max_rows, max_width, max_rows_slice, header, footer),
            call = call)
}

# A row or width limit: one whole number (negative or Inf for no limit), as a double.
check_print_limit <- function(value, arg, call = caller_env()) {
  if (!is.numeric(value) || inherits(value, "integer64") || length(value) != 1) {
    cli::cli_abort(
      "{.arg {arg}} must be a single whole number, not {.obj_type_friendly {value}}.",
      call = call
    )
  }
  if (is.na(value) || (is.finite(value) && value != trunc(value))) {
    cli::cli_abort(c(
      "{.arg {arg}} must be a whole number, not {value}.",
      i = "Use a negative number for no limit."
    ), call = call)
  }
  as.double(value)
}
