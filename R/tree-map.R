# Functions over the leaves of trees: map_tree(), pmap_tree() and flatten_fun().

#' Apply a function to every leaf
#'
#' @description
#' `map_tree()` calls `.f` on each leaf of `.x` (see [build_tree()] for what a leaf is) and
#' returns the results in `.x`'s structure, names and `NULL`s included.
#'
#' `pmap_tree()` does the same over several values of one structure: `.f` receives the
#' leaves at the same position of each element of `.l`, in order. Values whose structures
#' differ are an error that shows where they first differ.
#'
#' An error in `.f` is reported with the path of the leaf it failed on ([tree_path()]); the
#' original error is its parent.
#'
#' @param .x Any R value.
#' @param .l A non-empty list of values with the same structure.
#' @param .f A function.
#' @param ... More arguments for `.f`, after the leaves.
#' @return A value with the structure of `.x` (or of `.l[[1]]`).
#' @examples
#' map_tree(list(a = 1, b = list(2, NULL)), function(v) v * 10)
#' pmap_tree(list(list(a = 1, b = 2), list(a = 10, b = 20)), `+`)
#' try(map_tree(list(a = 1, b = "x"), function(v) v + 1))
#' @export
map_tree <- function(.x, .f, ...) {
  check_function_arg(.f, ".f")
  parts <- with_core(ffi_tree_flatten(.x, TRUE))
  tree <- parts[[1]]
  leaves <- parts[[2]]
  results <- vector("list", length(leaves))
  for (i in seq_along(leaves)) {
    results[i] <- list(with_leaf_context(.f(leaves[[i]], ...), tree, i, "leaf"))
  }
  unflatten(tree, results)
}

#' @rdname map_tree
#' @export
pmap_tree <- function(.l, .f, ...) {
  if (!is.list(.l) || is.object(.l) || length(.l) == 0) {
    values <- .l
    cli::cli_abort("{.arg .l} must be a non-empty list of trees, not {.obj_type_friendly {values}}.")
  }
  check_function_arg(.f, ".f")
  first <- with_core(ffi_tree_flatten(.l[[1]], TRUE))
  tree <- first[[1]]
  columns <- vector("list", length(.l))
  columns[[1]] <- first[[2]]
  for (k in seq_along(.l)[-1]) {
    other <- with_core(ffi_tree_flatten(.l[[k]], TRUE))
    difference <- tree_diff(tree, other[[1]])
    if (!is.null(difference)) abort_tree_mismatch(difference, k)
    columns[[k]] <- other[[2]]
  }
  results <- vector("list", tree_size(tree))
  for (i in seq_along(results)) {
    leaves <- lapply(columns, `[[`, i)
    results[i] <- list(with_leaf_context(do.call(.f, c(leaves, list(...))), tree, i, "leaves"))
  }
  unflatten(tree, results)
}

# Evaluates `expr` (a call of .f on leaf i) and rethrows its error naming the leaf's path.
with_leaf_context <- function(expr, tree, i, what) {
  tryCatch(expr, error = function(e) {
    path <- tree_path(tree, i)
    where <- if (nzchar(path)) path else "<root>"
    cli::cli_abort("Error applying {.arg .f} to {what} at {.code {where}}.", parent = e,
                   call = NULL)
  })
}

abort_tree_mismatch <- function(difference, k, call = caller_env()) {
  where <- if (nzchar(difference$prefix)) {
    cli::format_inline("First mismatch at {.code {difference$prefix}}:")
  } else {
    "The trees differ at the root:"
  }
  cli::cli_abort(c(
    "All trees in {.arg .l} must have the same structure.",
    x = "{where}",
    "*" = "{.code .l[[1]]}: {difference$a}",
    "*" = "{.code .l[[{k}]]}: {difference$b}"
  ), call = call)
}

#' A function over flat leaves
#'
#' `flatten_fun()` turns `f`, a function of nested arguments, into one of their leaves:
#' the returned function takes the leaves of `build_tree(list(arg1, arg2, ...))`'s
#' structure (`in_tree`) as its arguments, rebuilds the arguments with [unflatten()], calls
#' `f` and returns `list(build_tree(result), flatten(result))`.
#'
#' @param f A function.
#' @param in_tree The `RTree` of `f`'s argument list, `build_tree(list(...))`.
#' @return A function of class `FlattenedFunction`.
#' @examples
#' f <- function(p, q) list(total = p$a + p$b + q)
#' ff <- flatten_fun(f, build_tree(list(list(a = 1, b = 2), 3)))
#' ff(10, 20, 30)
#' @export
flatten_fun <- function(f, in_tree) {
  check_function_arg(f, "f")
  if (!inherits(in_tree, "RTree")) {
    cli::cli_abort("{.arg in_tree} must be an RTree, not {.obj_type_friendly {in_tree}}.")
  }
  if (tree_root_kind(in_tree) != "list") {
    cli::cli_abort("{.arg in_tree} must be the tree of an argument list (a list).")
  }
  flat <- function(...) {
    arguments <- unflatten(in_tree, list(...))
    result <- do.call(f, arguments)
    list(build_tree(result), flatten(result))
  }
  class(flat) <- "FlattenedFunction"
  flat
}
