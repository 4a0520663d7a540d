# A plain printer until the exact layout of the spec (section 2.7) lands.

#' @export
print.PJRTBuffer <- function(x, ...) {
  cat("PJRTBuffer \n")
  print(as_array(x, check = "ignore"))
  cat(sprintf("[ %s%s{%s} ] \n", toupper(platform(x)), ffi_buffer_dtype(x),
              paste(shape(x), collapse = "x")))
  invisible(x)
}
