# Device objects are interned by their spec ("cpu:0"), so the same device is always the same
# R object. A device is a locked environment holding `platform` and `id`: one value to c(),
# list(), identical() and unique() (a list would be split into its fields by c()), read with
# `$` and never modified.
device_cache <- new.env(parent = emptyenv())

new_device <- function(spec) {
  cached <- device_cache[[spec]]
  if (!is.null(cached)) return(cached)
  parts <- strsplit(spec, ":", fixed = TRUE)[[1]]
  device <- new.env(parent = emptyenv())
  device$platform <- parts[[1]]
  device$id <- as.integer(parts[[2]])
  lockEnvironment(device, bindings = TRUE)
  class(device) <- "PJRTDevice"
  assign(spec, device, envir = device_cache)
  device
}

# The core's device spec for a device argument: NULL (the default device), a PJRTDevice,
# a platform name or "<platform>:<index>".
device_spec <- function(device, call = caller_env()) {
  if (is.null(device)) return("")
  if (inherits(device, "PJRTDevice")) return(paste0(device$platform, ":", device$id))
  if (is_string(device)) return(device)
  cli::cli_abort(
    "{.arg device} must be NULL, a PJRTDevice or a string such as {.str cpu} or {.str cpu:1}, not {.obj_type_friendly {device}}.",
    call = call
  )
}

#' Devices
#'
#' `pjrt_device()` returns a device from a spec: `NULL` for the default device (the first
#' device of the platform named by the environment variable `PJRT_PLATFORM`, else `"cpu"`),
#' a platform name (`"cpu"`, `"cuda"`) or `"<platform>:<index>"` with a 0-based index.
#' [devices()] lists the devices of a platform; `device()` and `platform()` tell where a
#' buffer lives, and `platform()` without an argument names the default platform. The same
#' device is always the same R object (`identical()` is `TRUE`, `unique()` keeps one), a
#' single value to `c()` and `list()`, and devices compare with `==`.
#'
#' @section CPU devices:
#' The environment variable `PJRT_CPU_DEVICE_COUNT` (default 1) sets how many CPU devices
#' exist. They share host memory; they exist so that multi-device code can be written and
#' tested anywhere. Each buffer still owns its memory, so [copy_buffer()] between CPU devices
#' copies.
#'
#' @section CUDA devices:
#' `"cuda"` and `"cuda:<index>"` place buffers in the memory of NVIDIA GPUs. The CUDA driver
#' library (`libcuda.so.1`, installed with the NVIDIA driver) is loaded when CUDA is first
#' used; no CUDA toolkit is needed to build or install pjrt. The environment variable
#' `PJRT_CUDA_DRIVER_PATH` names another driver library; it is read once per R session, as is
#' the outcome of loading the driver. Where there is no driver or GPU, any use of `"cuda"` is
#' an error that says why, and everything else works as usual.
#'
#' Values are converted on the host by the same rules as for the CPU (see [pjrt_buffer()]),
#' then copied to the GPU once; [as_array()], [as_raw()] and printing copy them back.
#' [copy_buffer()] moves buffers between any two devices, GPU to GPU directly. Each GPU is used
#' through its primary context, which it shares with other CUDA libraries in the session.
#' When a GPU runs out of memory, pjrt runs R's garbage collector once (which frees buffers
#' that are no longer referenced) and tries again; if that fails too, the error says how much
#' was requested and how much is free.
#'
#' @param device A device spec or PJRTDevice (`pjrt_device()`; its old name `x` still
#'   works).
#' @param x A buffer or device (`device()`, `platform()`; `platform()` also takes a device
#'   spec, or nothing).
#' @param ... Unused (`pjrt_device()`: only the old name `x` of `device`).
#' @return A `PJRTDevice`; `platform()` a string.
#' @seealso [devices()] to list them, [copy_buffer()] to move buffers, [pjrt_buffer()] and its
#'   `device` argument, [as_pjrt_device()] and [pjrt_client()].
#' @examples
#' pjrt_device()
#' pjrt_device("cpu:0")
#' platform(pjrt_buffer(1))
#' platform()
#' try(pjrt_buffer(1, device = "cuda"))
#' @export
pjrt_device <- function(device = NULL, ...) {
  device <- renamed_argument(device, !missing(device), list(...), "x", "device")
  new_device(with_core(ffi_device_resolve(device_spec(device))))
}

#' @rdname pjrt_device
#' @export
device <- function(x, ...) {
  # A buffer's device, the common call (once per op in generated code), answers without S3
  # dispatch, a second closure call or inherits() (a closure too): the C function tells a
  # buffer from anything else (NULL), 1.5 -> 0.9-1.0 us a call.
  found <- .Call(`_pjrt_ffi_buffer_device`, x, device_cache)
  if (is.environment(found)) return(found)
  if (!is.null(found)) return(new_device(with_core(found)))
  UseMethod("device")
}

#' @export
device.PJRTBuffer <- function(x, ...) buffer_device(x)

buffer_device <- function(x) {
  found <- .Call(`_pjrt_ffi_buffer_device`, x, device_cache)
  if (is.environment(found)) found else new_device(with_core(found))
}

#' @export
device.PJRTDevice <- function(x, ...) x

#' @rdname pjrt_device
#' @export
platform <- function(x = NULL, ...) UseMethod("platform")

#' @export
platform.NULL <- function(x, ...) with_core(ffi_default_platform())

#' @export
platform.character <- function(x, ...) platform(pjrt_device(x))

#' @export
platform.PJRTDevice <- function(x, ...) x$platform

#' @export
platform.PJRTBuffer <- function(x, ...) platform(device(x))

#' @export
as.character.PJRTDevice <- function(x, ...) {
  kind <- if (x$platform == "cpu") "CpuDevice" else "CudaDevice"
  paste0(kind, "(id=", x$id, ")")
}

#' @export
format.PJRTDevice <- function(x, ...) paste0("<", as.character(x), ">")

#' @export
print.PJRTDevice <- function(x, ...) print_formatted(x)

# `==` and `!=` answer without the group generic's checks, in one call to C: the same device is
# the same R object, and fields decide for a device read back from a file.
#' @export
`==.PJRTDevice` <- function(e1, e2) .Call(`_pjrt_ffi_devices_equal`, e1, e2)

#' @export
`!=.PJRTDevice` <- function(e1, e2) !.Call(`_pjrt_ffi_devices_equal`, e1, e2)

#' @export
Ops.PJRTDevice <- function(e1, e2) {
  check_equality_operator(.Generic, "Devices")
  same <- .Call(`_pjrt_ffi_devices_equal`, e1, e2)
  if (.Generic == "==") same else !same
}

#' Copy a buffer to a device
#'
#' Returns `buffer` itself when it already lives on `device`, else a copy there. Copies work between
#' any two devices: CPU to GPU, GPU to CPU, GPU to GPU and between CPU devices.
#'
#' @seealso [pjrt_device()] for the devices and the CUDA platform.
#' @param buffer A PJRTBuffer (its old name `x` still works).
#' @param device A device (see [pjrt_device()]).
#' @param ... Only the old name `x` of `buffer`.
#' @return A PJRTBuffer on `device`.
#' @examples
#' b <- pjrt_buffer(1:3)
#' identical(copy_buffer(b, "cpu"), b)
#' @export
copy_buffer <- function(buffer, device, ...) {
  # The common call, a buffer already on the device it names, answers at once.
  if (...length() == 0L && !missing(buffer) && !missing(device) &&
      .Call(`_pjrt_ffi_buffer_on_device`, buffer, device, device_cache)) {
    return(buffer)
  }
  arg <- if (missing(buffer) && identical(...names(), "x")) "x" else "buffer"
  buffer <- renamed_argument(if (!missing(buffer)) buffer, !missing(buffer), list(...), "x",
                             "buffer")
  if (!inherits(buffer, "PJRTBuffer")) {
    cli::cli_abort("{.arg {arg}} must be a PJRTBuffer, not {.obj_type_friendly {buffer}}.")
  }
  target <- pjrt_device(device)
  if (device(buffer) == target) return(buffer)
  with_core(ffi_buffer_copy_to(buffer, device_spec(target)))
}

# Free and total bytes of a device's memory (host memory for CPU devices), for tests and
# diagnostics.
device_memory <- function(device = NULL) {
  values <- with_core(ffi_device_memory(device_spec(device)))
  c(free = values[[1]], total = values[[2]])
}
