# RTree (R/tree.R, src/r_tree.cpp): values checked against a base R reference walk and
# hand-written expectations.

# Reference rules written with base R: bare lists recurse, NULL has no leaf, the rest is one.
ref_leaves <- function(x) {
  if (is.null(x)) return(list())
  if (is.list(x) && !is.object(x)) return(do.call(c, c(list(list()), lapply(unname(x), ref_leaves))))
  list(x)
}

test_that("flatten() takes the leaves in depth-first order; unflatten() puts them back", {
  df <- data.frame(a = 1:2)
  x <- list(a = 1, b = list(c = "s", d = NULL, e = list(2L)), df, mean)
  expect_identical(flatten(x), list(1, "s", 2L, df, mean))
  tree <- build_tree(x)
  expect_identical(tree_size(tree), 5L)
  expect_identical(unflatten(tree, flatten(x)), x)
  expect_identical(
    unflatten(tree, list(10, 20, 30, 40, 50)),
    list(a = 10, b = list(c = 20, d = NULL, e = list(30)), 40, 50)
  )
  # A classed list, an atomic vector and a matrix are single leaves.
  expect_identical(flatten(df), list(df))
  expect_identical(flatten(1:5), list(1:5))
  expect_identical(flatten(matrix(1:4, 2)), list(matrix(1:4, 2)))
  # A leaf at the root, and NULL at the root.
  expect_identical(unflatten(build_tree(7), list("x")), "x")
  expect_identical(flatten(NULL), list())
  expect_identical(tree_size(build_tree(NULL)), 0L)
  expect_null(unflatten(build_tree(NULL), list()))
})

test_that("empty lists, empty names and names in other encodings round-trip", {
  named_empty <- structure(list(), names = character(0))
  for (x in list(list(), named_empty, list(list()), structure(list(1, 2), names = c("", "")))) {
    expect_identical(unflatten(build_tree(x), flatten(x)), x)
  }
  latin1 <- iconv("\u00e9", "UTF-8", "latin1")
  x <- structure(list(1), names = latin1)
  expect_identical(names(unflatten(build_tree(x), list(2))), "\u00e9")
  expect_true(tree_equal(build_tree(x), build_tree(list("\u00e9" = 3))))
})

test_that("random nested values agree with the reference walk", {
  withr::local_seed(7)
  random_value <- function(depth) {
    if (depth == 0 || runif(1) < 0.3) {
      return(switch(sample(4, 1), rnorm(2), sample(9, 1), NULL, structure(list(1), class = "k")))
    }
    children <- lapply(seq_len(sample(0:3, 1)), function(i) random_value(depth - 1))
    if (length(children) > 0 && runif(1) < 0.5) names(children) <- sample(letters, length(children))
    children
  }
  for (rep in 1:60) {
    x <- random_value(4)
    leaves <- ref_leaves(x)
    expect_identical(flatten(x), leaves)
    expect_identical(tree_size(build_tree(x)), length(leaves))
    expect_identical(unflatten(build_tree(x), leaves), x)
  }
})

test_that("tree_equal() and tree_hash() compare structure, not leaf values", {
  h <- function(x) tree_hash(build_tree(x))
  same <- list(
    list(list(a = 1, b = list(2)), list(a = "x", b = list(mean))),
    list(list(1, NULL), list(2, NULL)),
    list(1, "leaf")
  )
  for (pair in same) {
    expect_true(tree_equal(build_tree(pair[[1]]), build_tree(pair[[2]])))
    expect_identical(h(pair[[1]]), h(pair[[2]]))
  }
  different <- list(
    list(list(a = 1), list(b = 1)),
    list(list(1), list(1, 2)),
    list(list(1), 1),
    list(list(1, NULL), list(NULL, 1)),
    list(list(1, 2), list(a = 1, b = 2)),
    list(list(), structure(list(), names = character(0))),
    list(NULL, 1),
    list(list(list(1), 2), list(list(1, 2)))
  )
  for (pair in different) {
    expect_false(tree_equal(build_tree(pair[[1]]), build_tree(pair[[2]])))
    expect_false(h(pair[[1]]) == h(pair[[2]]))
  }
  expect_match(h(list(1)), "^[0-9]+$")
})

test_that("tree_repr() and printing spell the structure", {
  cases <- list(
    "*" = 1,
    "NULL" = NULL,
    "list()" = list(),
    "list<named>()" = structure(list(), names = character(0)),
    "list(*, list(*, NULL))" = list(1, list(2, NULL)),
    "list<named>(a = *, *, c = list<named>(d = *))" = list(a = 1, 2, c = list(d = 3)),
    "list<named>(*, *)" = structure(list(1, 2), names = c("", ""))
  )
  for (text in names(cases)) expect_identical(tree_repr(build_tree(cases[[text]])), text)
  expect_identical(format(build_tree(list(a = 1))), "list<named>(a = *)")
  expect_snapshot({
    build_tree(list(w = 1, b = list(2, NULL)))
    print(build_tree(mean))
  })
})

test_that("tree_path() names each leaf as R code reaches it", {
  x <- list(p = 1, q = list(2, r = list(3, list(s = 4))), 5, list(u = 6))
  paths <- vapply(1:6, tree_path, "", tree = build_tree(x))
  expect_identical(paths, c("p", "q[[1]]", "q$r[[1]]", "q$r[[2]]$s", "[[3]]", "[[4]]$u"))
  # Each path evaluates to its leaf.
  for (i in 1:6) {
    expect_identical(eval(parse(text = paste0("x", if (startsWith(paths[[i]], "[")) "" else "$", paths[[i]]))),
                     flatten(x)[[i]])
  }
  expect_identical(tree_path(build_tree(9), 1), "")
  expect_identical(tree_path(build_tree(list(NULL, list(NULL, 1))), 1L), "[[2]][[2]]")
})

test_that("tree_diff() reports the first difference in depth-first order", {
  d <- function(a, b) tree_diff(build_tree(a), build_tree(b))
  expect_null(d(list(a = 1, b = list(2)), list(a = "x", b = list(3))))
  expect_identical(d(1, list(1)), list(prefix = "", a = "*", b = "list(*)"))
  expect_identical(
    d(list(m = list(w = 1, b = 2), z = 1), list(m = list(w = 1, b = list(k = 2)), z = list())),
    list(prefix = "m$b", a = "*", b = "list<named>(k = *)")
  )
  expect_identical(
    d(list(1, list(2, 3)), list(1, list(2, 3, 4))),
    list(prefix = "[[2]]", a = "list(*, *)", b = "list(*, *, *)")
  )
  expect_identical(
    d(list(a = 1), list(b = 1)),
    list(prefix = "", a = "list<named>(a = *)", b = "list<named>(b = *)")
  )
})

test_that("the root's children: names, kinds, sizes, masks, filtering, concatenation", {
  tree <- build_tree(list(a = 1, b = list(2, list(3)), c = NULL, d = 4))
  expect_identical(tree_root_kind(tree), "list")
  expect_identical(tree_root_kind(build_tree(1)), "leaf")
  expect_identical(tree_root_kind(build_tree(NULL)), "null")
  expect_identical(tree_child_names(tree), c("a", "b", "c", "d"))
  expect_identical(tree_child_names(build_tree(list(1, b = 2))), c("", "b"))
  expect_identical(tree_child_names(build_tree(structure(list(), names = character(0)))), character(0))
  expect_null(tree_child_names(build_tree(list(1))))
  expect_null(tree_child_names(build_tree(1)))
  expect_identical(tree_child_kinds(tree), c("leaf", "list", "null", "leaf"))
  expect_identical(tree_child_sizes(tree), c(1L, 2L, 0L, 1L))
  expect_identical(tree_leaf_mask(tree, "b"), c(FALSE, TRUE, TRUE, FALSE))
  expect_identical(tree_leaf_mask(tree, c("d", "a", "nope")), c(TRUE, FALSE, FALSE, TRUE))
  expect_identical(tree_leaf_mask(tree, character()), rep(FALSE, 4))
  expect_identical(tree_leaf_mask(build_tree(list(1, 2)), "a"), c(FALSE, FALSE))

  kept <- tree_filter_by_names(tree, c("d", "b"))
  expect_identical(tree_repr(kept), "list<named>(b = list(*, list(*)), d = *)")
  expect_identical(unflatten(kept, list(7, 8, 9)), list(b = list(7, list(8)), d = 9))
  expect_identical(tree_size(tree_filter_by_names(tree, character())), 0L)

  joined <- tree_concat(list(build_tree(list(1, 2)), build_tree(list(g = 3)), build_tree(NULL)),
                        names = c("value", "grad", "none"))
  expect_identical(tree_size(joined), 3L)
  expect_identical(unflatten(joined, list(1, 2, 3)),
                   list(value = list(1, 2), grad = list(g = 3), none = NULL))
  expect_identical(unflatten(tree_concat(list(build_tree(1), build_tree(2))), list("x", "y")),
                   list("x", "y"))
  expect_identical(tree_repr(tree_concat(list())), "list()")
})

test_that("map_tree() and pmap_tree() keep the structure", {
  x <- list(a = 1, b = list(c = 2, d = NULL), 3)
  expect_identical(map_tree(x, function(v) v * 10), list(a = 10, b = list(c = 20, d = NULL), 30))
  expect_identical(map_tree(x, `+`, 1), list(a = 2, b = list(c = 3, d = NULL), 4))
  expect_identical(map_tree(5, sqrt), sqrt(5))
  # A function may return NULL for a leaf.
  expect_identical(map_tree(list(1, 2), function(v) NULL), list(NULL, NULL))
  expect_identical(
    pmap_tree(list(list(a = 1, b = list(2)), list(a = 10, b = list(20)), list(a = 100, b = list(200))), sum),
    list(a = 111, b = list(222))
  )
  expect_identical(pmap_tree(list(list(p = 2)), function(v, k) v^k, 3), list(p = 8))
})

test_that("flatten_fun() calls the function on rebuilt arguments", {
  f <- function(p, q) list(total = p$a + p$b * q, echo = q)
  ff <- flatten_fun(f, build_tree(list(list(a = 1, b = 2), 3)))
  expect_s3_class(ff, "FlattenedFunction")
  out <- ff(10, 20, 30)
  expect_identical(tree_repr(out[[1]]), "list<named>(total = *, echo = *)")
  expect_identical(out[[2]], list(610, 30))
  expect_identical(unflatten(out[[1]], out[[2]]), list(total = 610, echo = 30))
})

test_that("tree errors are clear", {
  tree <- build_tree(list(a = 1, b = 2))
  expect_snapshot(error = TRUE, {
    tree_size(1)
    tree_equal(tree, pjrt_scalar(1))
    unflatten(tree, list(1))
    unflatten(tree, 1:2)
    tree_path(tree, 3)
    tree_path(tree, 0)
    tree_path(tree, 1.5)
    tree_child_kinds(build_tree(1))
    tree_leaf_mask(build_tree(NULL), "a")
    tree_filter_by_names(build_tree(list(1)), "a")
    tree_leaf_mask(tree, 1)
    tree_concat(list(tree, 1))
    tree_concat(tree)
    tree_concat(list(tree), names = c("a", "b"))
    tree_concat(list(tree), names = NA_character_)
    build_tree(setNames(list(1, 2), c("a", NA)))
    flatten_fun(identity, list())
    flatten_fun(identity, build_tree(1))
    pmap_tree(list(), c)
  })
  expect_snapshot(error = TRUE, {
    map_tree(list(a = 1, b = list(c = "x")), function(v) v + 1)
    map_tree("x", function(v) v + 1)
    pmap_tree(list(list(m = list(w = 1, b = 2)), list(m = list(w = 1, b = list(z = 9)))), `+`)
    pmap_tree(list(1, list(1)), `+`)
  })
})

test_that("deep nesting is an error, not a crash", {
  deep <- 1
  for (k in 1:10001) deep <- list(deep)
  expect_snapshot(error = TRUE, build_tree(deep))
  ok <- 1
  for (k in 1:2000) ok <- list(ok)
  expect_identical(unflatten(build_tree(ok), list(2))[[c(rep(1, 2000))]], 2)
})

test_that("a saved and restored RTree is refused", {
  path <- withr::local_tempfile(fileext = ".rds")
  saveRDS(build_tree(list(1)), path)
  expect_snapshot(error = TRUE, tree_size(readRDS(path)))
})
