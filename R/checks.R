# Argument checks shared by the whole R layer, each worded once (choices go through rlang's
# arg_match0()).

is_string <- function(x) is.character(x) && length(x) == 1 && !is.na(x)

# One number that is not NA (integer64 is refused: it compares as a double only through bit64).
is_number <- function(x) {
  is.numeric(x) && !inherits(x, "integer64") && length(x) == 1 && !is.na(x)
}

is_whole_number <- function(x) is_number(x) && x == trunc(x)

# `what` completes "`arg` must be ..."; `allow_null` prefixes it with "NULL or ".
check_string <- function(x, arg, what = "a single string", allow_null = FALSE,
                         allow_empty = TRUE, call = caller_env()) {
  if (allow_null && is.null(x)) return(invisible(x))
  if (is_string(x) && (allow_empty || nzchar(x))) return(invisible(x))
  if (allow_null) what <- paste("NULL or", what)
  cli::cli_abort("{.arg {arg}} must be {what}, not {.obj_type_friendly {x}}.", call = call)
}

check_bool <- function(x, arg, call = caller_env()) {
  if (!is.logical(x) || length(x) != 1 || is.na(x)) {
    cli::cli_abort("{.arg {arg}} must be TRUE or FALSE.", call = call)
  }
  x
}

# A single number of at least `min`; `what` completes "`arg` must be ...".
check_number <- function(x, arg, what, min = -Inf, call = caller_env()) {
  if (!is_number(x) || x < min) {
    cli::cli_abort("{.arg {arg}} must be {what}, not {.obj_type_friendly {x}}.", call = call)
  }
  invisible(x)
}

# An argument renamed to upstream pjrt's name, whose old name still works: `dots` are the
# call's `...`; the old name is taken from there when the new one was not given. Anything
# else in `...` is an error naming it. Returns the value to use, or `value` unchanged.
renamed_argument <- function(value, given, dots, old, new, call = caller_env()) {
  labels <- names(dots) %||% rep("", length(dots))
  if (length(dots) == 1 && identical(labels, old)) {
    if (given) {
      cli::cli_abort("Give {.arg {new}} or its old name {.arg {old}}, not both.", call = call)
    }
    return(dots[[1]])
  }
  if (length(dots) > 0) {
    shown <- ifelse(labels == "", "an unnamed argument", paste0("`", labels, "`"))
    cli::cli_abort("Unused argument{?s}: {shown}.", call = call)
  }
  value
}
