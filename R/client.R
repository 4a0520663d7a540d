# Clients: one per platform, standing for pjrt's built-in runtime there. They exist so that
# code written for plugin-based runtimes (pjrt_client(), devices(client), as_pjrt_device())
# runs unchanged; everything else takes devices or platform names directly.

client_cache <- new.env(parent = emptyenv())

runtime_platforms <- c("cpu", "cuda")

# A client is a locked environment holding its platform, interned per platform, so the same
# client is always the same R object (as devices are).
new_client <- function(platform) {
  cached <- client_cache[[platform]]
  if (!is.null(cached)) return(cached)
  client <- new.env(parent = emptyenv())
  client$platform <- platform
  lockEnvironment(client, bindings = TRUE)
  class(client) <- "PJRTClient"
  assign(platform, client, envir = client_cache)
  client
}

# A platform name argument: one of the runtime's platforms, else an error naming them.
check_platform_name <- function(platform, arg = "platform", call = caller_env()) {
  if (!is_string(platform)) {
    cli::cli_abort(
      "{.arg {arg}} must be a platform name such as {.str cpu}, not {.obj_type_friendly {platform}}.",
      call = call
    )
  }
  if (!platform %in% runtime_platforms) {
    cli::cli_abort(c(
      "Invalid platform {.str {platform}}.",
      i = "pjrt's runtime has the platforms {.and {.str {runtime_platforms}}}."
    ), call = call)
  }
  platform
}

# A platform is usable when its devices can be listed: always for the CPU; for CUDA when the
# driver loads and sees a GPU (the error says why not).
check_platform_usable <- function(platform, call = caller_env()) {
  with_core(ffi_devices(platform), call)
  invisible(platform)
}

platform_usable <- function(platform) {
  result <- ffi_devices(platform)
  if (is.symbol(result)) {
    ffi_take_core_failure()  # drops the kept failure: here it only means "no"
    return(FALSE)
  }
  length(result) > 0
}

#' Clients
#'
#' @description
#' A `PJRTClient` stands for pjrt's built-in runtime on one platform (`"cpu"` or `"cuda"`).
#' Runtimes that load a plugin need a client to create buffers and compile programs; here
#' every function takes a device or a platform name directly, and clients exist so that code
#' written for such runtimes works unchanged. There is one client per platform: asking again
#' returns the same object.
#'
#' `pjrt_client()` returns the client of a platform (by default the platform named by the
#' environment variable `PJRT_PLATFORM`, else `"cpu"`); asking for `"cuda"` where CUDA does
#' not work is an error that says why. `as_pjrt_client()` returns a client as it is, and
#' makes one from a platform name or `NULL`. `platform()` of a client names its platform and
#' [devices()] lists its devices.
#'
#' @section Client options:
#' The only option is `cpu_device_count` for the CPU client. The number of CPU devices is
#' the environment variable `PJRT_CPU_DEVICE_COUNT` (default 1), read whenever devices are
#' listed, so the option cannot change it: it is accepted when it agrees with the current
#' count, and is otherwise an error that says how to set the variable.
#'
#' @param platform A platform name, `"cpu"` or `"cuda"`, or `NULL` for the default platform.
#' @param ... Client options, named (see the section Client options).
#' @param x A `PJRTClient`, a platform name or `NULL` (`as_pjrt_client()`); a `PJRTClient`
#'   (the methods).
#' @return A `PJRTClient`.
#' @seealso [pjrt_plugin()] for the runtime's description, [pjrt_device()] for devices.
#' @examples
#' client <- pjrt_client()
#' client
#' platform(client)
#' devices(client)
#' identical(as_pjrt_client("cpu"), client)
#' try(pjrt_client("tpu"))
#' @export
pjrt_client <- function(platform = NULL, ...) {
  platform <- platform %||% with_core(ffi_default_platform())
  check_platform_name(platform)
  check_client_options(platform, list(...))
  check_platform_usable(platform)
  new_client(platform)
}

check_client_options <- function(platform, options, call = caller_env()) {
  if (length(options) == 0) return(invisible())
  labels <- names(options) %||% rep("", length(options))
  known <- if (platform == "cpu") "cpu_device_count" else character()
  unknown <- which(!labels %in% known)
  if (length(unknown) > 0) {
    label <- labels[[unknown[[1]]]]
    cli::cli_abort(c(
      if (nzchar(label)) "Unknown client option {.arg {label}} for platform {.str {platform}}."
      else "Client options must be named.",
      i = if (length(known) > 0) "The {.str {platform}} client takes {.arg {known}}."
      else "The {.str {platform}} client takes no options."
    ), call = call)
  }
  check_cpu_device_count(options[["cpu_device_count"]], call)
}

check_cpu_device_count <- function(count, call = caller_env()) {
  if (!is_whole_number(count) || count < 1) {
    cli::cli_abort(
      "{.arg cpu_device_count} must be a single whole number of at least 1, not {.obj_type_friendly {count}}.",
      call = call
    )
  }
  current <- length(with_core(ffi_devices("cpu"), call))
  if (count != current) {
    cli::cli_abort(c(
      "{.arg cpu_device_count} is {count}, but this session has {current} CPU device{?s}.",
      i = "The number of CPU devices is the environment variable {.envvar PJRT_CPU_DEVICE_COUNT}; set it with {.code Sys.setenv(PJRT_CPU_DEVICE_COUNT = {count})}."
    ), call = call)
  }
  invisible()
}

#' @rdname pjrt_client
#' @export
as_pjrt_client <- function(x) {
  if (inherits(x, "PJRTClient")) return(x)
  if (is.null(x) || is_string(x)) return(pjrt_client(x))
  cli::cli_abort(
    "{.arg x} must be a PJRTClient, a platform name such as {.str cpu} or NULL, not {.obj_type_friendly {x}}."
  )
}

#' @rdname pjrt_client
#' @export
platform.PJRTClient <- function(x, ...) x$platform

#' @rdname pjrt_client
#' @export
as.character.PJRTClient <- function(x, ...) x$platform

#' @rdname pjrt_client
#' @export
format.PJRTClient <- function(x, ...) paste0("<PJRTClient:", x$platform, ">")

#' @rdname pjrt_client
#' @export
print.PJRTClient <- function(x, ...) print_formatted(x)

#' Convert to a device
#'
#' `as_pjrt_device()` returns a device as it is and makes one from anything that names one:
#' `NULL` (the default device), a platform name (its first device), `"<platform>:<index>"`
#' (0-based), or a `PJRTClient` (its first device). It is [pjrt_device()] under the name
#' code written for plugin-based runtimes uses.
#'
#' @param x A `PJRTDevice`, a device spec, a `PJRTClient` or `NULL`.
#' @return A `PJRTDevice`.
#' @seealso [pjrt_device()], [pjrt_client()].
#' @examples
#' as_pjrt_device("cpu")
#' as_pjrt_device(pjrt_client("cpu"))
#' identical(as_pjrt_device(NULL), pjrt_device())
#' try(as_pjrt_device(1))
#' @export
as_pjrt_device <- function(x) {
  if (inherits(x, "PJRTDevice")) return(x)
  if (inherits(x, "PJRTClient")) return(devices(x)[[1]])
  if (is.null(x) || is_string(x)) return(pjrt_device(x))
  cli::cli_abort(
    "{.arg x} must be a PJRTDevice, a PJRTClient, a device spec such as {.str cpu:0} or NULL, not {.obj_type_friendly {x}}."
  )
}

#' List devices
#'
#' `devices()` lists the devices of a platform, of a [client][pjrt_client()] or of a compiled
#' program, each the interned `PJRTDevice` that [pjrt_device()] returns for it (so
#' `identical(devices("cpu")[[1]], pjrt_device("cpu:0"))`). A platform with no usable
#' devices (`"cuda"` without a driver or GPU) is an error that says why.
#'
#' @param x `NULL` (the default platform), a platform name (`"cpu"`, `"cuda"`), a
#'   `PJRTClient`, or a `PJRTLoadedExecutable` (the device it runs on).
#' @param ... Unused; `devices()` also takes the platform by its old name, `platform`.
#' @return A list of `PJRTDevice`s.
#' @seealso [pjrt_device()], [pjrt_client()].
#' @examples
#' devices()
#' devices("cpu")
#' devices(pjrt_client("cpu"))
#' @export
devices <- function(x = NULL, ...) UseMethod("devices")

#' @rdname devices
#' @export
devices.default <- function(x = NULL, ...) {
  arg <- if (identical(...names(), "platform")) "platform" else "x"
  x <- renamed_argument(x, !is.null(x), list(...), "platform", "x")
  if (!is.null(x) && !is_string(x)) {
    cli::cli_abort(
      "{.arg {arg}} must be NULL, a platform name such as {.str cpu}, a PJRTClient or a PJRTLoadedExecutable, not {.obj_type_friendly {x}}."
    )
  }
  lapply(with_core(ffi_devices(x %||% "")), new_device)
}

#' @rdname devices
#' @export
devices.PJRTClient <- function(x, ...) devices(x$platform)

#' @rdname devices
#' @export
devices.PJRTLoadedExecutable <- function(x, ...) list(device(x))
