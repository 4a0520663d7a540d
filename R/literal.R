#' Elements as StableHLO literal text
#'
#' `format_buffer()` spells each element of a buffer the way StableHLO `dense<...>` literals
#' write it, for code that embeds buffers in program text (as upstream pjrt's function of the
#' same name does). Floats are in scientific notation with the significant digits that
#' round-trip their dtype (17 for `f64`, 9 for `f32`, 5 for `f16`, 4 for `bf16`, 3 for
#' `f8e4m3fn`, 2 for `f8e5m2`), so parsing
#' the text gives back the same bits; NaN and the infinities are written as hex bit patterns
#' (`0x7FC00000`, `0x7F800000` and `0xFF800000` for `f32`; every NaN as the quiet NaN);
#' integers in decimal (unsigned 64-bit values in full); `pred` as `true` / `false`; complex
#' numbers as `(re, im)`.
#'
#' @param buffer A PJRTBuffer.
#' @return A character array with the buffer's dims (a plain string for a 0-d buffer), each
#'   element's text at that element's position.
#' @seealso [format()][print.PJRTBuffer] for the printed layout.
#' @examples
#' format_buffer(pjrt_buffer(c(1.5, 2.5, 3.5), dtype = "f32"))
#' format_buffer(pjrt_buffer(matrix(c(TRUE, FALSE, TRUE, TRUE), 2)))
#' format_buffer(pjrt_scalar(NaN))
#' @export
format_buffer <- function(buffer) {
  if (!inherits(buffer, "PJRTBuffer")) {
    cli::cli_abort("{.arg buffer} must be a PJRTBuffer, not {.obj_type_friendly {buffer}}.")
  }
  out <- with_core(ffi_buffer_format_literal(buffer))
  dims <- shape(buffer)
  if (length(dims) > 0) dim(out) <- dims
  out
}
