# The package's documentation page and its native-routine registration.
#' pjrt: typed n-dimensional buffers for R
#'
#' Buffers of exact machine types made from R vectors under strict conversion rules,
#' read back into R, printed, sliced through the harmonium compatible [HArray] interface and
#' saved as safetensors. The engine is the C++17 library ndbuf in `src/core`.
#'
#' @keywords internal
#' @useDynLib pjrt, .registration = TRUE
#' @importFrom rlang %||% caller_env arg_match0
#' @importFrom bit64 as.integer64
"_PACKAGE"
