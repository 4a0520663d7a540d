# pjrt's objects answer tengen's generics (shape(), dtype(), device(), as_array(), as_raw()),
# the ones anvl and the stablehlo package call, whenever tengen is installed. tengen is only
# suggested (its CRAN release needs a newer R than some platforms pjrt serves), so the methods
# are registered lazily: the S3method(tengen::...) directives in NAMESPACE make R register them
# when tengen's namespace loads, before or after pjrt's.
#
# pjrt's own generics of the same names stay: they work without tengen, and `pjrt::dtype()`
# keeps answering with a PJRTElementType. Through tengen, dtype() answers with tengen's
# DataType, as the rest of tengen's API (dtype_width(), is_dtype_float(), ...) expects.

#' @rawNamespace S3method(tengen::shape, PJRTBuffer, shape.PJRTBuffer)
#' @rawNamespace S3method(tengen::dtype, PJRTBuffer, tengen_dtype_of_buffer)
#' @rawNamespace S3method(tengen::device, PJRTBuffer, device.PJRTBuffer)
#' @rawNamespace S3method(tengen::device, PJRTDevice, device.PJRTDevice)
#' @rawNamespace S3method(tengen::device, PJRTLoadedExecutable, device.PJRTLoadedExecutable)
#' @rawNamespace S3method(tengen::as_array, PJRTBuffer, as_array.PJRTBuffer)
#' @rawNamespace S3method(tengen::as_array, PJRTArrayPromise, tengen_as_array_of_promise)
#' @rawNamespace S3method(tengen::as_raw, PJRTBuffer, as_raw.PJRTBuffer)
NULL

tengen_dtype_of_buffer <- function(x, ...) {
  tengen_as_dtype <- getExportedValue("tengen", "as_dtype")
  tengen_as_dtype(with_core(ffi_buffer_dtype(x)))
}

tengen_as_array_of_promise <- function(x, ...) value(x)
