# all.equal() for PJRTBuffer and HArray: dtype, shape, then the values with base R's tolerance.

#' @rdname PJRTBuffer
#' @method all.equal PJRTBuffer
#' @export
all.equal.PJRTBuffer <- function(target, current, ..., tolerance = sqrt(.Machine$double.eps)) {
  check_tolerance(tolerance)
  if (!inherits(current, "PJRTBuffer")) {
    return(paste0("target is PJRTBuffer, current is ", data.class(current)))
  }
  dtypes <- c(as.character(elt_type(target)), as.character(elt_type(current)))
  differences <- compare_layout(dtypes[[1]], dtypes[[2]], shape(target), shape(current))
  if (identical(shape(target), shape(current))) {
    values <- compare_values(as_array(target, check = "ignore"),
                             as_array(current, check = "ignore"), tolerance, ...)
    if (isTRUE(values) && all(dtypes == "ui64") &&
        !identical(as_raw(target, row_major = FALSE), as_raw(current, row_major = FALSE))) {
      values <- "Values differ: ui64 values of 2^63 or more are not equal."
    }
    if (!isTRUE(values)) differences <- c(differences, values)
  }
  if (length(differences) == 0) TRUE else differences
}

#' @rdname HArray
#' @param target,current For `all.equal()`: two HArrays.
#' @param tolerance For `all.equal()`: differences smaller than this (relative, as in base
#'   R's `all.equal()`) are ignored.
#' @param ... For `all.equal()`: passed on to base R's `all.equal()` on the values.
#' @method all.equal HArray
#' @export
all.equal.HArray <- function(target, current, ..., tolerance = sqrt(.Machine$double.eps)) {
  check_tolerance(tolerance)
  if (!inherits(current, "HArray")) {
    return(paste0("target is HArray, current is ", data.class(current)))
  }
  differences <- compare_layout(unclass(target$dtype()), unclass(current$dtype()),
                                target$shape(), current$shape())
  if (identical(target$shape(), current$shape())) {
    values <- compare_values(target$collect(), current$collect(), tolerance, ...)
    if (!isTRUE(values)) differences <- c(differences, values)
  }
  if (length(differences) == 0) TRUE else differences
}

compare_layout <- function(dtype1, dtype2, shape1, shape2) {
  label <- function(dims) if (length(dims) == 0) "()" else paste(dims, collapse = "x")
  c(
    if (dtype1 != dtype2) paste0("dtype: target is ", dtype1, ", current is ", dtype2),
    if (!identical(shape1, shape2)) {
      paste0("shape: target is ", label(shape1), ", current is ", label(shape2))
    }
  )
}

# Base R's all.equal() on the values; integer64 meets other types as double (bit64's own
# method would read a double's bits as integers).
compare_values <- function(x, y, tolerance, ...) {
  if (xor(inherits(x, "integer64"), inherits(y, "integer64"))) {
    to_double <- function(v) {
      if (!inherits(v, "integer64")) return(v)
      out <- bit64::as.double.integer64(v)
      dim(out) <- dim(v)
      out
    }
    x <- to_double(x)
    y <- to_double(y)
  }
  all.equal(x, y, tolerance = tolerance, ...)
}

check_tolerance <- function(tolerance, call = caller_env()) {
  check_number(tolerance, "tolerance", "a single non-negative number", min = 0, call = call)
}
