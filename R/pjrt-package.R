# The package's documentation page and its native-routine registration.
#' pjrt: typed n-dimensional buffers for R
#'
#' Buffers of exact machine types made from R vectors under strict conversion rules,
#' read back into R, printed, sliced through the harmonium compatible [HArray] interface and
#' saved as safetensors. The engine is the C++17 library ndbuf in `src/core`.
#'
#' @section Options:
#' * `pjrt.altrep` (`TRUE`): [as_array()] returns `f64` and `i32` buffers in R's memory order
#'   as read-only views of their memory instead of copies; `FALSE` always copies.
#' * `pjrt.print_max_rows` (30), `pjrt.print_max_width` (85), `pjrt.print_max_rows_slice`:
#'   defaults of [print.PJRTBuffer()].
#'
#' @keywords internal
#' @useDynLib pjrt, .registration = TRUE
#' @importFrom rlang %||% caller_env arg_match0
#' @importFrom bit64 as.integer64
"_PACKAGE"
