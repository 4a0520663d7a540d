# pjrt's objects answer the r-xla ecosystem's generics (shape(), dtype(), device(), as_array(),
# as_raw()), the ones anvl and the stablehlo package call: tengen's, and xlamisc's (>= 0.4.1),
# where the ecosystem is moving them. Both packages are only suggested (their releases need a
# newer R than some platforms pjrt serves), so the methods are registered lazily: the
# S3method(pkg::...) directives in NAMESPACE make R register them when that package's namespace
# loads, before or after pjrt's. naxes() and nelts() need no method: both packages compute them
# from shape().
#
# pjrt's own generics of the same names stay: they work without either package, and
# `pjrt::dtype()` keeps answering with a PJRTElementType. Through tengen or xlamisc, dtype()
# answers with that package's DataType, as the rest of its API (dtype_width(),
# is_dtype_float(), ...) expects.

#' @rawNamespace S3method(tengen::shape, PJRTBuffer, shape.PJRTBuffer)
#' @rawNamespace S3method(tengen::dtype, PJRTBuffer, tengen_dtype_of_buffer)
#' @rawNamespace S3method(tengen::device, PJRTBuffer, device.PJRTBuffer)
#' @rawNamespace S3method(tengen::device, PJRTDevice, device.PJRTDevice)
#' @rawNamespace S3method(tengen::device, PJRTLoadedExecutable, device.PJRTLoadedExecutable)
#' @rawNamespace S3method(tengen::as_array, PJRTBuffer, as_array.PJRTBuffer)
#' @rawNamespace S3method(tengen::as_array, PJRTArrayPromise, as_array_of_promise)
#' @rawNamespace S3method(tengen::as_raw, PJRTBuffer, as_raw.PJRTBuffer)
#' @rawNamespace S3method(xlamisc::shape, PJRTBuffer, shape.PJRTBuffer)
#' @rawNamespace S3method(xlamisc::dtype, PJRTBuffer, xlamisc_dtype_of_buffer)
#' @rawNamespace S3method(xlamisc::device, PJRTBuffer, device.PJRTBuffer)
#' @rawNamespace S3method(xlamisc::device, PJRTDevice, device.PJRTDevice)
#' @rawNamespace S3method(xlamisc::device, PJRTLoadedExecutable, device.PJRTLoadedExecutable)
#' @rawNamespace S3method(xlamisc::as_array, PJRTBuffer, as_array.PJRTBuffer)
#' @rawNamespace S3method(xlamisc::as_array, PJRTArrayPromise, as_array_of_promise)
#' @rawNamespace S3method(xlamisc::as_raw, PJRTBuffer, as_raw.PJRTBuffer)
NULL

tengen_dtype_of_buffer <- function(x, ...) dtype_of_buffer_in("tengen", x)

xlamisc_dtype_of_buffer <- function(x, ...) dtype_of_buffer_in("xlamisc", x)

# The buffer's dtype as `package`'s DataType.
dtype_of_buffer_in <- function(package, x) {
  as_dtype <- getExportedValue(package, "as_dtype")
  as_dtype(with_core(ffi_buffer_dtype(x)))
}

as_array_of_promise <- function(x, ...) value(x)
