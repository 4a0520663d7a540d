# Custom-call targets: handlers written in C against pjrt's header, registered under the name
# programs call them by.

# The handlers registered from R, by target name (their external pointers kept alive here).
custom_call_handlers <- new.env(parent = emptyenv())

#' Register a custom-call handler
#'
#' @description
#' Makes `stablehlo.custom_call @target_name(...)` run a handler written in C or C++. The
#' handler is a function of type `pjrt_custom_call_handler`, declared in the header
#' `pjrt_custom_call.h` that pjrt installs (its folder is
#' `system.file("include", package = "pjrt")`; a package using it lists pjrt in
#' `LinkingTo`). The header documents what the handler receives: the operands and results as
#' data pointer, dtype code, rank, dims and layout, and the entries of the op's
#' `backend_config`.
#'
#' Programs look their targets up when they are compiled, so register a handler before
#' compiling the programs that call it; an executable compiled earlier keeps the handler it
#' was compiled with. A program calling a target that is not registered fails to compile with
#' an error naming the target and its position.
#'
#' pjrt has built-in targets, which cannot be replaced: `print_tensor` (prints its operand
#' like `print()` of a buffer, with `backend_config` entries `print_header` and
#' `print_footer`; the default footer is upstream's, such as `[ f32{2,2} ]`), and the LAPACK-backed `geqrf`, `orgqr`, `lu`, `svd` and `eigh`
#' (batched over leading dims; f32, f64, c64, c128), and the LAPACK targets of JAX's CPU
#' export (`lapack_spotrf_ffi` and the rest; see `vignette("programs")`).
#'
#' @param target_name The name programs call the handler by (a single non-empty string).
#' @param handler An external pointer whose address is the handler function, or, as in
#'   upstream pjrt, a list of such pointers named by platform (`list(host = ptr)`), of which
#'   the entry for the CPU (`"host"` or `"cpu"`) is used: programs run on the CPU.
#' @param .package The name of the package registering the handler, or `NULL`. When given,
#'   the handler is removed when that package is unloaded (its code goes with it).
#' @return `NULL`, invisibly.
#' @export
pjrt_register_custom_call <- function(target_name, handler, .package = NULL) {
  check_string(target_name, "target_name", "a single non-empty string", allow_empty = FALSE)
  check_string(.package, ".package", allow_null = TRUE, allow_empty = FALSE)
  pointer <- custom_call_pointer(handler)
  with_core(ffi_custom_call_register(target_name, pointer))
  custom_call_handlers[[target_name]] <- list(handler = pointer, package = .package)
  if (!is.null(.package)) {
    setHook(packageEvent(.package, "onUnload"),
            function(...) unregister_custom_calls(.package), action = "append")
  }
  invisible(NULL)
}

# The CPU handler of `handler`: the pointer itself or the "host" / "cpu" entry of a list.
# pjrt's own objects (buffers, executables, ...) are external pointers too, never handlers;
# any other pointer must point into a loaded library's code, which the core checks.
custom_call_pointer <- function(handler, call = caller_env()) {
  if (typeof(handler) == "externalptr") return(handler_pointer(handler, call))
  if (is.list(handler) && !is.null(names(handler)) && all(nzchar(names(handler)))) {
    host <- names(handler) %in% c("host", "cpu")
    if (sum(host) != 1) {
      cli::cli_abort(c(
        "{.arg handler} must have one entry for the CPU, named {.val host} or {.val cpu}.",
        i = "Programs run on the CPU; the names given were {.val {names(handler)}}."
      ), call = call)
    }
    pointer <- handler[[which(host)]]
    if (typeof(pointer) == "externalptr") return(handler_pointer(pointer, call))
  }
  cli::cli_abort(paste(
    "{.arg handler} must be an external pointer to a handler function, or a list of them",
    "named by platform, not {.obj_type_friendly {handler}}."
  ), call = call)
}

handler_pointer <- function(pointer, call) {
  pjrt_class <- grep("^PJRT|^HArray", class(pointer), value = TRUE)
  if (length(pjrt_class) > 0) {
    cli::cli_abort(c(
      "{.arg handler} must be an external pointer to a handler function, not a {.cls {pjrt_class[[1]]}}.",
      i = "A handler is the address of a C function, such as one from {.fn getNativeSymbolInfo}."
    ), call = call)
  }
  pointer
}

# Removes the handlers `package` registered (its onUnload hook).
unregister_custom_calls <- function(package) {
  for (name in ls(custom_call_handlers)) {
    if (identical(custom_call_handlers[[name]]$package, package)) {
      ffi_custom_call_unregister(name)
      rm(list = name, envir = custom_call_handlers)
    }
  }
  invisible(NULL)
}

# Removes one handler registered from R; FALSE when there was none.
unregister_custom_call <- function(target_name) {
  removed <- isTRUE(with_core(ffi_custom_call_unregister(target_name)))
  if (exists(target_name, envir = custom_call_handlers, inherits = FALSE)) {
    rm(list = target_name, envir = custom_call_handlers)
  }
  removed
}

# Every target programs can call: a data frame of name and builtin.
custom_call_targets <- function() {
  as.data.frame(with_core(ffi_custom_call_targets()))
}
