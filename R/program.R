# Program text: pjrt_program() reads StableHLO (MLIR text) from a string or a file.

#' Create a program
#'
#' `pjrt_program()` holds the text of a StableHLO program, ready for [pjrt_compile()]. The
#' text is MLIR as written by JAX's export (`jax.export`, `exported.mlir_module()`), by the
#' `stablehlo` R package or by hand: an optional `module` around one or more `func.func`,
#' with the entry point `@main`. Nothing is parsed until the program is compiled.
#'
#' @param src The program text: a string, or a character vector of lines (joined with
#'   newlines, so the output of [readLines()] can be passed as is).
#' @param path The path of a file holding the program text. Give exactly one of `src` and
#'   `path`. It must be a regular file (or a link to one): a directory, FIFO, device or socket
#'   is an error, found without opening it.
#' @param format `"mlir"` (the default), StableHLO in MLIR text. `"hlo"` (a binary
#'   `HloModuleProto`) is not supported by this runtime and is an error.
#' @return A `PJRTProgram`: printing it shows its format and size in bytes, then the first
#'   lines of the text.
#' @seealso [pjrt_compile()] to compile it, [pjrt_execute()] to run it.
#' @examples
#' src <- "
#' func.func @main(%x: tensor<2xf32>, %y: tensor<2xf32>) -> tensor<2xf32> {
#'   %0 = stablehlo.add %x, %y : tensor<2xf32>
#'   return %0 : tensor<2xf32>
#' }"
#' program <- pjrt_program(src)
#' program
#' path <- system.file("programs", "jax_mlp.mlir", package = "pjrt")
#' pjrt_program(path = path)
#' @export
pjrt_program <- function(src = NULL, path = NULL, format = c("mlir", "hlo")) {
  format <- check_program_format(format)
  if (is.null(src) == is.null(path)) {
    cli::cli_abort("Give exactly one of {.arg src} and {.arg path}.")
  }
  code <- if (is.null(src)) read_program_file(path) else program_text(src)
  structure(list(code = code, format = format), class = "PJRTProgram")
}

check_program_format <- function(format, call = caller_env()) {
  if (!is.character(format) || length(format) < 1 || anyNA(format)) {
    cli::cli_abort("{.arg format} must be {.str mlir}, not {.obj_type_friendly {format}}.",
                   call = call)
  }
  format <- arg_match0(format[[1]], c("mlir", "hlo"), arg_nm = "format", error_call = call)
  if (format == "hlo") {
    cli::cli_abort(c(
      "{.code format = \"hlo\"} (a binary HloModuleProto) is not supported by this runtime.",
      i = "Programs are StableHLO in MLIR text: use {.code format = \"mlir\"}."
    ), call = call)
  }
  format
}

program_text <- function(src, call = caller_env()) {
  if (!is.character(src) || length(src) == 0 || anyNA(src)) {
    cli::cli_abort(
      "{.arg src} must be a string or a character vector of lines without missing values, not {.obj_type_friendly {src}}.",
      call = call
    )
  }
  enc2utf8(paste(src, collapse = "\n"))
}

read_program_file <- function(path, call = caller_env()) {
  path <- check_path(path, call)
  if (!file.exists(path)) {
    cli::cli_abort("Program file {.path {path}} does not exist.", call = call)
  }
  if (dir.exists(path)) {
    cli::cli_abort("Program file {.path {path}} is a directory, not a file.", call = call)
  }
  # Read by the core, which refuses a FIFO, device or socket before opening it (reading one
  # with readBin() would wait for a writer, or never end).
  bytes <- with_core(ffi_program_read_file(path), call)
  if (any(bytes == as.raw(0))) {
    cli::cli_abort("Program file {.path {path}} is not text (it contains NUL bytes).",
                   call = call)
  }
  text <- rawToChar(bytes)
  Encoding(text) <- "UTF-8"
  text
}

#' @rdname pjrt_program
#' @param x A `PJRTProgram`.
#' @param n The number of lines of the text to show (default 10 for `format()`, 5 for
#'   `print()`).
#' @param ... Ignored.
#' @details `format()` of a program is one string: the line
#'   `PJRTProgram(format=mlir, code_size=<bytes>)`, then the first `n` lines of the text, then
#'   `...` when lines were left out, separated by newlines. `print()` writes it and ends it
#'   with a space and a newline, as upstream pjrt does.
#' @export
format.PJRTProgram <- function(x, ..., n = 10) {
  if (!is.numeric(n) || length(n) != 1 || is.na(n) || n < 0) {
    cli::cli_abort("{.arg n} must be a non-negative number, not {.obj_type_friendly {n}}.")
  }
  lines <- strsplit(x$code, "\n", fixed = TRUE)[[1]]
  shown <- utils::head(lines, n)
  header <- paste0("PJRTProgram(format=", x$format, ", code_size=",
                   nchar(x$code, type = "bytes"), ")")
  paste(c(header, shown, if (length(lines) > length(shown)) "..."), collapse = "\n")
}

#' @rdname pjrt_program
#' @export
print.PJRTProgram <- function(x, ..., n = 5) {
  cat(format(x, n = n), "\n")  # a space before the newline, as upstream pjrt prints it
  invisible(x)
}
