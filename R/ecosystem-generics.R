# pjrt's objects answer the r-xla ecosystem's generics (shape(), dtype(), device(), as_array(),
# as_raw()), the ones anvl and the stablehlo package call: tengen's, and xlamisc's (>= 0.4.1),
# where the ecosystem is moving them. Both packages are only suggested (their releases need a
# newer R than some platforms pjrt serves), so the methods are registered when that package's
# namespace loads, before or after pjrt's (.onLoad, when_package_loads()), and only for the
# generics that version of the package has: releases of each exist without some of them, and
# an S3method(pkg::generic, ...) directive for a generic a loaded package lacks would stop pjrt
# from loading. naxes() and nelts() need no method: both packages compute them from shape().
#
# pjrt's own generics of the same names stay: they work without either package, and
# `pjrt::dtype()` keeps answering with a PJRTElementType. Through tengen or xlamisc, dtype()
# answers with that package's DataType, as the rest of its API (dtype_width(),
# is_dtype_float(), ...) expects.

# generic, class, method (a function of pjrt's; dtype's is per package).
ecosystem_methods <- function(package) {
  list(
    list("shape", "PJRTBuffer", shape.PJRTBuffer),
    list("dtype", "PJRTBuffer", function(x, ...) dtype_of_buffer_in(package, x)),
    list("device", "PJRTBuffer", device.PJRTBuffer),
    list("device", "PJRTDevice", device.PJRTDevice),
    list("device", "PJRTLoadedExecutable", device.PJRTLoadedExecutable),
    list("as_array", "PJRTBuffer", as_array.PJRTBuffer),
    list("as_array", "PJRTArrayPromise", as_array_of_promise),
    list("as_raw", "PJRTBuffer", as_raw.PJRTBuffer)
  )
}

register_ecosystem_methods <- function(package) {
  namespace <- asNamespace(package)
  for (m in ecosystem_methods(package)) {
    if (exists(m[[1]], envir = namespace, mode = "function", inherits = FALSE)) {
      registerS3method(m[[1]], m[[2]], m[[3]], envir = namespace)
    }
  }
  invisible()
}

hook_ecosystem_generics <- function() {
  for (package in c("tengen", "xlamisc")) {
    local({
      p <- package
      when_package_loads(p, function() register_ecosystem_methods(p))
    })
  }
}

unhook_ecosystem_generics <- function() {
  for (package in c("tengen", "xlamisc")) unhook_package(package)
}

# The buffer's dtype as `package`'s DataType.
dtype_of_buffer_in <- function(package, x) {
  as_dtype <- getExportedValue(package, "as_dtype")
  as_dtype(with_core(ffi_buffer_dtype(x)))
}

as_array_of_promise <- function(x, ...) value(x)
