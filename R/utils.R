# Results that count values stored or read as something else (missing values stored as
# sentinels, values R reads as NA) carry the count as attribute "pjrt_na_count", absent when
# zero; callers read it here and drop the attribute.
na_count <- function(x) {
  count <- attr(x, "pjrt_na_count", exact = TRUE)
  if (is.null(count)) 0 else count
}

# print() for classes whose format() is one line.
print_formatted <- function(x) {
  cat(format(x), "\n", sep = "")
  invisible(x)
}

# Classes that only compare (`what` is their plural) refuse every other operator.
check_equality_operator <- function(op, what) {
  if (!op %in% c("==", "!=")) {
    cli::cli_abort("{what} only support {.code ==} and {.code !=}, not {.code {op}}.", call = NULL)
  }
}

# The allowed `...` arguments of buffer constructors; anything else is an error naming it.
check_dots_allowed <- function(dots, allowed, call = caller_env()) {
  if (length(dots) == 0) return(invisible())
  labels <- names(dots) %||% rep("", length(dots))
  unnamed <- labels == ""
  labels[unnamed] <- vapply(dots[unnamed], function(d) deparse(d, nlines = 1)[[1]], "")
  unused <- labels[unnamed | !labels %in% allowed]
  if (length(unused) > 0) {
    cli::cli_abort("Unused argument(s): {paste(unused, collapse = ', ')}", call = call)
  }
  invisible()
}

check_missing_mode <- function(check, call = caller_env()) {
  if (identical(check, "warn")) return(check)  # the default, first: as_array() per call
  if (is.character(check) && length(check) == 1L && !is.na(check) &&
      (check == "warn" || check == "error" || check == "ignore")) {
    return(check)
  }
  # Upstream's spellings: its development version writes "err"; its releases TRUE and FALSE.
  if (identical(check, "err")) return("error")
  if (isTRUE(check)) return("error")
  if (isFALSE(check)) return("ignore")
  if (!is_string(check)) {
    cli::cli_abort(
      "{.arg check} must be {.str warn}, {.str error}, {.str ignore}, TRUE or FALSE, not {.obj_type_friendly {check}}.",
      call = call
    )
  }
  arg_match0(check, c("warn", "error", "ignore"), arg_nm = "check", error_call = call)
}

# Validates a shape given as integer or double: whole, non-negative, each below 2^31.
as_shape <- function(shape, arg = "shape", call = caller_env()) {
  if (!is.numeric(shape) || inherits(shape, "integer64")) {
    cli::cli_abort("{.arg {arg}} must be a numeric vector, not {.obj_type_friendly {shape}}.",
                   call = call)
  }
  bad <- is.na(shape) | shape < 0 | shape >= 2^31 | shape != trunc(shape)
  if (any(bad)) {
    value <- format(shape[bad][[1]], scientific = FALSE)
    cli::cli_abort(c(
      "{.arg {arg}} must contain whole, non-negative numbers below 2^31.",
      x = "Entry {which(bad)[[1]]} is {value}."
    ), call = call)
  }
  as.integer(shape)
}

default_shape <- function(data, call = caller_env()) {
  dims <- dim(data)
  if (!is.null(dims)) return(as.integer(dims))
  n <- length(data)
  if (n >= 2^31) {
    cli::cli_abort(c(
      "Data of length {format(n, big.mark = ',')} needs an explicit {.arg shape}.",
      i = "Each dimension must be below 2^31; for example use {.code shape = c(k, n / k)}."
    ), call = call)
  }
  as.integer(n)
}
