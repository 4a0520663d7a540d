# Hostile input for the tree and dispatch functions: every argument given values of every kind
# (the outcome tables are snapshotted; each must be "ok" or a clear error), gctorture() over
# dispatch, and repetitions that must not grow R's heap.

values_of_every_kind <- function() {
  list(
    "NULL" = NULL, "NA" = NA, "NA_character_" = NA_character_, "\"x\"" = "x",
    "integer(0)" = integer(0), "-1" = -1, "1.5" = 1.5, "Inf" = Inf, "TRUE" = TRUE,
    "list(1)" = list(1), "identity" = identity, "data.frame(x = 1)" = data.frame(x = 1),
    "externalptr" = null_pointer(), "1:1e6" = 1:1e6
  )
}

# "ok" or the first line of a clear error (ours, worded with cli); anything else fails.
outcome_of <- function(expr) {
  tryCatch({
    utils::capture.output(expr)
    "ok"
  }, error = function(e) {
    message <- cli::ansi_strip(conditionMessage(e))
    if (!inherits(e, "rlang_error") || grepl("std::|cpp11|Invalid input type", message)) {
      stop("Not a clear error: ", message)
    }
    paste("error:", strsplit(message, "\n", fixed = TRUE)[[1]][[1]])
  })
}

sweep <- function(label, fn, args, arg) {
  values <- values_of_every_kind()
  vapply(names(values), function(name) {
    call_args <- args
    call_args[arg] <- list(values[[name]])
    paste0(label, "(", arg, " = ", name, "): ", outcome_of(do.call(fn, call_args)))
  }, "", USE.NAMES = FALSE)
}

test_that("every argument of the tree functions rejects values of the wrong kind", {
  skip_under_valgrind()
  tree <- build_tree(list(a = 1, b = list(2)))
  lines <- c(
    sweep("unflatten", unflatten, list(tree = tree, x = list(1, 2)), "tree"),
    sweep("unflatten", unflatten, list(tree = tree, x = list(1, 2)), "x"),
    sweep("tree_equal", tree_equal, list(a = tree, b = tree), "b"),
    sweep("tree_path", tree_path, list(tree = tree, i = 1), "i"),
    sweep("tree_leaf_mask", tree_leaf_mask, list(tree = tree, groups = "a"), "groups"),
    sweep("tree_filter_by_names", tree_filter_by_names, list(tree = tree, names = "a"), "names"),
    sweep("tree_concat", tree_concat, list(children = list(tree)), "children"),
    sweep("tree_concat", tree_concat, list(children = list(tree), names = "a"), "names"),
    sweep("map_tree", map_tree, list(.x = list(1), .f = identity), ".f"),
    sweep("pmap_tree", pmap_tree, list(.l = list(list(1)), .f = identity), ".l"),
    sweep("flatten_fun", flatten_fun, list(f = identity, in_tree = build_tree(list(1))), "in_tree")
  )
  expect_snapshot(writeLines(lines))
})

test_that("every argument of dispatcher() and dispatch() rejects values of the wrong kind", {
  skip_under_valgrind()
  exec <- pjrt_compile(op_program("negate", n = 1))
  compile <- counting_compile(exec, new.env())
  base <- list(capacity = 4, compile = compile, default_device = pjrt_device)
  d <- do.call(dispatcher, base)
  lines <- c(
    unlist(lapply(c("capacity", "compile", "static", "backend", "move_inputs", "default_device",
                    "extractor", "context"), function(arg) sweep("dispatcher", dispatcher, base, arg))),
    sweep("dispatch", dispatch, list(dispatcher = d, args = list(anvl_array(c(1, 2)))), "dispatcher"),
    sweep("dispatch", dispatch, list(dispatcher = d, args = list(anvl_array(c(1, 2)))), "args"),
    sweep("dispatch<leaf>", function(leaf) dispatch(d, list(x = leaf)), list(leaf = 1), "leaf"),
    sweep("dispatcher_size", dispatcher_size, list(dispatcher = d), "dispatcher")
  )
  expect_snapshot(writeLines(lines))
})

test_that("dispatch survives gctorture()", {
  skip_under_valgrind()
  counter <- new.env()
  d <- pjrt_dispatcher(pjrt_compile(add_scalar_program()), counter, static = "s")
  x <- anvl_array(c(1, 2))
  first <- dispatch(d, list(x = x, y = 3, s = list("k", 1:3)))  # the compile, outside
  gctorture(TRUE)
  first <- dispatch(d, list(x = x, y = 3, s = list("k", 1:3)))
  second <- dispatch(d, list(x = first, y = 4, s = list("k", 1:3)))
  gctorture(FALSE)
  expect_identical(values_of(second), c(8, 9))
  expect_identical(counter$n, 1)
})

test_that("dispatch and the tree functions leak nothing over many repetitions", {
  skip_under_valgrind("repetitions (memcheck's own leak check covers the other runs)")
  heap <- function() {
    for (k in 1:4) gc(full = TRUE)
    used <- gc(full = TRUE)[, 1]
    used[["Ncells"]] * 56 + used[["Vcells"]] * 8
  }
  growth <- function(f, times = 300) {
    f()
    before <- heap()
    for (k in seq_len(times)) f()
    heap() - before
  }
  d <- pjrt_dispatcher(pjrt_compile(add_scalar_program()), new.env(), capacity = 2)
  x <- anvl_array(c(1, 2))
  expect_lt(growth(function() dispatch(d, list(x, 2))), 1e5)
  # A refused call: the C++ side keeps nothing (the failure is a marker symbol); R's error
  # path holds about 1 KB per error in a session, as pjrt_buffer()'s errors do.
  expect_lt(growth(function() pjrt:::ffi_dispatch_run(d, list(x, "no"))), 1e5)
  expect_lt(growth(function() try(dispatch(d, list(x, "no")), silent = TRUE)), 2e6)
  # Misses that evict: entries and their keys are released.
  k <- 0
  expect_lt(growth(function() {
    k <<- k + 1
    try(dispatch(d, stats::setNames(list(x, 2), c(paste0("a", k), "b"))), silent = TRUE)
  }), 2e5)
  tree <- build_tree(list(a = 1, b = list(2, NULL)))
  expect_lt(growth(function() unflatten(tree, flatten(list(a = "p", b = list("q", NULL))))), 1e5)
})
