# harmonium's HArray and HDataType classes over the core's HArray views.
#' HArray: n-dimensional arrays (harmonium compatible)
#'
#' `HArray` is a locked environment of functions in the style of the harmonium package.
#' `HArray$new_from_values()` and `HArray$new_from_buffer()` make an HArray; the other
#' functions are methods of an instance `h`, called as `h$len()`, `h$slice(range)`, ...
#'
#' @section One memory model:
#' An HArray is a view of the same memory as a [PJRTBuffer][pjrt_buffer], with the axes in
#' reverse order: **the HArray's shape is the R dims reversed**, and R's column-major data is
#' used as-is as the row-major (C order) data of that shape. A 3x4 R matrix becomes an HArray
#' of shape `c(4, 3)` whose rows are the R matrix's columns.
#'
#' * `new_from_values(arr, dtype)`: `arr` must have a `dim` attribute; double data goes with
#'   `HDataType$Float32` or `$Float64`, complex data with `$Complex32` or `$Complex64`
#'   (integers are not promoted). Float64 and Complex64 share the R vector's memory (no copy;
#'   the vector is marked not mutable, so modifying it in R later copies it first);
#'   Float32 and Complex32 are converted, NA becoming NaN.
#' * `new_from_buffer(buffer)` and [pjrt_buffer()] on an HArray convert without copying: a
#'   buffer of shape `dim(a)` and the HArray of shape `rev(dim(a))` are the same bytes. Buffers
#'   are dense, so a strided HArray view (see `is_standard_layout()`) is copied once on its way
#'   to a buffer. `new_from_buffer()` takes buffers of dtype f32, f64, c64 or c128 only.
#'
#' @section Methods:
#' * `len()`: the number of elements (an integer; a double beyond 2^31 - 1).
#' * `shape()`: the dimensions, an integer vector (`integer(0)` for 0-d); `ndim()` its length.
#' * `dtype()`: the element type, an [HDataType].
#' * `slice(range)`: a view of part of the array, sharing its memory (see below).
#' * `print()`: writes the values in nested brackets; returns `NULL` invisibly. The S3
#'   `print(h)` (what auto-printing calls) writes `HArray` and the dtype on lines of their
#'   own first, then the same values. Numbers are the shortest decimals that read back to the same value in
#'   the element's own type (Float32 `0.33333334`, Float64 `0.3333333333333333`), never in
#'   exponent notation (`1e10` prints `10000000000`, `1e-7` prints `0.0000001`), whole values
#'   without `.0`, and `NaN`, `inf`, `-inf`, `-0`; complex values print as `1+2i`, `3-4i`.
#'   Arrays of 500 elements or more are elided: at most 11 items of each of the last two axes
#'   and 6 of the others are shown, the first half, `...`, the last half.
#' * `eq(other)`, `ne(other)` (also `==`, `!=`): `TRUE` when both have the same dtype, the same
#'   shape and equal elements (IEEE rules: NaN never equals anything, `0 == -0`); layout does
#'   not matter. `other` must be an HArray.
#' * `clone()`: a new HArray sharing the same memory.
#' * `collect()`: the values as a new double or complex R array with `dim = rev(shape())`
#'   (views are copied compactly); a 0-d HArray collects to a plain length-1 vector.
#' * `mem_adress()`: `"0x"` and the lowercase hex address of the first element (the spelling
#'   is harmonium's).
#' * `is_standard_layout()`: `TRUE` when the elements are C-contiguous (length-1 axes are
#'   ignored; an empty array is standard).
#' * `is_unique()`: `TRUE` when no other live HArray shares the memory: clones, slices (and
#'   slices of those), and other HArrays made from the same buffer count; buffers do not.
#' * `invalidate()`: releases this object's share of the memory at once; any later method
#'   call on it is an error (`This external pointer is already consumed or deleted`).
#'
#' Assigning into an HArray (`h$x <- 1`) is an error. `names(h)`, `ls(h)` and `$`
#' completion list the methods; `all.equal(h1, h2)` compares dtype, shape and values with
#' base R's tolerance. An HArray saved with `saveRDS()` (or `save()`, or sent to a parallel
#' worker) comes back without its memory: its methods are errors that say it was serialized;
#' save `h$collect()` instead.
#'
#' @section Slicing:
#' `range` is a list with one entry per HArray axis (so the first entry acts on the **last**
#' R dim). Each entry is an integer vector:
#' * of length 1, an index (0-based; negative counts from the end): the axis is removed;
#' * of length 3, `c(start, end, step)` with `end` exclusive and 0-based positions. `NA`
#'   means the default: 0, the axis length, 1. A negative `start` or `end` counts from the
#'   back (`len + x`); below 0 after that is an error, not a clamp. `start > end` gives an
#'   empty axis. `step` must not be 0. A negative step takes `[start, end)` and walks it
#'   from `end - 1` downward by `|step|`, as Rust's ndarray does: on an axis of length 4,
#'   `c(NA, NA, -2L)` takes positions 3 and 1.
#'
#' An index outside the axis, a `start` or `end` beyond the axis length, or a step of 0 is an
#' error naming the axis (1-based, in `range` order), the value and the axis length. The
#' result is a view: it shares the memory (`mem_adress()` is the source's when the view
#' starts at the source's first element), costs O(1) whatever the array's size, and can be
#' sliced again.
#'
#' @section Decisions where harmonium leaves room:
#' * Error messages number axes from 1, in `range` order, and quote values as given
#'   (0-based): `Index 4 is out of bounds for axis 1 of length 4.`
#' * A missing index (`NA_integer_` as a length-1 entry) is an error. `NA` inside a range must
#'   be an integer NA: `c(NA, NA, NA)` is logical and rejected like any non-integer entry.
#' * `print(h)` (the S3 method) returns `h` invisibly, as R's print methods do; the method
#'   `h$print()` returns `NULL` invisibly, as harmonium's does.
#' * Printing follows Rust: of two equally near shortest decimals the one farther from zero is
#'   written (Float32 `2097152.25` prints `2097152.3`). A complex value's imaginary sign is
#'   its sign bit (`1-0i`), and a NaN imaginary part prints `+NaN`.
#' * `is_unique()` counts every HArray that is still alive, including temporaries such as an
#'   unassigned `h$slice(...)` until the garbage collector has run (or `invalidate()` is
#'   called). HArrays made separately from one buffer count as sharing; PJRTBuffers do not.
#'   Two Float64 HArrays made by `new_from_values()` from the same R vector are counted
#'   separately, although both read that vector's memory (neither can change it).
#' * `mem_adress()` of a view with no elements is an address inside the source's memory
#'   (an empty range does not move it); it names no element.
#'
#' @format `HArray` and [HDataType] are locked environments.
#' @seealso [HDataType], [pjrt_buffer()] and [PJRTBuffer] for the buffer face of the same
#'   memory, [as_array()].
#' @examples
#' arr <- array(c(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), c(3, 4))
#' harray <- HArray$new_from_values(arr, HDataType$Float32)
#' harray$shape() # c(4L, 3L): the R dims reversed
#' harray$len() # 12
#' harray$ndim() # 2
#' harray$dtype() # Float32
#' harray$print()
#' # [[1, 2, 3],
#' #  [4, 5, 6],
#' #  [7, 8, 9],
#' #  [10, 11, 12]]
#' print(harray) # the same, after the lines `HArray` and `Float32`
#' names(harray) # the methods
#' harray$is_standard_layout() # TRUE
#' harray$collect() # arr again
#'
#' # Views share memory
#' sliced <- harray$slice(list(c(0L, 2L, 1L), c(1L, 3L, 1L)))
#' sliced$print() # [[2, 3], [5, 6]]
#' sliced$is_standard_layout() # FALSE
#' sliced$collect() # matrix(c(2, 3, 5, 6), 2, 2)
#' x <- c(NA_integer_, NA_integer_, NA_integer_)
#' harray$slice(list(x, x)) == harray # TRUE
#' harray$slice(list(1L, c(NA, NA, -2L)))$collect() # c(6, 4): row 1, walked backwards
#'
#' # Clones and slices share the memory until they are collected or invalidated
#' h <- HArray$new_from_values(arr, HDataType$Float64)
#' h$is_unique() # TRUE
#' h2 <- h$clone()
#' h$is_unique() # FALSE
#' h2$is_unique() # FALSE
#' h$mem_adress() == h2$mem_adress() # TRUE
#' h2$invalidate()
#' h$is_unique() # TRUE
#' try(h2$len()) # Error: This external pointer is already consumed or deleted
#'
#' # Equality needs the same dtype and shape
#' harray == HArray$new_from_values(arr, HDataType$Float64) # FALSE
#' harray != harray # FALSE
#'
#' # Float64 shares the R vector's memory; buffers and HArrays share memory
#' h64 <- HArray$new_from_values(arr, HDataType$Float64)
#' b <- pjrt::pjrt_buffer(h64)
#' pjrt::shape(b) # c(3L, 4L)
#' HArray$new_from_buffer(b)$mem_adress() == h64$mem_adress() # TRUE
#' @export
HArray <- new.env(parent = emptyenv())

#' HDataType: element types of an HArray
#'
#' `HDataType$Float32`, `HDataType$Float64`, `HDataType$Complex32` and
#' `HDataType$Complex64` are the element types of an [HArray] (f32, f64, c64 and c128 in the
#' names of [pjrt_buffer()]). They print as their names and compare with `==` and `!=`
#' (also as the methods `eq()` and `ne()`); `print()` is a method too.
#'
#' @format A locked environment.
#' @seealso [HArray].
#' @examples
#' HDataType$Float32
#' HDataType$Float32 == HDataType$Float32 # TRUE
#' HDataType$Float32 != HDataType$Complex64 # TRUE
#' HDataType$Complex32$eq(HDataType$Complex32) # TRUE
#' @export
HDataType <- new.env(parent = emptyenv())

new_hdatatype <- function(name) structure(name, class = "HDataType")

# ---- HArray constructors --------------------------------------------------------------------

HArray$new_from_values <- function(arr, dtype) {
  # The common call is checked in C++; NULL there means anything else, worded below.
  harray <- with_core(ffi_harray_from_values_common(arr, dtype))
  if (!is.null(harray)) return(harray)
  if (is.null(dim(arr))) cli::cli_abort("arr must be of array type.")
  check_hdatatype(dtype, "dtype")
  target <- unname(hdatatype_dtypes()[unclass(dtype)])  # NA for a forged HDataType
  r_type <- dtype_r_type(target)
  real <- is.double(arr) && !inherits(arr, "integer64") && identical(r_type, "double")
  complex <- is.complex(arr) && identical(r_type, "complex")
  if (!real && !complex) cli::cli_abort("not valid input types")
  buffer <- buffer_from_vector(arr, target, NULL, as.integer(dim(arr)),
                               list(check = "ignore"))
  with_core(ffi_harray_from_buffer(buffer))
}

HArray$new_from_buffer <- function(buffer) {
  if (!inherits(buffer, "PJRTBuffer")) {
    cli::cli_abort("{.arg buffer} must be a PJRTBuffer, not {.obj_type_friendly {buffer}}.")
  }
  with_core(ffi_harray_from_buffer(buffer))
}

# ---- HArray methods: `self` is bound by `$.HArray` --------------------------------------------

HArray$len <- function() {
  n <- with_core(ffi_harray_len(self))
  if (n <= .Machine$integer.max) as.integer(n) else n
}

HArray$shape <- function() with_core(ffi_harray_shape(self))

HArray$ndim <- function() length(with_core(ffi_harray_shape(self)))

HArray$dtype <- function() {
  dtype <- with_core(ffi_harray_dtype(self))
  dtypes <- hdatatype_dtypes()
  get(names(dtypes)[dtypes == dtype], envir = HDataType)
}

HArray$slice <- function(range) {
  check_slice_range(range)  # the core checks the length against the rank
  with_core(ffi_harray_slice(self, range))
}

HArray$print <- function() {
  cat(with_core(ffi_harray_format(self)), "\n", sep = "")
  invisible(NULL)
}

HArray$eq <- function(other) harray_equal(self, other)

HArray$ne <- function(other) !harray_equal(self, other)

HArray$clone <- function() with_core(ffi_harray_clone(self))

HArray$collect <- function() with_core(ffi_harray_collect(self))

HArray$mem_adress <- function() with_core(ffi_harray_mem_address(self))

HArray$is_standard_layout <- function() with_core(ffi_harray_is_standard_layout(self))

HArray$is_unique <- function() with_core(ffi_harray_is_unique(self))

HArray$invalidate <- function() {
  with_core(ffi_harray_invalidate(self))
  invisible(NULL)
}

# ---- HDataType methods ------------------------------------------------------------------------

HDataType$print <- function() {
  cat(unclass(self), "\n", sep = "")
  invisible(NULL)
}

HDataType$eq <- function(other) hdatatype_equal(self, other)

HDataType$ne <- function(other) !hdatatype_equal(self, other)

# Fills HDataType from the core's dtype table, then locks HArray and HDataType: no new
# bindings, no changed ones. Called from .onLoad(), since the table comes from compiled code
# and the lazy-load database keeps an environment's lock but not the locks of its bindings.
init_harray_classes <- function() {
  for (name in names(hdatatype_dtypes())) assign(name, new_hdatatype(name), envir = HDataType)
  lockEnvironment(HArray, bindings = TRUE)
  lockEnvironment(HDataType, bindings = TRUE)
}

# ---- S3 methods -------------------------------------------------------------------------------

# A method of `class_env` with `self` bound to the instance (the way extendr binds them).
bind_method <- function(self, name, class_env, class_name, call) {
  if (!is_string(name)) {
    cli::cli_abort("{class_name} methods are named by a single string, not {.obj_type_friendly {name}}.",
                   call = call)
  }
  method <- class_env[[name]]
  if (!is.function(method) || startsWith(name, "new_from_")) {
    cli::cli_abort("{class_name} has no method {.val {name}}.", call = call)
  }
  environment(method) <- environment()
  method
}

#' @export
`$.HArray` <- function(x, name) bind_method(x, name, HArray, "HArray", caller_env())

#' @export
`[[.HArray` <- `$.HArray`

#' @export
`$<-.HArray` <- function(x, name, value) {
  cli::cli_abort("Cannot assign into an HArray: its methods and values are read-only.")
}

#' @export
`[[<-.HArray` <- `$<-.HArray`

#' @rawNamespace S3method(utils::.DollarNames, HArray)
.DollarNames.HArray <- function(x, pattern = "") {
  methods <- setdiff(ls(HArray), c("new_from_values", "new_from_buffer"))
  grep(pattern, methods, value = TRUE)
}

#' @export
print.HArray <- function(x, ...) {
  cat("HArray\n")
  x$dtype()$print()
  x$print()
  invisible(x)
}

#' @export
`==.HArray` <- function(e1, e2) {
  harray_equal(e1, e2, call = operator_call("==", substitute(e1), substitute(e2)))
}

#' @export
`!=.HArray` <- function(e1, e2) {
  !harray_equal(e1, e2, call = operator_call("!=", substitute(e1), substitute(e2)))
}

#' @export
`$.HDataType` <- function(x, name) bind_method(x, name, HDataType, "HDataType", caller_env())

#' @export
`[[.HDataType` <- `$.HDataType`

#' @export
`$<-.HDataType` <- function(x, name, value) {
  cli::cli_abort("Cannot assign into an HDataType.")
}

#' @export
`[[<-.HDataType` <- `$<-.HDataType`

#' @export
print.HDataType <- function(x, ...) {
  cat(unclass(x), "\n", sep = "")
  invisible(x)
}

#' @export
format.HDataType <- function(x, ...) unclass(x)

#' @export
as.character.HDataType <- function(x, ...) unclass(x)

#' @export
`==.HDataType` <- function(e1, e2) {
  hdatatype_equal(e1, e2, call = operator_call("==", substitute(e1), substitute(e2)))
}

#' @export
`!=.HDataType` <- function(e1, e2) {
  !hdatatype_equal(e1, e2, call = operator_call("!=", substitute(e1), substitute(e2)))
}

#' @section HArray data:
#' `pjrt_buffer(h)` for an [HArray] `h` gives the buffer of shape `rev(h$shape())` over the
#' same memory, without a copy when `h$is_standard_layout()` (a strided view is copied once,
#' since buffers are dense). `dtype`, if given, must be the HArray's own (an [HDataType] is
#' accepted too) and `shape` its shape reversed; `device` copies the buffer to that device.
#' @rdname pjrt_buffer
#' @export
pjrt_buffer.HArray <- function(data, dtype = NULL, device = NULL, shape = NULL, ...) {
  check_dots_allowed(list(...), "check")
  own <- with_core(ffi_harray_dtype(data))
  if (inherits(dtype, "HDataType")) dtype <- hdatatype_dtypes()[[unclass(dtype)]]
  if (!is.null(dtype) && as_dtype_name(dtype) != own) {
    cli::cli_abort(c(
      "{.arg data} is an HArray of dtype {.val {own}}; it cannot be re-typed to {.val {as_dtype_name(dtype)}}.",
      i = "Buffers made from an HArray share its memory, so they keep its dtype."
    ))
  }
  dims <- rev(with_core(ffi_harray_shape(data)))
  if (!is.null(shape) && !identical(as_shape(shape), dims)) {
    cli::cli_abort(c(
      "{.arg shape} must be the HArray's shape reversed when {.arg data} is an HArray.",
      i = "That is {.code c({paste(dims, collapse = ', ')})}."
    ))
  }
  buffer <- with_core(ffi_harray_to_buffer(data))
  if (is.null(device)) buffer else copy_buffer(buffer, device)
}

# ---- helpers ----------------------------------------------------------------------------------

# The call an operator method reports in errors (`h == 1`): under group dispatch of a primitive
# the method's own frame shows no call of its own.
operator_call <- function(op, e1, e2) as.call(list(as.name(op), e1, e2))

harray_equal <- function(e1, e2, call = caller_env()) {
  for (x in list(e1, e2)) {
    if (!inherits(x, "HArray")) {
      cli::cli_abort("Expected HArray, got {class(x)[[1]]}", call = call)
    }
  }
  with_core(ffi_harray_equal(e1, e2), call)
}

hdatatype_equal <- function(e1, e2, call = caller_env()) {
  for (x in list(e1, e2)) {
    if (!inherits(x, "HDataType")) {
      cli::cli_abort("Expected HDataType, got {class(x)[[1]]}", call = call)
    }
  }
  identical(unclass(e1), unclass(e2))
}

check_hdatatype <- function(dtype, arg, call = caller_env()) {
  if (!inherits(dtype, "HDataType")) {
    cli::cli_abort(c(
      "{.arg {arg}} must be an HDataType, not {.obj_type_friendly {dtype}}.",
      i = "Use {.code HDataType$Float32}, {.code $Float64}, {.code $Complex32} or {.code $Complex64}."
    ), call = call)
  }
  invisible(dtype)
}

# The messages are harmonium's.
check_slice_range <- function(range, call = caller_env()) {
  # typeof() as harmonium words it; the class for objects (a factor's type is integer too).
  what <- function(x) if (is.object(x)) class(x)[[1]] else typeof(x)
  if (!is.list(range)) cli::cli_abort("Must be list, not {what(range)}", call = call)
  for (part in range) {
    if (!is.integer(part)) cli::cli_abort("Must be integer, not {what(part)}", call = call)
    if (!length(part) %in% c(1L, 3L)) {
      cli::cli_abort("Each element must have a length of 1 or 3.", call = call)
    }
  }
  invisible(range)
}
