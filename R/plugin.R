# The runtime as a "plugin": pjrt computes with its own built-in engine, so there is nothing to
# load or download. These functions describe that engine under the names that code written
# for plugin-based runtimes calls, and answer their questions truthfully.

plugin_cache <- new.env(parent = emptyenv())

new_plugin <- function(platform) {
  cached <- plugin_cache[[platform]]
  if (!is.null(cached)) return(cached)
  plugin <- new.env(parent = emptyenv())
  plugin$platform <- platform
  lockEnvironment(plugin, bindings = TRUE)
  class(plugin) <- "PJRTPlugin"
  assign(platform, plugin, envir = plugin_cache)
  plugin
}

#' The built-in runtime as a plugin
#'
#' @description
#' Runtimes built on XLA load a PJRT plugin (a shared library downloaded per platform) before
#' they can compute. pjrt's runtime is part of the package, so there is nothing to load or
#' download; these functions describe it under the same names, so code written for such
#' runtimes runs unchanged.
#'
#' * `pjrt_plugin()` returns the `PJRTPlugin` of a platform (`"cpu"` or `"cuda"`): one
#'   object per platform. A platform that does not work here (`"cuda"` without a driver or
#'   GPU) is an error that says why; an unknown name is an error listing the platforms.
#' * `as_pjrt_plugin()` returns a plugin as it is, or the plugin of a platform name.
#' * `plugin_attributes()` describes the runtime: `platform`, `runtime` (`"ndbuf"`, the
#'   engine), `pjrt_version` (this package's version), `program_formats` (`"mlir"`:
#'   StableHLO text) and `devices` (how many devices the platform has now).
#' * `plugin_client_create()` returns the platform's [client][pjrt_client()].
#' * `plugins_downloaded()` is `TRUE` when every platform named works here: the CPU always,
#'   CUDA where the NVIDIA driver loads and sees a GPU. Unknown names are `FALSE`.
#' * `install_pjrt()` installs nothing: it says so, and which platforms are ready.
#'   `cuda = TRUE` asks for CUDA too, and is an error saying why when CUDA does not work
#'   (pjrt cannot install an NVIDIA driver); `NULL` includes CUDA when it works.
#'
#' @param platform A platform name, `"cpu"` or `"cuda"`; `NULL` for the default platform
#'   (the environment variable `PJRT_PLATFORM`, else `"cpu"`). For `plugin_client_create()`,
#'   `NULL` means the plugin's platform; another platform than the plugin's is an error.
#' @param x,plugin A `PJRTPlugin` or a platform name.
#' @param options A named list of client options (see [pjrt_client()]).
#' @param platforms A character vector of platform names, or `NULL` for the default platform.
#' @param cuda `TRUE`, `FALSE` or `NULL` (include CUDA when it works).
#' @param ... Ignored.
#' @return `pjrt_plugin()`, `as_pjrt_plugin()`: a `PJRTPlugin`. `plugin_attributes()`: a
#'   named list. `plugin_client_create()`: a `PJRTClient`. `plugins_downloaded()`: `TRUE` or
#'   `FALSE`. `install_pjrt()`: the names of the ready platforms, invisibly.
#' @seealso [pjrt_client()], [pjrt_device()] and its sections on CPU and CUDA devices.
#' @examples
#' plugin <- pjrt_plugin("cpu")
#' plugin
#' plugin_attributes(plugin)
#' plugin_client_create(plugin, "cpu")
#' plugins_downloaded()
#' plugins_downloaded(c("cpu", "tpu"))
#' install_pjrt(cuda = FALSE)
#' @export
pjrt_plugin <- function(platform = NULL) {
  platform <- platform %||% with_core(ffi_default_platform())
  check_platform_name(platform)
  check_platform_usable(platform)
  new_plugin(platform)
}

#' @rdname pjrt_plugin
#' @export
as_pjrt_plugin <- function(x) to_plugin(x)

# A PJRTPlugin from `x` (a plugin or a platform name); errors name `arg` and `call`.
to_plugin <- function(x, arg = "x", call = caller_env()) {
  if (inherits(x, "PJRTPlugin")) return(x)
  if (is_string(x)) {
    check_platform_name(x, arg, call)
    check_platform_usable(x, call)
    return(new_plugin(x))
  }
  cli::cli_abort(
    "{.arg {arg}} must be a PJRTPlugin or a platform name such as {.str cpu}, not {.obj_type_friendly {x}}.",
    call = call
  )
}

#' @rdname pjrt_plugin
#' @export
plugin_attributes <- function(plugin) {
  plugin <- to_plugin(plugin, "plugin")
  list(
    platform = plugin$platform,
    runtime = "ndbuf",
    pjrt_version = as.character(utils::packageVersion("pjrt")),
    program_formats = "mlir",
    devices = length(with_core(ffi_devices(plugin$platform)))
  )
}

#' @rdname pjrt_plugin
#' @export
plugin_client_create <- function(plugin, platform = NULL, options = list()) {
  plugin <- to_plugin(plugin, "plugin")
  platform <- platform %||% plugin$platform
  check_platform_name(platform)
  if (!identical(platform, plugin$platform)) {
    cli::cli_abort(
      "{.arg platform} is {.str {platform}}, but {.arg plugin} is the {.str {plugin$platform}} plugin."
    )
  }
  if (!is.list(options)) {
    cli::cli_abort("{.arg options} must be a named list, not {.obj_type_friendly {options}}.")
  }
  do.call(pjrt_client, c(list(platform), options))
}

#' @rdname pjrt_plugin
#' @export
plugins_downloaded <- function(platforms = NULL) {
  if (is.null(platforms)) {
    default <- ffi_default_platform()
    if (is.symbol(default)) {
      ffi_take_core_failure()  # PJRT_PLATFORM names no platform: nothing works under it
      return(FALSE)
    }
    platforms <- default
  }
  if (!is.character(platforms) || anyNA(platforms)) {
    cli::cli_abort(
      "{.arg platforms} must be NULL or a character vector of platform names, not {.obj_type_friendly {platforms}}."
    )
  }
  all(vapply(platforms, function(p) p %in% runtime_platforms && platform_usable(p), TRUE))
}

#' @rdname pjrt_plugin
#' @export
install_pjrt <- function(cuda = NULL) {
  if (!is.null(cuda) && !(is.logical(cuda) && length(cuda) == 1 && !is.na(cuda))) {
    cli::cli_abort("{.arg cuda} must be TRUE, FALSE or NULL, not {.obj_type_friendly {cuda}}.")
  }
  if (isTRUE(cuda)) {
    failure <- tryCatch(check_platform_usable("cuda"), error = identity)
    if (inherits(failure, "error")) {
      cli::cli_abort(c(
        "CUDA does not work here, and pjrt has nothing to install that would change that.",
        x = "{conditionMessage(failure)}",
        i = "CUDA needs the NVIDIA driver (libcuda.so.1) and a GPU; nothing else."
      ))
    }
  }
  platforms <- c("cpu", if (!isFALSE(cuda) && platform_usable("cuda")) "cuda")
  cli::cli_inform(c(
    v = "Nothing to install: pjrt's runtime is built into the package.",
    i = "Ready: {.str {platforms}}."
  ))
  invisible(platforms)
}

#' @rdname pjrt_plugin
#' @export
print.PJRTPlugin <- function(x, ...) {
  cat("<PJRTPlugin:", x$platform, ">\n", sep = "")
  invisible(x)
}

#' HLO of a program (not available)
#'
#' Runtimes built on XLA turn a StableHLO program into XLA's HLO and optimise it, and
#' `inspect_hlo()` shows them the HLO before and after. pjrt's runtime does not use XLA: it
#' parses, verifies and plans the StableHLO program itself, so there is no HLO, and
#' `inspect_hlo()` is an error that says so (after checking its arguments, so a wrong
#' argument is reported as such). `XLA_FLAGS` has no effect on pjrt. To see what a program
#' compiles to, use [inspect_plan()] on the [pjrt_compile()] result: the steps the runtime runs,
#' with the fused ones and the ops each runs.
#'
#' @param program A `PJRTProgram` from [pjrt_program()].
#' @param device A device (see [pjrt_device()]) or `NULL`.
#' @return Never returns: always an error.
#' @seealso [inspect_plan()], [pjrt_compile()].
#' @examples
#' program <- pjrt_program("func.func @main(%x: tensor<f32>) -> tensor<f32> {
#'   return %x : tensor<f32>
#' }")
#' try(inspect_hlo(program))
#' @export
inspect_hlo <- function(program, device = NULL) {
  if (!inherits(program, "PJRTProgram")) {
    cli::cli_abort("{.arg program} must be a PJRTProgram, not {.obj_type_friendly {program}}.")
  }
  if (!is.null(device)) pjrt_device(device)
  cli::cli_abort(c(
    "There is no HLO to inspect: pjrt runs StableHLO programs on its own runtime, not through XLA.",
    i = "{.envvar XLA_FLAGS} dump options have no effect here.",
    i = "{.code inspect_plan(pjrt_compile(program))} shows what the runtime runs."
  ))
}
