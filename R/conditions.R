# Errors from the C++ core as classed R conditions, and the one path every core call takes.

#' Conditions raised by pjrt
#'
#' @description
#' An error that pjrt's engine raises is an R error condition with a class saying what kind of
#' failure it was, so code can react to one kind and let the others through. Every such error
#' inherits from `pjrt_error`, and from exactly one of:
#'
#' * `pjrt_error_argument`: a value pjrt was given is not valid there (a malformed program, a
#'   dtype or shape that does not fit the data, an object that is not a live PJRTBuffer,
#'   HArray or PJRTLoadedExecutable).
#' * `pjrt_error_conversion`: a value the target dtype cannot hold (for example 300 as `"ui8"`,
#'   or a missing value with `check = "error"`).
#' * `pjrt_error_index`: an index or slice bound outside an axis.
#' * `pjrt_error_format`: a malformed file, or file contents R cannot hold (safetensors).
#' * `pjrt_error_io`: the operating system refused a read or write (a missing file, a
#'   directory given as a file, a file changed on disk under a buffer that maps it).
#' * `pjrt_error_device`: a missing platform, device or driver, or memory on the wrong device.
#' * `pjrt_error_memory`: an allocation failed: device memory, or host memory the engine
#'   allocates for itself ("Not enough memory to complete this call: ..."; host memory that R
#'   cannot allocate for a result is R's own error).
#' * `pjrt_error_internal`: a failure the engine did not expect and so cannot word more
#'   precisely than "An internal error stopped this call."; please report the call.
#'
#' Failures inside the engine's C++ standard library are given a kind and a sentence of their
#' own rather than the library's text: a failed allocation (`std::bad_alloc`) or a size past
#' the largest array (`std::length_error`) is `pjrt_error_memory`, `std::out_of_range` is
#' `pjrt_error_index`, `std::invalid_argument` and `std::overflow_error` are
#' `pjrt_error_argument`, and any other exception is `pjrt_error_internal`. Apart from the
#' memory errors these are gaps in pjrt's own checks, which the message asks you to report.
#' The library's text is kept in the condition's field `pjrt_detail` (`NULL` for errors that
#' pjrt worded itself), for the report.
#'
#' A user interrupt (Ctrl-C) during a long operation is not an error: it arrives as R's own
#' `interrupt` condition, which `tryCatch(error = )` and `try()` do not catch.
#'
#' Errors found while checking arguments in R (a wrong type, an unknown option) are ordinary
#' `rlang_error` conditions without these classes. In all cases the message is the same
#' whichever class the error has; each of these conditions is also an `rlang_error`.
#'
#' @name pjrt_conditions
#' @examples
#' tryCatch(
#'   pjrt_buffer(c(1, 300), dtype = "ui8"),
#'   pjrt_error_conversion = function(e) "does not fit"
#' )
#' tryCatch(
#'   pjrt_load_safetensors(tempfile()),
#'   pjrt_error = function(e) class(e)
#' )
NULL

# Runs a call into the C++ core and raises its failure as a cli error from `call`, so users see
# which of their calls failed. Bindings do not raise core errors themselves: they return the
# marker symbol `pjrt_core_failure` and keep the message and kind for ffi_take_core_failure(),
# so a successful call costs one test here and no condition handler. The message is passed as
# data, never as a cli template, and the condition is classed by the core's error kind
# (?pjrt_conditions). Errors the R layer raised itself while `expr`'s arguments were evaluated
# (dtype, shape, device checks) are already worded and pass through unchanged, keeping their
# bullets. A core loop stopped by the user (Ctrl-C) is re-raised as a real interrupt, which
# `tryCatch(error = )` and `try()` do not catch, as R's own interrupts are.
with_core <- function(expr, call = caller_env()) {
  if (is.symbol(expr)) abort_core_failure(call)
  expr
}

abort_core_failure <- function(call) {
  failure <- ffi_take_core_failure()
  kind <- failure[[1]]
  if (identical(kind, "interrupted")) rlang::interrupt()
  local_light_errors()
  message <- failure[[2]]
  detail <- if (nzchar(failure[[3]])) failure[[3]]
  error <- tryCatch(cli::cli_abort("{message}", call = call, pjrt_detail = detail),
                    error = identity)
  # "rlang_error" stays first: printed condition headers (and snapshot tests) name the first
  # class, and they read the same as before the kinds were added.
  class(error) <- c("rlang_error", core_error_class(kind), "error", "condition")
  stop(error)
}

# The classes of an error from the core: one per kind, all under "pjrt_error"; an error noted
# without a kind is a plain "pjrt_error" (the bindings give every failure a kind).
core_error_class <- function(kind) {
  if (identical(kind, "")) return("pjrt_error")
  c(paste0("pjrt_error_", kind), "pjrt_error")
}

# rlang records a backtrace with every error, and summarises each value that do.call() inlined
# into a call on the stack (about 0.6 ms a value, in call_zap_inline()); naming the call in the
# message walks all its arguments again (error_call(), 6 us a value). An error from
# pjrt_execute() called with 100,000 buffers took 51 s to arrive. While a call on the stack has
# more than 1,000 arguments, errors raised from `frame` carry no backtrace (rlang's own
# switch, the option it sets while it records one).
local_light_errors <- function(frame = parent.frame()) {
  if (max(0L, lengths(as.list(sys.calls()))) > 1000L) {
    rlang::local_options(`rlang:::disable_trace_capture` = TRUE, .frame = frame)
  }
  invisible()
}

# For a function called with thousands of arguments: errors raised while it runs carry no
# backtrace, and name `call`, the function's call without arguments (as rlang prints a call
# with inlined values anyway), which the function passes on as `call`.
light_error_call <- function(call, frame = parent.frame()) {
  rlang::local_options(`rlang:::disable_trace_capture` = TRUE, .frame = frame)
  call
}
