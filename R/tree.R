# RTree: the structure of nested lists apart from their leaves (src/r_tree.h holds the rules).

#' Trees of nested lists
#'
#' @description
#' An `RTree` records how an R value nests, so that its leaves can be taken out as one flat
#' list and put back later (the idea of JAX's "pytrees"). The rules:
#'
#' * a bare list (a list without a class attribute) is a node whose children are its
#'   elements, and the tree remembers whether it had names and which;
#' * `NULL` is an empty node: it holds no leaf but keeps its place, so `list(x, NULL)` and
#'   `list(NULL, x)` have different trees;
#' * every other value (an atomic vector, a function, a classed object such as a data frame
#'   or a PJRTBuffer) is one leaf.
#'
#' `build_tree()` records the structure, `flatten()` returns the leaves in order (depth
#' first, left to right) and `unflatten()` puts a list of leaves back into a tree's
#' structure: `unflatten(build_tree(x), flatten(x))` is `x`. `tree_size()` is the number of
#' leaves.
#'
#' @details
#' An `RTree` is an opaque object; it prints as [tree_repr()]. List names must not be `NA`,
#' and lists nest at most 10,000 levels deep.
#'
#' @param x For `build_tree()` and `flatten()`, any R value. For `unflatten()`, a list with
#'   one leaf per leaf of `tree`, in flatten order.
#' @param tree An `RTree` from `build_tree()` (or from the other tree functions).
#' @return `build_tree()`: an `RTree`. `flatten()`: a list of the leaves. `unflatten()`: the
#'   rebuilt value (a leaf itself when the tree is a single leaf). `tree_size()`: an integer.
#' @seealso [tree_equal()], [tree_path()], [map_tree()], [flatten_fun()].
#' @examples
#' x <- list(w = 1:3, b = list(2, NULL), f = mean)
#' tree <- build_tree(x)
#' tree
#' tree_size(tree)
#' flatten(x)
#' unflatten(tree, list("a", "b", "c"))
#' @export
build_tree <- function(x) with_core(ffi_tree_build(x))

#' @rdname build_tree
#' @export
flatten <- function(x) with_core(ffi_tree_flatten(x, FALSE))

#' @rdname build_tree
#' @export
unflatten <- function(tree, x) with_core(ffi_tree_unflatten(tree, x))

#' @rdname build_tree
#' @export
tree_size <- function(tree) as.integer(with_core(ffi_tree_size(tree)))

#' @export
format.RTree <- function(x, ...) tree_repr(x)

#' @export
print.RTree <- function(x, ...) {
  cat(format(x), "\n", sep = "")
  invisible(x)
}

#' Compare, hash and describe trees
#'
#' @description
#' * `tree_equal()` is `TRUE` when two trees have the same structure: the same kinds of node
#'   in the same places, the same numbers of children and the same names (a named list and
#'   an unnamed one differ even when empty). Leaf values play no part.
#' * `tree_hash()` is a hash of the structure that agrees with `tree_equal()` (equal trees
#'   hash alike), as text: a cache key.
#' * `tree_repr()` spells the structure: `*` for a leaf, `NULL` for an empty node,
#'   `list(...)` for an unnamed list and `list<named>(...)` for a named one, its elements
#'   written `name = ...` (an element with an empty name is written without one).
#' * `tree_diff()` finds where two trees first differ, walking both depth first: `NULL` when
#'   they are equal, else a list of `prefix` (the path there, as [tree_path()] writes it)
#'   and `a` and `b`, the [tree_repr()] of both subtrees there.
#' * `tree_root_kind()` is `"leaf"`, `"list"` or `"null"`.
#'
#' @param a,b,tree `RTree`s from [build_tree()].
#' @return `tree_equal()`: `TRUE` or `FALSE`. `tree_hash()`, `tree_repr()`,
#'   `tree_root_kind()`: a string. `tree_diff()`: `NULL` or a list.
#' @examples
#' tree_equal(build_tree(list(a = 1)), build_tree(list(a = "x")))
#' tree_equal(build_tree(list(a = 1)), build_tree(list(1)))
#' tree_hash(build_tree(list(a = 1))) == tree_hash(build_tree(list(a = 2)))
#' tree_repr(build_tree(list(a = 1, list(2, NULL))))
#' tree_diff(build_tree(list(p = list(1, 2))), build_tree(list(p = list(1, list(2)))))
#' tree_root_kind(build_tree(NULL))
#' @export
tree_equal <- function(a, b) with_core(ffi_tree_equal(a, b))

#' @rdname tree_equal
#' @export
tree_hash <- function(tree) with_core(ffi_tree_hash(tree))

#' @rdname tree_equal
#' @export
tree_repr <- function(tree) with_core(ffi_tree_repr(tree))

#' @rdname tree_equal
#' @export
tree_diff <- function(a, b) with_core(ffi_tree_diff(a, b))

#' @rdname tree_equal
#' @export
tree_root_kind <- function(tree) with_core(ffi_tree_kind(tree))

#' The path of a leaf
#'
#' `tree_path()` writes how leaf `i` (in flatten order) is reached from the root, as R code
#' would: a named element as its name (`a`, then `$b` below it), an unnamed one (or one with
#' an empty name) as `[[k]]`. A leaf at the root has the path `""`.
#'
#' @param tree An `RTree` from [build_tree()].
#' @param i The leaf's 1-based index, a whole number from 1 to `tree_size(tree)`.
#' @return A string.
#' @examples
#' tree <- build_tree(list(x = 1, y = list(2, list(z = 3))))
#' vapply(1:3, tree_path, "", tree = tree)
#' @export
tree_path <- function(tree, i) {
  if (!is_whole_number(i) || abs(i) > 2^53) {
    cli::cli_abort("{.arg i} must be a single whole number, not {.obj_type_friendly {i}}.")
  }
  with_core(ffi_tree_path(tree, as.double(i)))
}

#' The children of a tree's root
#'
#' @description
#' These read the top level of a tree whose root is a list:
#'
#' * `tree_child_names()`: the names of the root's elements (`""` for unnamed ones), or
#'   `NULL` when the root is not a list or its list had no names (an empty named list gives
#'   `character(0)`).
#' * `tree_child_kinds()`: per element, `"leaf"`, `"list"` or `"null"`.
#' * `tree_child_sizes()`: per element, its number of leaves.
#' * `tree_leaf_mask()`: per leaf, in flatten order, whether it lies under an element whose
#'   name is in `groups` (all `FALSE` for an unnamed root).
#' * `tree_filter_by_names()`: the tree of the named root's elements whose names are in
#'   `names`, in the tree's order, their leaves numbered from 1 again.
#' * `tree_concat()`: a new list root whose elements are the trees in `children`, named by
#'   `names` when given.
#'
#' All but `tree_child_names()` and `tree_concat()` are errors for a tree whose root is not
#' a list.
#'
#' @param tree An `RTree` from [build_tree()].
#' @param groups,names Character vectors of element names. For `tree_concat()`, `names` is
#'   `NULL` or one name per child (no `NA`).
#' @param children A list of `RTree`s.
#' @return Character, integer or logical vectors, or an `RTree`.
#' @examples
#' tree <- build_tree(list(a = 1, b = list(2, 3), c = NULL))
#' tree_child_names(tree)
#' tree_child_kinds(tree)
#' tree_child_sizes(tree)
#' tree_leaf_mask(tree, "b")
#' tree_filter_by_names(tree, c("c", "a"))
#' tree_concat(list(build_tree(1), tree), names = c("x", "rest"))
#' @export
tree_child_names <- function(tree) with_core(ffi_tree_child_names(tree))

#' @rdname tree_child_names
#' @export
tree_child_kinds <- function(tree) with_core(ffi_tree_child_kinds(tree))

#' @rdname tree_child_names
#' @export
tree_child_sizes <- function(tree) with_core(ffi_tree_child_sizes(tree))

#' @rdname tree_child_names
#' @export
tree_leaf_mask <- function(tree, groups) {
  check_names_arg(groups, "groups")
  with_core(ffi_tree_leaf_mask(tree, as.character(groups)))
}

#' @rdname tree_child_names
#' @export
tree_filter_by_names <- function(tree, names) {
  check_names_arg(names, "names")
  with_core(ffi_tree_filter_by_names(tree, as.character(names)))
}

#' @rdname tree_child_names
#' @export
tree_concat <- function(children, names = NULL) {
  if (!is.list(children) || is.object(children)) {
    cli::cli_abort("{.arg children} must be a list of RTrees, not {.obj_type_friendly {children}}.")
  }
  if (!is.null(names)) {
    if (!is.character(names) || anyNA(names)) {
      cli::cli_abort("{.arg names} must be NULL or a character vector without NA.")
    }
    if (length(names) != length(children)) {
      cli::cli_abort(
        "{.arg names} has {length(names)} element{?s}, but {.arg children} has {length(children)}."
      )
    }
  }
  with_core(ffi_tree_concat(children, names))
}

check_names_arg <- function(x, arg, call = caller_env()) {
  if (!is.character(x) && !(is.null(x) || (is.logical(x) && length(x) == 0))) {
    cli::cli_abort("{.arg {arg}} must be a character vector, not {.obj_type_friendly {x}}.",
                   call = call)
  }
  invisible(x)
}
