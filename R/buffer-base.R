# Base R generics on PJRTBuffer: answer as the R array would, or fail with a clear error.

#' PJRTBuffer objects and base R
#'
#' A `PJRTBuffer` (made by [pjrt_buffer()], [pjrt_scalar()], [pjrt_empty()],
#' [pjrt_load_safetensors()] or from an [HArray]) holds typed n-dimensional data in memory
#' owned by the C++ core, on a device (see [devices()]). It is an external pointer with class
#' `PJRTBuffer`: the values live outside R, so base R functions that read R vectors must go
#' through the methods below.
#'
#' @section Extractors:
#' [shape()] (and `dim()`, `length()`), [dtype()] / [elt_type()], [device()], [platform()].
#'
#' @section Base R functions that answer as for the R array:
#' `as.array()`, `as.matrix()` (and so `apply()`), `as.vector()`, `as.double()`,
#' `as.integer()`, `as.logical()`, `as.complex()`, `as.character()`, `is.na()`, `anyNA()`,
#' `str()`, `summary()` and `all.equal()` read the values (as [as_array()] does) and answer
#' as they would for `as_array(x)`. `all.equal(target, current)` also compares the dtypes and
#' the shapes: it returns `TRUE` or character descriptions of the differences, and values
#' are compared with base R's tolerance (`tolerance = sqrt(.Machine$double.eps)`, relative)
#' unless `tolerance` is given.
#'
#' @section Base R functions that are errors:
#' pjrt holds and moves data; it does not compute on buffers. Arithmetic, comparison and
#' logical operators (`b + 1`, `b == b`), the `Math` functions (`sqrt()`, `cumsum()`, ...),
#' the `Summary` functions (`sum()`, `max()`, `range()`, ...), `Re()`/`Im()`/`Mod()`,
#' `mean()`, `median()`, `quantile()`, `head()`, `tail()`, `rev()`, `sort()`, `unique()`,
#' `t()`, `aperm()`, `diff()`, `rep()`, indexing (`b[1]`, `b[[1]]`, `b$shape`) and
#' replacement (`b[1] <- 0`, `dim(b) <- ...`) are errors that name the buffer's dtype and
#' shape and say what to use instead: `as_array(b)` to compute in R, [shape()] and the other
#' extractors for its properties, or an [HArray] view to slice without copying.
#'
#' @param x,object,target A PJRTBuffer.
#' @param current The object to compare with `target`.
#' @param tolerance Differences smaller than this (relative, as in base R) are ignored.
#' @param ... Passed on to the base R function used on the values.
#' @return As for the R array `as_array(x)`.
#' @seealso [pjrt_buffer()] to make buffers, [as_array()] to convert them,
#'   [print.PJRTBuffer()] for printing, [HArray] for views.
#' @examples
#' b <- pjrt_buffer(matrix(1:6, nrow = 2))
#' as.matrix(b)
#' apply(b, 1, sum) # row sums: c(9L, 12L)
#' str(b)
#' summary(b)
#' all.equal(b, pjrt_buffer(matrix(1:6, nrow = 2))) # TRUE
#' all.equal(b, pjrt_buffer(matrix(1:6, nrow = 2), dtype = "f32"))
#' try(b + 1)
#' sum(as_array(b))
#' @name PJRTBuffer
NULL

# "dtype f32 and shape 2x3" (0-d: "dtype f32 and shape () (a scalar)").
describe_buffer <- function(x) {
  dims <- shape(x)
  shape_text <- if (length(dims) == 0) "() (a scalar)" else paste(dims, collapse = "x")
  paste0("dtype ", with_core(ffi_buffer_dtype(x)), " and shape ", shape_text)
}

# `op` names a function, or an operator when `operator` is TRUE.
abort_no_compute <- function(x, op, call, operator = FALSE) {
  what <- if (operator) "The operator {.code {op}}" else "{.fn {op}}"
  abort_refused(
    paste(what, "is not defined for PJRTBuffer objects."),
    "The buffer has {describe_buffer(x)}; pjrt holds data but does not compute on buffers.",
    "Convert it with {.code as_array()} and compute in R.",
    call
  )
}

abort_no_index <- function(x, call) {
  abort_refused(
    "A PJRTBuffer cannot be indexed.",
    "The buffer has {describe_buffer(x)}.",
    "Use {.code as_array(x)[...]} for the values, {.fn shape}, {.fn dtype} or {.fn device} for its properties, or {.code HArray$new_from_buffer(x)$slice()} for a view without a copy.",
    call
  )
}

abort_immutable <- function(x, call) {
  abort_refused(
    "A PJRTBuffer cannot be modified.",
    "The buffer has {describe_buffer(x)}.",
    "Modify {.code as_array(x)} and make a new buffer with {.fn pjrt_buffer}.",
    call
  )
}

# What a buffer refuses, why, and what to do instead; the templates are filled in the
# caller's frame.
abort_refused <- function(refused, reason, instead, call, envir = parent.frame()) {
  cli::cli_abort(c(refused, x = reason, i = instead), call = call, .envir = envir)
}

# The call a method reports: the user's call, named by the generic rather than the method.
generic_call <- function(generic, call) {
  call[[1]] <- as.name(generic)
  call
}

# The buffer among a group generic's arguments (`1 + b` has it second).
first_buffer <- function(...) {
  for (arg in list(...)) if (inherits(arg, "PJRTBuffer")) return(arg)
  NULL
}

#' @export
Ops.PJRTBuffer <- function(e1, e2) {
  call <- if (missing(e2)) call(.Generic, substitute(e1))
          else call(.Generic, substitute(e1), substitute(e2))
  x <- if (inherits(e1, "PJRTBuffer")) e1 else e2
  abort_no_compute(x, .Generic, call, operator = TRUE)
}

#' @export
Math.PJRTBuffer <- function(x, ...) {
  abort_no_compute(x, .Generic, call(.Generic))
}

#' @export
Summary.PJRTBuffer <- function(..., na.rm = FALSE) {
  call <- call(.Generic)  # the arguments arrive evaluated: no expressions to show
  abort_no_compute(first_buffer(...), .Generic, call)
}

#' @export
Complex.PJRTBuffer <- function(z) {
  abort_no_compute(z, .Generic, call(.Generic))
}

#' @export
`[.PJRTBuffer` <- function(x, ...) abort_no_index(x, generic_call("[", sys.call()))

#' @export
`[[.PJRTBuffer` <- function(x, ...) abort_no_index(x, generic_call("[[", sys.call()))

#' @export
`$.PJRTBuffer` <- function(x, name) {
  field <- as.character(substitute(name))
  cli::cli_abort(c(
    "A PJRTBuffer has no fields such as {.field {field}}.",
    x = "The buffer has {describe_buffer(x)}.",
    i = "Use functions instead: {.code shape(x)}, {.code dtype(x)}, {.code device(x)}, {.code as_array(x)}."
  ), call = call("$", substitute(x), as.name(field)))
}

#' @export
`[<-.PJRTBuffer` <- function(x, ..., value) abort_immutable(x, generic_call("[<-", sys.call()))

#' @export
`[[<-.PJRTBuffer` <- function(x, ..., value) abort_immutable(x, generic_call("[[<-", sys.call()))

#' @export
`$<-.PJRTBuffer` <- function(x, name, value) abort_immutable(x, generic_call("$<-", sys.call()))

#' @export
`dim<-.PJRTBuffer` <- function(x, value) {
  cli::cli_abort(c(
    "A PJRTBuffer cannot be re-shaped in place.",
    x = "The buffer has {describe_buffer(x)}.",
    i = "Make a new buffer: {.code pjrt_buffer(as_array(x), shape = ...)}."
  ), call = generic_call("dim<-", sys.call()))
}

#' @export
`length<-.PJRTBuffer` <- function(x, value) abort_immutable(x, generic_call("length<-", sys.call()))

# Functions of the values that pjrt leaves to R, each an error that says so. The signatures
# follow the generics'.
refuse <- function(x, name, call) abort_no_compute(x, name, generic_call(name, call))

#' @export
mean.PJRTBuffer <- function(x, ...) refuse(x, "mean", sys.call())
#' @rawNamespace S3method(stats::median, PJRTBuffer)
median.PJRTBuffer <- function(x, na.rm = FALSE, ...) refuse(x, "median", sys.call())
#' @rawNamespace S3method(stats::quantile, PJRTBuffer)
quantile.PJRTBuffer <- function(x, ...) refuse(x, "quantile", sys.call())
#' @rawNamespace S3method(utils::head, PJRTBuffer)
head.PJRTBuffer <- function(x, ...) refuse(x, "head", sys.call())
#' @rawNamespace S3method(utils::tail, PJRTBuffer)
tail.PJRTBuffer <- function(x, ...) refuse(x, "tail", sys.call())
#' @export
rev.PJRTBuffer <- function(x) refuse(x, "rev", sys.call())
#' @export
sort.PJRTBuffer <- function(x, decreasing = FALSE, ...) refuse(x, "sort", sys.call())
#' @export
unique.PJRTBuffer <- function(x, incomparables = FALSE, ...) refuse(x, "unique", sys.call())
#' @export
t.PJRTBuffer <- function(x) refuse(x, "t", sys.call())
#' @export
aperm.PJRTBuffer <- function(a, perm, ...) refuse(a, "aperm", sys.call())
#' @export
diff.PJRTBuffer <- function(x, ...) refuse(x, "diff", sys.call())
#' @export
rep.PJRTBuffer <- function(x, ...) refuse(x, "rep", sys.call())
#' @export
xtfrm.PJRTBuffer <- function(x) refuse(x, "xtfrm", sys.call())

#' @rdname PJRTBuffer
#' @export
as.matrix.PJRTBuffer <- function(x, ...) as.matrix(as_array(x), ...)

# integer64 values meet complex as double: bit64 before 4.5 has no as.complex() method, and the
# default one reads the integers' bits as doubles.
#' @export
as.complex.PJRTBuffer <- function(x, ...) {
  values <- as_array(x)
  if (inherits(values, "integer64")) values <- bit64::as.double.integer64(values)
  as.complex(values)
}

#' @export
as.character.PJRTBuffer <- function(x, ...) as.vector(x, "character")

#' @export
is.na.PJRTBuffer <- function(x) is.na(as_array(x))

#' @export
anyNA.PJRTBuffer <- function(x, recursive = FALSE) anyNA(as_array(x))

#' @rdname PJRTBuffer
#' @export
summary.PJRTBuffer <- function(object, ...) summary(as_array(object), ...)

#' @rdname PJRTBuffer
#' @rawNamespace S3method(utils::str, PJRTBuffer)
str.PJRTBuffer <- function(object, ...) {
  values <- as_array(object, check = "ignore")
  dims <- shape(object)
  shown <- min(length(values), 10)
  cells <- trimws(format(values[seq_len(shown)], digits = 3))
  if (length(values) > shown) cells <- c(cells, "...")
  extent <- if (length(dims) == 0) "" else paste0(" [", paste0("1:", dims, collapse = ", "), "]")
  cat(" PJRTBuffer<", with_core(ffi_buffer_dtype(object)), ">", extent,
      if (length(cells) > 0) " ", paste(cells, collapse = " "), "\n", sep = "")
  invisible()
}
