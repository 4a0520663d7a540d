# dispatcher() / dispatch(): an executable cache for calls of one program family, keyed on the
# structure and abstract values of their arguments (src/r_dispatch.h).

#' Dispatch calls through a cache of compiled programs
#'
#' @description
#' A dispatcher runs calls of one family of programs (such as the calls of one jitted
#' function in anvl) and keeps what it compiled for them. `dispatcher()` makes one;
#' `dispatch()` runs a call, compiling first when no cached entry fits it;
#' `dispatcher_size()` is the number of cached entries.
#'
#' @section The cache key:
#' `dispatch(d, args)` flattens the argument list `args` (see [build_tree()]) and keys the
#' call on:
#'
#' * the structure of `args` ([tree_equal()]);
#' * per dynamic leaf, its abstract value: dtype, shape and `ambiguous` flag;
#' * per static leaf (every leaf under a top-level argument named in `static`), its value,
#'   compared with [identical()] with `num.eq = FALSE` (numbers bit for bit, so the
#'   `bit64::integer64` `NA`, stored as the bits of `-0`, is not `0`);
#' * the call's device: the device of its first array input, else the value of
#'   `default_device()` (none under `move_inputs = TRUE`);
#' * the value of `context()`, when a `context` function is given (compared like statics).
#'
#' A dynamic leaf must be one of:
#'
#' * an `"AnvlArray"`: a list of class `"AnvlArray"` whose `$backend` is the dispatcher's
#'   `backend`. For `backend = "pjrt"` its `$data` is a PJRTBuffer whose dtype, shape and
#'   device are read from the buffer itself, and `$ambiguous` (`TRUE` or absent/`FALSE`)
#'   its flag. For other backends `extractor(leaf)` returns
#'   `list(aval = list(dtype, shape, ambiguous), device, backend)` and `$data` is what the
#'   closure receives;
#' * bare R data: a logical, integer or double array (`dim` set) of any shape, or a single
#'   such value that is not `NA`. Its abstract value is the dtype `pjrt_buffer()` would
#'   choose (`bool`, `i32`, `f32`), its shape (empty for a single value) and
#'   `ambiguous = TRUE`; so an ambiguous `f32` scalar array and the literal `5` share an
#'   entry.
#'
#' Every input is checked before the cache is consulted, and the error names the
#' argument's path in `args` (such as ``invalid input `x$w` ``): `compile` only ever
#' sees calls it can compile. Arrays of another backend, anvl's `"plain"` arrays, inputs on
#' different devices (without `move_inputs`) and an `AnvlArray` given as a static are
#' errors.
#'
#' @section The compile callback:
#' On a miss, `compile(info)` is called with a list of what the call derived:
#' `args`; `in_tree` (its `RTree`); `leaves` (the flat leaves); `is_static` (a logical
#' mask); `avals`, per leaf `NULL` for a static one, else
#' `list(dtype, shape, ambiguous, kind)` with `dtype` a dtype name (`"bool"` for `pred`),
#' `shape` an integer vector and `kind` `"array"` or `"rdata"` (bare R data);
#' `default_device`, the device resolved for a call without array inputs (`NULL`
#' otherwise); and `context`, the `context()` value (`NULL` without one).
#'
#' With `backend = "pjrt"` it returns a list with:
#'
#' * `exec`: a [pjrt_compile()]d executable, whose arguments are `const_arrays`, then the
#'   call's dynamic leaves in order, then the `phantom_specs` buffers;
#' * `device`: the PJRTDevice the entry runs on (bare R data is uploaded there, and under
#'   `move_inputs` array inputs are copied there);
#' * `out_tree`: the `RTree` of the results, one leaf per result of the executable;
#' * `out_avals`: per result, `list(dtype, shape, ambiguous)` (`ambiguous` optional,
#'   default `FALSE`);
#' * optionally `const_arrays` (a list of PJRTBuffers), `phantom_specs` (a list of
#'   `list(dtype, shape)`: buffers allocated afresh for every call, such as outputs to
#'   donate into), `input_dtypes` (per dynamic input, the dtype bare R data at that
#'   position is uploaded as, or `NA` for the default) and `client` (accepted and unused:
#'   this runtime needs no client object).
#'
#' `dispatch()` then returns the results as `"AnvlArray"`s, nested as `out_tree`: lists of
#' `data` (the result buffer), `dtype` (a `DataType` when tengen or xlamisc is installed, else
#' a `PJRTElementType`), `shape`, `device`, `ambiguous` and `backend`, all but `data` taken
#' from `out_avals`, `device` and `backend`. Arguments of `@main` marked
#' `tf.aliasing_output` are donated, as by [pjrt_execute()], except `const_arrays`, which the
#' entry keeps for every call.
#'
#' For any other backend it returns `list(r_fun = )`, a function that receives the list of
#' the call's dynamic inputs (an array's `$data`, bare R data as it is) and returns the
#' call's result, which `dispatch()` returns. Statics are not passed: they are constants of
#' the closure. Under `move_inputs`, `r_fun` places its inputs itself.
#'
#' When more than `capacity` entries are cached, the least recently used one is dropped.
#' Bare R arrays are uploaded as [pjrt_buffer()] would convert them, except that an `NA` in
#' an integer array uploaded as `i32` is stored as its bits (INT_MIN) without a warning.
#'
#' @section Differences from upstream pjrt:
#' * The compile result's `client` is optional and unused (this runtime has no client
#'   objects).
#' * Every dtype of this runtime can be keyed, `f16`, `bf16`, `c64` and `c128` included.
#' * `info$avals` also carries `kind`, and `info$context` the `context()` value; the compile
#'   result may declare `input_dtypes`.
#' * A compile result whose executable does not take `const_arrays`, the inputs and the
#'   `phantom_specs`, or does not return one result per leaf of `out_tree`, is an error when
#'   the entry is made (upstream finds the second on the first run).
#' * Results' `$dtype` is tengen's (else xlamisc's) `DataType` where one is installed, else a
#'   `PJRTElementType`.
#'
#' @param capacity The largest number of entries to keep, a whole number of at least 1.
#' @param compile The function called on a miss (see the section above).
#' @param static Names of the top-level arguments that are static.
#' @param backend The backend tag of the array inputs and of the wrapped results; `"pjrt"`
#'   runs executables natively, any other runs the closure `compile` returns.
#' @param move_inputs `TRUE` to run every entry on the device its compile result names,
#'   copying inputs there; the device is then no part of the key.
#' @param default_device `NULL` or a function of no arguments returning the device of calls
#'   without array inputs (required unless `move_inputs`). With `backend = "pjrt"` it must
#'   return a PJRTDevice; other backends' devices are compared by identity, then with
#'   [identical()].
#' @param extractor For backends other than `"pjrt"`, a function reading an array's
#'   metadata (see above).
#' @param context `NULL` or a function of no arguments whose value joins the key of every
#'   call and reaches `compile` as `info$context` (anvl passes its default dtypes).
#' @param dispatcher A `Dispatcher`.
#' @param args The call's evaluated arguments, a list (named for statics).
#' @return `dispatcher()`: a `Dispatcher`. `dispatch()`: the call's result.
#'   `dispatcher_size()`: an integer.
#' @examples
#' add <- pjrt_compile(pjrt_program("
#' func.func @main(%a: tensor<2xf32>, %b: tensor<2xf32>) -> tensor<2xf32> {
#'   %0 = stablehlo.add %a, %b : tensor<2xf32>
#'   return %0 : tensor<2xf32>
#' }"))
#' compiles <- 0
#' d <- dispatcher(10, function(info) {
#'   compiles <<- compiles + 1
#'   list(exec = add, device = pjrt_device(), out_tree = build_tree(1),
#'        out_avals = list(list(dtype = "f32", shape = 2L)))
#' }, default_device = pjrt_device)
#' x <- list(data = pjrt_buffer(c(1, 2)), backend = "pjrt")
#' class(x) <- "AnvlArray"
#' y <- dispatch(d, list(x = x, y = array(c(10, 20))))
#' y$data
#' dispatch(d, list(x = x, y = array(c(5, 5))))$data
#' dispatcher_size(d)
#' compiles
#' @export
dispatcher <- function(capacity, compile, static = character(), backend = "pjrt",
                       move_inputs = FALSE, default_device = NULL, extractor = NULL,
                       context = NULL) {
  if (!is_whole_number(capacity) || capacity < 1 || capacity > 2^31) {
    cli::cli_abort("{.arg capacity} must be a whole number of at least 1, not {.obj_type_friendly {capacity}}.")
  }
  check_function_arg(compile, "compile")
  if (!is.character(static) || anyNA(static)) {
    cli::cli_abort("{.arg static} must be a character vector without NA.")
  }
  check_string(backend, "backend", allow_empty = FALSE)
  check_bool(move_inputs, "move_inputs")
  check_function_arg(default_device, "default_device", allow_null = TRUE)
  check_function_arg(extractor, "extractor", allow_null = TRUE)
  check_function_arg(context, "context", allow_null = TRUE)
  if (!move_inputs && is.null(default_device)) {
    cli::cli_abort("{.arg default_device} is required unless {.code move_inputs = TRUE}.")
  }
  native <- identical(backend, "pjrt")
  if (!native && is.null(extractor)) {
    cli::cli_abort(c(
      "{.arg extractor} is required for a non-{.val pjrt} backend.",
      i = "Pass a function that reads an array's metadata through the backend's accessors."
    ))
  }
  finish <- if (native) function(result) finish_pjrt_entry(result, backend) else finish_closure_entry
  with_core(ffi_dispatcher_new(
    as.double(capacity), compile, finish, as.character(static), backend, move_inputs,
    default_device, extractor, context
  ))
}

#' @rdname dispatcher
#' @export
dispatch <- function(dispatcher, args) {
  result <- .Call(`_pjrt_ffi_dispatch_run`, dispatcher, args)
  if (is.symbol(result)) abort_core_failure(environment())
  result
}

#' @rdname dispatcher
#' @export
dispatcher_size <- function(dispatcher) with_core(ffi_dispatcher_size(dispatcher))

#' @export
print.Dispatcher <- function(x, ...) {
  cat("<Dispatcher>\n")
  invisible(x)
}

check_function_arg <- function(x, arg, allow_null = FALSE, call = caller_env()) {
  if (is.function(x) || (allow_null && is.null(x))) return(invisible(x))
  what <- if (allow_null) "NULL or a function" else "a function"
  cli::cli_abort("{.arg {arg}} must be {what}, not {.obj_type_friendly {x}}.", call = call)
}

finish_closure_entry <- function(result) {
  if (!is.list(result) || !is.function(result$r_fun)) {
    cli::cli_abort("The {.arg compile} callback must return a list with a function {.code r_fun}.",
                   call = NULL)
  }
  result$r_fun
}

# The pjrt engine's entry from a compile result, checked: list(exec, device_spec, out_tree,
# templates, const_arrays, phantom_dtypes, phantom_shapes, input_dtypes).
finish_pjrt_entry <- function(result, backend) {
  abort <- function(...) cli::cli_abort(..., call = NULL, .envir = parent.frame())
  if (!is.list(result)) abort("The {.arg compile} callback must return a list, not {.obj_type_friendly {result}}.")
  expect <- function(field, class, what) {
    if (!inherits(result[[field]], class)) {
      abort("The {.arg compile} callback must return {.code {field}} ({what}), not {.obj_type_friendly {result[[field]]}}.")
    }
  }
  expect("exec", "PJRTLoadedExecutable", "a PJRTLoadedExecutable")
  expect("device", "PJRTDevice", "a PJRTDevice")
  expect("out_tree", "RTree", "an RTree")
  out_avals <- result$out_avals
  if (!is.list(out_avals)) abort("The {.arg compile} callback must return {.code out_avals} (a list), not {.obj_type_friendly {out_avals}}.")
  leaves <- tree_size(result$out_tree)
  if (length(out_avals) != leaves) abort("out_avals has length {length(out_avals)} but out_tree has {leaves} lea{?f/ves}")
  templates <- lapply(seq_along(out_avals), function(k) output_template(out_avals[[k]], k, result$device, backend))
  constants <- result$const_arrays %||% list()
  if (!is.list(constants)) abort("{.code const_arrays} must be a list of PJRTBuffers or NULL.")
  for (k in seq_along(constants)) {
    if (!inherits(constants[[k]], "PJRTBuffer")) abort("`const_arrays[[{k}]]` must be a PJRTBuffer, not {.obj_type_friendly {constants[[k]]}}.")
  }
  phantoms <- result$phantom_specs %||% list()
  phantom_dtypes <- vapply(seq_along(phantoms), function(k) {
    spec_dtype(phantoms[[k]]$dtype, sprintf("phantom_specs[[%d]]$dtype", k))
  }, "")
  phantom_shapes <- lapply(seq_along(phantoms), function(k) {
    spec_shape(phantoms[[k]]$shape, sprintf("phantom_specs[[%d]]$shape", k))
  })
  input_dtypes <- result$input_dtypes
  if (!is.null(input_dtypes)) {
    input_dtypes <- vapply(seq_along(input_dtypes), function(k) {
      value <- input_dtypes[[k]]
      if (length(value) == 1 && is.na(value)) NA_character_ else spec_dtype(value, sprintf("input_dtypes[[%d]]", k))
    }, "")
  }
  list(exec = result$exec, device_spec = device_spec(result$device), out_tree = result$out_tree,
       templates = templates, const_arrays = constants, phantom_dtypes = phantom_dtypes,
       phantom_shapes = phantom_shapes, input_dtypes = input_dtypes)
}

# A dtype name of a compile result (tengen's "bool" included), as the core's name.
spec_dtype <- function(value, what) {
  name <- if (inherits(value, c("DataType", "PJRTElementType")) || is_string(value)) as.character(value)
  canonical <- if (!is.null(name)) dtype_aliases()[name] %|% (if (name %in% dtype_names()) name)
  if (is.null(canonical) || is.na(canonical)) {
    cli::cli_abort("Unsupported type {.val {format(value)}} in {.code {what}}.", call = NULL)
  }
  unname(canonical)
}

`%|%` <- function(x, y) if (length(x) == 1 && !is.na(x)) x else y

spec_shape <- function(value, what) {
  if (!is.numeric(value) || anyNA(value) || any(value < 0 | value != trunc(value) | value >= 2^31)) {
    cli::cli_abort("{.code {what}} must be whole, non-negative numbers below 2^31.", call = NULL)
  }
  as.integer(value)
}

# The AnvlArray every call's result k is wrapped in ($data first, filled per call).
output_template <- function(aval, k, device, backend) {
  if (!is.list(aval) || is.null(aval$dtype) || is.null(aval$shape)) {
    cli::cli_abort("`out_avals[[{k}]]` must be a list with {.code dtype} and {.code shape}.", call = NULL)
  }
  dtype <- spec_dtype(aval$dtype, sprintf("out_avals[[%d]]$dtype", k))
  ambiguous <- isTRUE(aval$ambiguous)
  structure(
    list(data = NULL, dtype = dispatch_dtype_object(dtype),
         shape = spec_shape(aval$shape, sprintf("out_avals[[%d]]$shape", k)),
         device = device, ambiguous = ambiguous, backend = backend),
    class = "AnvlArray"
  )
}

# The $dtype of wrapped results: the ecosystem's DataType where a package providing it is
# installed (tengen's, as upstream pjrt's releases, else xlamisc's, which takes it over), else
# pjrt's own PJRTElementType.
dispatch_dtype_object <- function(name) {
  for (package in c("tengen", "xlamisc")) {
    if (requireNamespace(package, quietly = TRUE) &&
        "as_dtype" %in% getNamespaceExports(package)) {
      as_dtype <- getExportedValue(package, "as_dtype")
      return(as_dtype(if (name == "pred") "bool" else name))
    }
  }
  new_element_type(name)
}
