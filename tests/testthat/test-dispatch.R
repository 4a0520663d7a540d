# dispatcher() / dispatch() (R/dispatch.R, src/r_dispatch*.cpp). Results are checked against
# arithmetic done in R; cache behaviour through the compile callback's call count.

add <- pjrt_compile(op_program("add"))

test_that("a call compiles once, then hits, and returns wrapped results", {
  counter <- new.env()
  d <- pjrt_dispatcher(add, counter)
  x <- anvl_array(c(1, 2))
  y <- anvl_array(c(10, 20))
  r <- dispatch(d, list(x = x, y = y))
  expect_s3_class(r, "AnvlArray")
  expect_named(r, c("data", "dtype", "shape", "device", "ambiguous", "backend"))
  expect_identical(plain(as_array(r$data)), c(11, 22))
  expect_identical(as.character(r$dtype), "f32")
  expect_identical(r$shape, 2L)
  expect_identical(r$device, pjrt_device("cpu:0"))
  expect_false(r$ambiguous)
  expect_identical(r$backend, "pjrt")
  expect_identical(counter$n, 1)
  # Same signature: a hit; a result is an input like any other.
  expect_identical(values_of(dispatch(d, list(x = r, y = y))), c(21, 42))
  expect_identical(counter$n, 1)
  expect_identical(dispatcher_size(d), 1L)
  # What the callback saw.
  info <- counter$info
  expect_identical(names(info), c("args", "in_tree", "leaves", "is_static", "avals",
                                  "default_device", "context"))
  expect_identical(tree_repr(info$in_tree), "list<named>(x = *, y = *)")
  expect_identical(info$leaves, list(x, y))
  expect_identical(info$is_static, c(FALSE, FALSE))
  expect_identical(info$avals[[1]], list(dtype = "f32", shape = 2L, ambiguous = FALSE, kind = "array"))
  expect_null(info$default_device)
  expect_null(info$context)
})

test_that("each part of the key splits the cache", {
  counter <- new.env()
  id <- pjrt_compile(pjrt_program("func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  return %x : tensor<2xf32>\n}"))
  d <- dispatcher(50, function(info) {
    counter$n <- counter$n + 1
    list(exec = id, device = pjrt_device(), out_tree = build_tree(0),
         out_avals = list(list(dtype = "f32", shape = 2L)))
  }, default_device = pjrt_device)
  counter$n <- 0
  call <- function(...) try(dispatch(d, list(...)), silent = TRUE)
  call(x = anvl_array(c(1, 2)))
  call(x = anvl_array(c(3, 4)))                             # values: same key
  expect_identical(counter$n, 1)
  call(x = anvl_array(c(1, 2, 3)))                          # shape
  call(x = anvl_array(pjrt_buffer(c(1, 2), dtype = "f64"))) # dtype
  call(x = anvl_array(c(1, 2), ambiguous = TRUE))           # ambiguous flag
  call(y = anvl_array(c(1, 2)))                             # argument name
  call(anvl_array(c(1, 2)))                                 # unnamed
  call(x = list(anvl_array(c(1, 2))))                       # nesting
  call(x = anvl_array(c(1, 2)), NULL)                       # a NULL argument
  expect_identical(counter$n, 8)
  expect_identical(dispatcher_size(d), 8L)
})

test_that("every dtype of the runtime is its own entry", {
  counter <- new.env()
  id <- pjrt_compile(pjrt_program("func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  return %x : tensor<2xf32>\n}"))
  seen <- character()
  d <- dispatcher(50, function(info) {
    seen <<- c(seen, info$avals[[1]]$dtype)
    list(exec = id, device = pjrt_device(), out_tree = build_tree(0),
         out_avals = list(list(dtype = "f32", shape = 2L)))
  }, default_device = pjrt_device)
  dtypes <- c("pred", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64", "f16", "bf16",
              "f32", "f64", "c64", "c128")
  for (dt in dtypes) {
    data <- if (dt == "pred") c(TRUE, FALSE) else if (dt %in% c("c64", "c128")) complex(real = 1:2) else 1:2
    try(dispatch(d, list(x = anvl_array(pjrt_buffer(data, dtype = dt)))), silent = TRUE)
  }
  expect_identical(seen, replace(dtypes, 1, "bool"))
  expect_identical(dispatcher_size(d), length(dtypes))
})

test_that("bare R data is uploaded per call and keyed by R type and shape", {
  counter <- new.env()
  d <- pjrt_dispatcher(pjrt_compile(add_scalar_program()), counter)
  x <- anvl_array(c(1, 2))
  expect_identical(values_of(dispatch(d, list(x, 5))), c(6, 7))
  expect_identical(values_of(dispatch(d, list(x, 50))), c(51, 52))
  expect_identical(counter$n, 1)
  expect_identical(counter$info$avals[[2]], list(dtype = "f32", shape = integer(), ambiguous = TRUE,
                                                 kind = "rdata"))
  # An ambiguous f32 scalar array has the literal's aval and shares its entry.
  scalar <- anvl_array(pjrt_scalar(5, dtype = "f32"), ambiguous = TRUE)
  expect_identical(values_of(dispatch(d, list(x, scalar))), c(6, 7))
  expect_identical(counter$n, 1)
  # An integer or logical literal is another key.
  expect_error(dispatch(d, list(x, 3L)))
  expect_error(dispatch(d, list(x, TRUE)))
  expect_identical(counter$n, 3)
  # R arrays upload in R's order, as pjrt_buffer() does.
  m <- matrix(c(1, 2, 3, 4), 2)
  id <- pjrt_compile(pjrt_program("func.func @main(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {\n  return %x : tensor<2x2xf32>\n}"))
  e <- pjrt_dispatcher(id, new.env(), shape = c(2L, 2L))
  expect_identical(values_of(dispatch(e, list(m))), m)
  expect_identical(values_of(dispatch(e, list(m * 10))), m * 10)
})

test_that("declared input dtypes upload bare R data at them", {
  counter <- new.env()
  add64 <- pjrt_compile(op_program("add", "tensor<f64>"))
  d <- pjrt_dispatcher(add64, counter, dtype = "f64", shape = integer(),
                       input_dtypes = c(NA, "f64"))
  x <- anvl_array(pjrt_scalar(0.25, dtype = "f64"))
  # 0.1 as f64 exactly (as f32 it would be 0.100000001490116...).
  expect_identical(values_of(dispatch(d, list(x, 0.1))), 0.25 + 0.1)
  expect_identical(values_of(dispatch(d, list(x, 1 / 3))), 0.25 + 1 / 3)
  expect_identical(counter$n, 1)
})

test_that("static arguments key by value and are not inputs", {
  counter <- new.env()
  d <- pjrt_dispatcher(pjrt_compile(op_program("negate", n = 1)), counter, static = "s")
  x <- anvl_array(c(1, -2))
  expect_identical(values_of(dispatch(d, list(x = x, s = TRUE))), c(-1, 2))
  expect_identical(counter$info$is_static, c(FALSE, TRUE))
  expect_null(counter$info$avals[[2]])
  fresh <- function(a, b) {
    d2 <- pjrt_dispatcher(pjrt_compile(op_program("negate", n = 1)), e <- new.env(), static = "s")
    dispatch(d2, list(x = x, s = a))
    dispatch(d2, list(x = x, s = b))
    e$n == 1
  }
  expect_true(fresh(1L, 1L))
  expect_true(fresh("a", "a"))
  expect_true(fresh(NaN, NaN))
  expect_true(fresh(1:3, c(1L, 2L, 3L)))
  expect_true(fresh("\u00e9", iconv("\u00e9", "UTF-8", "latin1")))
  expect_true(fresh(list(a = 1, b = "z"), list(a = 1, b = "z")))
  expect_false(fresh(1L, 2L))
  expect_false(fresh(1L, 1))
  expect_false(fresh(TRUE, FALSE))
  expect_false(fresh(NaN, NA_real_))
  expect_false(fresh(NA_character_, "NA"))
  expect_false(fresh(c(1, 2), c(2, 1)))
  zero <- 0
  expect_false(fresh(zero, -1 * zero))
  expect_true(identical(bit64::as.integer64(0), bit64::NA_integer64_))
  expect_false(fresh(bit64::as.integer64(0), bit64::NA_integer64_))
  make <- function() function() NULL
  f1 <- make()
  expect_true(fresh(f1, f1))
  expect_false(fresh(f1, make()))
  # A static need not appear in every call.
  expect_identical(values_of(dispatch(d, list(x = x))), c(-1, 2))
})

test_that("the context value joins the key and reaches the callback", {
  counter <- new.env()
  current <- c(float = "f32")
  d <- pjrt_dispatcher(add, counter, context = function() current)
  x <- anvl_array(c(1, 2))
  dispatch(d, list(x, x))
  dispatch(d, list(x, x))
  expect_identical(counter$n, 1)
  expect_identical(counter$info$context, c(float = "f32"))
  current <- c(float = "f64")
  dispatch(d, list(x, x))
  expect_identical(counter$n, 2)
  expect_identical(counter$info$context, c(float = "f64"))
  current <- c(float = "f32")
  dispatch(d, list(x, x))
  expect_identical(counter$n, 2)
})

test_that("a call without arrays runs on the default device, which joins the key", {
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "2")
  counter <- new.env()
  scalar_add <- function(device) pjrt_compile(op_program("add", "tensor<f32>"), device = device)
  current <- "cpu:0"
  d <- dispatcher(10, function(info) {
    counter$n <- counter$n + 1
    counter$info <- info
    list(exec = scalar_add(info$default_device), device = info$default_device,
         out_tree = build_tree(list(sum = 0)), out_avals = list(list(dtype = "f32", shape = integer())))
  }, default_device = function() pjrt_device(current))
  counter$n <- 0
  r <- dispatch(d, list(2, 40))
  expect_identical(names(r), "sum")
  expect_identical(values_of(r$sum), 42)
  expect_identical(counter$info$default_device, pjrt_device("cpu:0"))
  expect_identical(device(r$sum$data), pjrt_device("cpu:0"))
  dispatch(d, list(1, 1))
  expect_identical(counter$n, 1)
  current <- "cpu:1"
  r <- dispatch(d, list(1, 1))
  expect_identical(counter$n, 2)
  expect_identical(device(r$sum$data), pjrt_device("cpu:1"))
  expect_identical(r$sum$device, pjrt_device("cpu:1"))
})

test_that("inputs on different devices are an error, unless move_inputs copies them", {
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "2")
  x0 <- anvl_array(pjrt_buffer(c(1, 2), dtype = "f32", device = "cpu:0"))
  y1 <- anvl_array(pjrt_buffer(c(3, 4), dtype = "f32", device = "cpu:1"))
  counter <- new.env()
  d <- pjrt_dispatcher(add, counter)
  expect_snapshot(error = TRUE, dispatch(d, list(x = x0, y = y1)))
  expect_identical(counter$n, 0)
  moving <- dispatcher(10, counting_compile(add, counter), move_inputs = TRUE)
  expect_identical(values_of(dispatch(moving, list(x0, y1))), c(4, 6))
  expect_identical(values_of(dispatch(moving, list(y1, y1))), c(6, 8))
  expect_identical(counter$n, 1)
  expect_identical(plain(as_array(y1$data)), c(3, 4))  # the input itself is untouched
  expect_identical(device(y1$data), pjrt_device("cpu:1"))
})

test_that("out_tree nests the results, out_avals stamp them", {
  two <- pjrt_compile(pjrt_program(paste(
    "func.func @main(%x: tensor<2xf32>, %y: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {",
    "  %0 = stablehlo.add %x, %y : tensor<2xf32>",
    "  %1 = stablehlo.multiply %x, %y : tensor<2xf32>",
    "  return %0, %1 : tensor<2xf32>, tensor<2xf32>", "}", sep = "\n")))
  d <- dispatcher(10, function(info) {
    list(exec = two, device = pjrt_device(), out_tree = build_tree(list(sum = 0, rest = list(prod = 0))),
         out_avals = list(list(dtype = "f32", shape = 2L, ambiguous = TRUE), list(dtype = "f32", shape = 2L)))
  }, default_device = pjrt_device)
  r <- dispatch(d, list(anvl_array(c(1, 2)), anvl_array(c(3, 4))))
  expect_identical(names(r), c("sum", "rest"))
  expect_identical(values_of(r$sum), c(4, 6))
  expect_identical(values_of(r$rest$prod), c(3, 8))
  expect_true(r$sum$ambiguous)
  expect_false(r$rest$prod$ambiguous)
})

test_that("const_arrays come first and phantom_specs are fresh buffers last", {
  program <- pjrt_compile(pjrt_program(paste(
    "func.func @main(%c: tensor<2xf32>, %x: tensor<2xf32>, %p: tensor<2xi32> {tf.aliasing_output = 1 : i32})",
    "    -> (tensor<2xf32>, tensor<2xi32>) {",
    "  %0 = stablehlo.subtract %c, %x : tensor<2xf32>",
    "  %1 = stablehlo.constant dense<7> : tensor<2xi32>",
    "  return %0, %1 : tensor<2xf32>, tensor<2xi32>", "}", sep = "\n")))
  constant <- pjrt_buffer(c(100, 200), dtype = "f32")
  d <- dispatcher(10, function(info) {
    list(exec = program, device = pjrt_device(), out_tree = build_tree(list(0, 0)),
         out_avals = list(list(dtype = "f32", shape = 2L), list(dtype = "i32", shape = 2L)),
         const_arrays = list(constant), phantom_specs = list(list(dtype = "i32", shape = 2L)))
  }, default_device = pjrt_device)
  for (k in 1:3) {
    r <- dispatch(d, list(anvl_array(c(1, 2))))
    expect_identical(values_of(r[[1]]), c(99, 198))
    expect_identical(values_of(r[[2]]), c(7L, 7L))
  }
  expect_identical(plain(as_array(constant)), c(100, 200))
})

test_that("the least recently used entry is dropped beyond the capacity", {
  counter <- new.env()
  id <- pjrt_compile(pjrt_program("func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n  return %x : tensor<2xf32>\n}"))
  d <- dispatcher(2, function(info) {
    counter$n <- counter$n + 1
    list(exec = id, device = pjrt_device(), out_tree = build_tree(0),
         out_avals = list(list(dtype = "f32", shape = 2L)))
  }, default_device = pjrt_device)
  counter$n <- 0
  run <- function(name) invisible(try(dispatch(d, stats::setNames(list(anvl_array(c(1, 2))), name)), silent = TRUE))
  run("a"); run("b"); run("a")  # a is now the most recent
  run("c")                      # drops b
  expect_identical(dispatcher_size(d), 2L)
  expect_identical(counter$n, 3)
  run("a"); run("c")
  expect_identical(counter$n, 3)
  run("b")
  expect_identical(counter$n, 4)
})

test_that("a failing compile callback caches nothing", {
  fail <- TRUE
  d <- dispatcher(10, function(info) {
    if (fail) stop("not today")
    list(exec = add, device = pjrt_device(), out_tree = build_tree(0),
         out_avals = list(list(dtype = "f32", shape = 2L)))
  }, default_device = pjrt_device)
  x <- anvl_array(c(1, 2))
  expect_error(dispatch(d, list(x, x)), "not today")
  expect_identical(dispatcher_size(d), 0L)
  fail <- FALSE
  expect_identical(values_of(dispatch(d, list(x, x))), c(2, 4))
})

test_that("many dispatches with collections in between stay correct", {
  skip_under_valgrind("300 repetitions; the ordinary run has them")
  d <- pjrt_dispatcher(pjrt_compile(add_scalar_program()), new.env())
  x <- anvl_array(c(1, 2))
  for (i in as.double(1:300)) {
    r <- dispatch(d, list(x, i))
    if (i %% 100 == 0) gc()
    expect_identical(values_of(r), c(1, 2) + i)
  }
})

test_that("other backends run the compiled closure on the dynamic inputs", {
  counter <- new.env()
  d <- closure_dispatcher(counter, function(flat) list(n = length(flat), sum = flat[[1]] + flat[[2]]),
                          static = "flag")
  a <- closure_array(c(1, 2))
  b <- closure_array(c(10, 20))
  expect_identical(dispatch(d, list(x = a, y = b, flag = TRUE)), list(n = 2L, sum = c(11, 22)))
  expect_identical(dispatch(d, list(x = b, y = b, flag = TRUE)), list(n = 2L, sum = c(20, 40)))
  expect_identical(counter$n, 1)
  expect_identical(dispatch(d, list(x = closure_array(1:2, "i32"), y = b, flag = TRUE)),
                   list(n = 2L, sum = c(11, 22)))
  expect_identical(counter$n, 2)
  expect_identical(dispatch(d, list(x = a, y = 3, flag = FALSE)), list(n = 2L, sum = c(4, 5)))
  expect_identical(counter$n, 3)
  # Devices: equal objects are one device; another device is another key.
  dispatch(d, list(x = closure_array(c(1, 2), device = "gpu"), y = closure_array(c(1, 2), device = "gpu")))
  expect_identical(counter$n, 4)
  expect_snapshot(error = TRUE, {
    dispatch(d, list(x = a, y = closure_array(c(1, 2), device = "gpu")))
    dispatch(d, list(x = closure_array(1, backend = "other")))
    dispatch(d, list(x = closure_array(1, backend = "plain")))
    dispatch(d, list(x = closure_array(1, dtype = "f8")))
    dispatch(d, list(x = structure(list(data = 1, backend = "quickr", dtype = "f64", shape = 1L), class = "AnvlArray")))
  })
})

test_that("a closure call without arrays keys on the resolved default device", {
  counter <- new.env()
  current <- "cpu"
  d <- closure_dispatcher(counter, function(flat) flat[[1]] * 2,
                          default_device = function() structure(list(name = current), class = "TestDevice"))
  expect_identical(dispatch(d, list(4)), 8)
  expect_identical(counter$info$default_device$name, "cpu")
  dispatch(d, list(5))
  expect_identical(counter$n, 1)
  current <- "gpu"
  expect_identical(dispatch(d, list(6)), 12)
  expect_identical(counter$n, 2)
})

test_that("invalid inputs are rejected before the cache, naming the argument", {
  counter <- new.env()
  d <- pjrt_dispatcher(add, counter, static = "s")
  x <- anvl_array(c(1, 2))
  # A buffer given up to a program's result (donated) is no longer live.
  given_up <- pjrt_buffer(c(1, 2, 3), dtype = "f64")
  donated <- anvl_array(given_up)
  invisible(pjrt_execute(pjrt_compile(pjrt_program(donation_src)), given_up, pjrt_buffer(c(1, 1, 1), dtype = "f64")))
  expect_snapshot(error = TRUE, {
    dispatch(d, list(x = x, y = "nope"))
    dispatch(d, list(x = x, y = c(1, 2, 3)))
    dispatch(d, list(x = x, y = NA))
    dispatch(d, list(x = x, y = structure(1, class = "myclass")))
    dispatch(d, list(x = list(a = list(1, "deep"))))
    dispatch(d, list("hello"))
    dispatch(d, list(x = x, s = x))
    dispatch(d, list(x = anvl_array(c(1, 2), backend = "quickr")))
    dispatch(d, list(x = anvl_array(c(1, 2), backend = "plain")))
    dispatch(d, list(x = structure(list(data = 1, backend = "pjrt"), class = "AnvlArray")))
    dispatch(d, list(x = structure(c(data = 1), class = "AnvlArray")))
    dispatch(d, list(x = donated))
    dispatch(d, "x")
    dispatch(x, list())
    dispatcher_size(build_tree(1))
  })
  expect_identical(counter$n, 0)
})

test_that("a malformed compile result is a clear error", {
  x <- anvl_array(c(1, 2))
  two_out <- pjrt_compile(pjrt_program(paste(
    "func.func @main(%x: tensor<2xf32>, %y: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {",
    "  return %x, %y : tensor<2xf32>, tensor<2xf32>", "}", sep = "\n")))
  try_entry <- function(...) {
    fields <- list(...)
    d <- dispatcher(10, function(info) fields, default_device = pjrt_device)
    dispatch(d, list(x, x))
  }
  good <- list(exec = add, device = pjrt_device(), out_tree = build_tree(0),
               out_avals = list(list(dtype = "f32", shape = 2L)))
  with_field <- function(...) {
    fields <- good
    fields[names(list(...))] <- list(...)
    do.call(try_entry, fields)
  }
  expect_snapshot(error = TRUE, {
    try_entry(device = pjrt_device())
    with_field(exec = "add")
    with_field(device = "cpu")
    with_field(out_tree = list())
    with_field(out_avals = list())
    with_field(out_avals = list(list(dtype = "f32")))
    with_field(out_avals = list(list(dtype = "nonsense", shape = 2L)))
    with_field(out_tree = build_tree(list(0, 0, 0)), out_avals = rep(list(list(dtype = "f32", shape = 2L)), 3))
    with_field(const_arrays = list(add))
    with_field(const_arrays = list(pjrt_buffer(1)))
    with_field(phantom_specs = list(list(dtype = "nonsense", shape = 2L)))
    with_field(phantom_specs = list(list(dtype = "f32", shape = -1)))
    with_field(input_dtypes = c(NA, NA, NA))
    with_field(input_dtypes = c(NA, "huge"))
  })
  d <- dispatcher(10, function(info) list(), backend = "other", extractor = field_extractor,
                  default_device = function() "dev")
  expect_snapshot(error = TRUE, dispatch(d, list(1)))
  expect_snapshot(error = TRUE, dispatch(
    dispatcher(10, function(info) list(), default_device = function() "cpu:0"), list(1)))
})

test_that("dispatcher() checks its arguments", {
  cb <- function(info) NULL
  expect_snapshot(error = TRUE, {
    dispatcher(0, cb, default_device = pjrt_device)
    dispatcher(1.5, cb, default_device = pjrt_device)
    dispatcher(10, "cb", default_device = pjrt_device)
    dispatcher(10, cb, static = NA_character_, default_device = pjrt_device)
    dispatcher(10, cb, backend = "", default_device = pjrt_device)
    dispatcher(10, cb, move_inputs = NA, default_device = pjrt_device)
    dispatcher(10, cb)
    dispatcher(10, cb, backend = "quickr", default_device = pjrt_device)
    dispatcher(10, cb, default_device = pjrt_device, context = "f32")
  })
  expect_snapshot(print(dispatcher(10, cb, default_device = pjrt_device)))
  path <- withr::local_tempfile(fileext = ".rds")
  saveRDS(dispatcher(10, cb, default_device = pjrt_device), path)
  expect_snapshot(error = TRUE, dispatch(readRDS(path), list(1)))
})

test_that("aliased inputs are donated, but never the entry's const_arrays", {
  program <- pjrt_compile(pjrt_program(paste(
    "func.func @main(%c: tensor<2xf32> {tf.aliasing_output = 0 : i32},",
    "                %x: tensor<2xf32> {tf.aliasing_output = 1 : i32}) -> (tensor<2xf32>, tensor<2xf32>) {",
    "  %0 = stablehlo.add %c, %x : tensor<2xf32>",
    "  %1 = stablehlo.multiply %c, %x : tensor<2xf32>",
    "  return %0, %1 : tensor<2xf32>, tensor<2xf32>", "}", sep = "\n")))
  constant <- pjrt_buffer(c(10, 20), dtype = "f32")
  d <- dispatcher(10, function(info) {
    list(exec = program, device = pjrt_device(), out_tree = build_tree(list(0, 0)),
         out_avals = list(list(dtype = "f32", shape = 2L), list(dtype = "f32", shape = 2L)),
         const_arrays = list(constant))
  }, default_device = pjrt_device)
  for (k in 1:2) {
    x <- anvl_array(c(1, 2) * k)
    r <- dispatch(d, list(x))
    expect_identical(values_of(r[[1]]), c(10, 20) + c(1, 2) * k)
    expect_identical(values_of(r[[2]]), c(10, 20) * c(1, 2) * k)
    expect_error(as_array(x$data), "donated")
  }
  expect_identical(plain(as_array(constant)), c(10, 20))
})
