# Hostile input (SPEC section 6): wrong types for every argument of every exported function,
# impossible shapes, raw data of the wrong size, invalidated and forged objects, gctorture()
# over creation, slicing and conversion, and interrupts during long conversions. Each must be
# a clear R error (the messages are snapshotted), leave the session working and leak nothing
# (R heap counts before and after many repetitions; `make valgrind` runs this file under
# memcheck for the C++ side).

# ---- helpers ----------------------------------------------------------------------------------

# Values of every kind R code can pass, labelled for the snapshot tables.
hostile_values <- function() {
  list(
    "NULL" = NULL, "NA" = NA, "NA_character_" = NA_character_, "NA_real_" = NA_real_,
    "\"x\"" = "x", "c(\"a\", \"b\")" = c("a", "b"), "integer(0)" = integer(0), "-1" = -1,
    "1.5" = 1.5, "Inf" = Inf, "NaN" = NaN, "2^62" = 2^62, "TRUE" = TRUE, "list(1)" = list(1),
    "identity" = identity, "factor(\"a\")" = factor("a"), "data.frame(x = 1)" = data.frame(x = 1),
    "1i" = 1i, "as.raw(1)" = as.raw(1), "integer64(1)" = bit64::as.integer64(1),
    "externalptr" = null_pointer(), "1:1e6" = 1:1e6
  )
}

# The outcome of a call as one line: "ok", or the kind of condition and its first line.
outcome <- function(expr) {
  tryCatch(
    {
      utils::capture.output(value <- expr)
      "ok"
    },
    warning = function(w) paste0("warning: ", first_line(conditionMessage(w))),
    error = function(e) {
      check_clear_error(e)
      paste0("error: ", first_line(conditionMessage(e)))
    }
  )
}

first_line <- function(text) {
  text <- strsplit(cli::ansi_strip(text), "\n", fixed = TRUE)[[1]]
  if (length(text) == 0) "" else text[[1]]
}

# A clear error is worded by us (an rlang error from cli) or is R's own S3 dispatch error
# naming the function and the class; never a C++ or cpp11 internal message.
check_clear_error <- function(e) {
  message <- conditionMessage(e)
  ours <- inherits(e, "rlang_error")
  dispatch <- grepl("^no applicable method for '[a-z_.]+' applied to an object of class", message)
  if (!ours && !dispatch) {
    stop("Not a clear error (class ", paste(class(e), collapse = "/"), "): ", message)
  }
  if (!nzchar(message) || grepl("std::|basic_string|cpp11|Invalid input type|expected '", message)) {
    stop("Internal message leaked to the user: ", message)
  }
  invisible(e)
}

# Calls `fn` with `args`, replacing the argument `arg` by each hostile value, and returns the
# outcome table as lines "fn(arg = value): outcome".
sweep_argument <- function(label, fn, args, arg) {
  values <- hostile_values()
  vapply(names(values), function(name) {
    call_args <- args
    call_args[arg] <- list(values[[name]])
    paste0(label, "(", arg, " = ", name, "): ", outcome(do.call(fn, call_args)))
  }, character(1), USE.NAMES = FALSE)
}

# Bytes held by R's heap (cons cells and vector cells). Buffers live in R raw vectors and
# zero-copy buffers keep their R vector, so a leaked buffer, storage or C++ object holding one
# shows up here. Two collections: finalizers run in the first, what they release goes in the
# second.
# Several collections: an object freed by another's finalizer (a buffer imported from an Arrow
# array releases that array when it is collected) is collectable only in the next round.
heap_bytes <- function() {
  for (round in 1:4) gc(full = TRUE)
  used <- gc(full = TRUE)[, 1]
  used[["Ncells"]] * 56 + used[["Vcells"]] * 8
}

# Runs `f` `times` times and returns how much the heap grew, in bytes.
heap_growth <- function(f, times = 200) {
  f()  # warm up: cli and rlang cache their own objects on first use
  before <- heap_bytes()
  for (i in seq_len(times)) f()
  heap_bytes() - before
}

f64 <- function(x) pjrt_buffer(x, dtype = "f64")

# `make valgrind` runs this file under memcheck, where R is ~25 times slower: the argument
# sweeps (R-level checks, a thousand cli errors), gctorture() and the repetition counts run in
# the ordinary test runs only (skip_under_valgrind(), helper-valgrind.R); memcheck checks the
# rest for memory errors and leaks itself.

# ---- wrong types for every argument of every exported function ---------------------------------

test_that("every argument of the buffer constructors rejects values of the wrong kind", {
  skip_under_valgrind()
  raw8 <- as.raw(1:8)
  lines <- c(
    sweep_argument("pjrt_buffer", pjrt_buffer, list(data = 1:4), "data"),
    sweep_argument("pjrt_buffer", pjrt_buffer, list(data = 1:4), "dtype"),
    sweep_argument("pjrt_buffer", pjrt_buffer, list(data = 1:4), "device"),
    sweep_argument("pjrt_buffer", pjrt_buffer, list(data = 1:4), "shape"),
    sweep_argument("pjrt_buffer", pjrt_buffer, list(data = 1:4), "check"),
    sweep_argument("pjrt_buffer<raw>", pjrt_buffer,
                   list(data = raw8, dtype = "i16", shape = 4, row_major = TRUE), "dtype"),
    sweep_argument("pjrt_buffer<raw>", pjrt_buffer,
                   list(data = raw8, dtype = "i16", shape = 4, row_major = TRUE), "shape"),
    sweep_argument("pjrt_buffer<raw>", pjrt_buffer,
                   list(data = raw8, dtype = "i16", shape = 4, row_major = TRUE), "row_major"),
    sweep_argument("pjrt_scalar", pjrt_scalar, list(data = 1), "data"),
    sweep_argument("pjrt_scalar", pjrt_scalar, list(data = 1), "dtype"),
    sweep_argument("pjrt_scalar", pjrt_scalar, list(data = 1), "device"),
    sweep_argument("pjrt_empty", pjrt_empty, list(dtype = "f32", shape = 2), "dtype"),
    sweep_argument("pjrt_empty", pjrt_empty, list(dtype = "f32", shape = 2), "shape"),
    sweep_argument("pjrt_empty", pjrt_empty, list(dtype = "f32", shape = 2), "device")
  )
  expect_snapshot(writeLines(lines))
  # Spot checks where snapshots are skipped.
  expect_match(lines[startsWith(lines, "pjrt_empty(shape = \"x\")")],
               "`shape` must be a numeric vector, not a string.", fixed = TRUE)
  expect_match(lines[startsWith(lines, "pjrt_buffer(dtype = list(1))")],
               "`dtype` must be a single string naming a dtype, not a list.", fixed = TRUE)
  expect_true(all(grepl("^pjrt_scalar\\(device = NULL\\): ok$", lines[grepl("scalar\\(device = NULL", lines)])))
  expect_equal(as_array(pjrt_buffer(1:4)), array(1:4))  # the session keeps working
})

test_that("every argument of the readers and device functions rejects values of the wrong kind", {
  skip_under_valgrind()
  b <- pjrt_buffer(c(1, 2, 3, 4), shape = c(2, 2))
  lines <- c(
    sweep_argument("as_array", as_array, list(x = b), "x"),
    sweep_argument("as_array", as_array, list(x = b), "check"),
    sweep_argument("as_raw", as_raw, list(x = b, row_major = TRUE), "x"),
    sweep_argument("as_raw", as_raw, list(x = b, row_major = TRUE), "row_major"),
    sweep_argument("shape", shape, list(x = b), "x"),
    sweep_argument("elt_type", elt_type, list(x = b), "x"),
    sweep_argument("dtype", dtype, list(x = b), "x"),
    sweep_argument("device", device, list(x = b), "x"),
    sweep_argument("platform", platform, list(x = b), "x"),
    sweep_argument("devices", devices, list(), "platform"),
    sweep_argument("devices", devices, list(), "x"),
    sweep_argument("pjrt_device", pjrt_device, list(), "x"),
    sweep_argument("pjrt_device", pjrt_device, list(), "device"),
    sweep_argument("as_pjrt_device", as_pjrt_device, list(), "x"),
    sweep_argument("copy_buffer", copy_buffer, list(x = b, device = "cpu"), "x"),
    sweep_argument("copy_buffer", copy_buffer, list(buffer = b, device = "cpu"), "buffer"),
    sweep_argument("copy_buffer", copy_buffer, list(x = b, device = "cpu"), "device"),
    sweep_argument("format", format, list(x = b), "max_rows"),
    sweep_argument("format", format, list(x = b), "max_width"),
    sweep_argument("format", format, list(x = b), "max_rows_slice"),
    sweep_argument("format", format, list(x = b), "header"),
    sweep_argument("format", format, list(x = b), "footer"),
    sweep_argument("print", print, list(x = b), "max_rows"),
    sweep_argument("format_buffer", format_buffer, list(buffer = b), "buffer")
  )
  expect_snapshot(writeLines(lines))
  expect_match(lines[startsWith(lines, "as_raw(row_major = NA)")],
               "`row_major` must be TRUE or FALSE.", fixed = TRUE)
  expect_match(lines[startsWith(lines, "format(footer = 1i)")],
               "`footer` must be NULL or a single string, not a complex number.", fixed = TRUE)
  expect_equal(as_array(b), array(c(1, 2, 3, 4), c(2, 2)))
})

test_that("every argument of the HArray API rejects values of the wrong kind", {
  skip_under_valgrind()
  arr <- array(c(1, 2, 3, 4, 5, 6), c(2, 3))
  h <- HArray$new_from_values(arr, HDataType$Float64)
  lines <- c(
    sweep_argument("HArray$new_from_values", HArray$new_from_values,
                   list(arr = arr, dtype = HDataType$Float32), "arr"),
    sweep_argument("HArray$new_from_values", HArray$new_from_values,
                   list(arr = arr, dtype = HDataType$Float32), "dtype"),
    sweep_argument("HArray$new_from_buffer", HArray$new_from_buffer, list(), "buffer"),
    sweep_argument("h$slice", h$slice, list(), "range"),
    sweep_argument("h$eq", h$eq, list(), "other"),
    sweep_argument("h$ne", h$ne, list(), "other"),
    sweep_argument("`==`", `==`, list(h), "e2"),
    sweep_argument("HDataType$Float32$eq", HDataType$Float32$eq, list(), "other"),
    sweep_argument("h[[name]]", function(name) h[[name]], list(), "name"),
    sweep_argument("pjrt_buffer<HArray>", pjrt_buffer, list(data = h), "dtype"),
    sweep_argument("pjrt_buffer<HArray>", pjrt_buffer, list(data = h), "shape")
  )
  # One entry per axis, each of a hostile kind.
  values <- hostile_values()
  lines <- c(lines, vapply(names(values), function(name) {
    paste0("h$slice(list(", name, ", 0L)): ", outcome(h$slice(list(values[[name]], 0L))))
  }, character(1), USE.NAMES = FALSE))
  expect_snapshot(writeLines(lines))
  expect_match(lines[startsWith(lines, "h$eq(other = 1i)")], "Expected HArray, got complex",
               fixed = TRUE)
  expect_identical(h$collect(), arr)
})

test_that("every argument of the base R methods and new arguments rejects values of the wrong kind", {
  skip_under_valgrind()
  b <- pjrt_buffer(c(1, 2, 3, 4), shape = c(2, 2))
  s <- pjrt_scalar(1, dtype = "f64")
  h <- HArray$new_from_values(array(c(1, 2, 3, 4), c(2, 2)), HDataType$Float64)
  print_with_option <- function(value) {
    withr::local_options(pjrt.print_max_rows_slice = value)
    print(b)
  }
  lines <- c(
    sweep_argument("pjrt_scalar", pjrt_scalar, list(data = 1), "check"),
    sweep_argument("pjrt_scalar<PJRTBuffer>", pjrt_scalar, list(data = s), "dtype"),
    sweep_argument("pjrt_scalar<PJRTBuffer>", pjrt_scalar, list(data = s), "device"),
    sweep_argument("pjrt_scalar<PJRTBuffer>", pjrt_scalar, list(data = s), "check"),
    sweep_argument("all.equal<PJRTBuffer>", all.equal, list(target = b), "current"),
    sweep_argument("all.equal<PJRTBuffer>", all.equal, list(target = b, current = b), "tolerance"),
    sweep_argument("all.equal<HArray>", all.equal, list(target = h), "current"),
    sweep_argument("all.equal<HArray>", all.equal, list(target = h, current = h), "tolerance"),
    sweep_argument("print<option pjrt.print_max_rows_slice>", print_with_option, list(), "value")
  )
  expect_snapshot(writeLines(lines))
  expect_match(lines[startsWith(lines, "all.equal<PJRTBuffer>(tolerance = -1)")],
               "`tolerance` must be a single non-negative number, not a number.", fixed = TRUE)
  expect_identical(all.equal(b, pjrt_buffer(c(1, 2, 3, 4), shape = c(2, 2))), TRUE)
  expect_identical(as_array(b), array(c(1, 2, 3, 4), c(2, 2)))
})

test_that("every argument of the safetensors functions rejects values of the wrong kind", {
  skip_under_valgrind()
  withr::local_dir(withr::local_tempdir())  # path = "x" writes ./x
  path <- withr::local_tempfile(fileext = ".safetensors")
  tensors <- list(w = pjrt_buffer(matrix(1:6, 2), dtype = "f32"))
  pjrt_save_safetensors(tensors, path)
  save_args <- list(tensors = tensors, path = path)
  lines <- c(
    sweep_argument("pjrt_save_safetensors", pjrt_save_safetensors, save_args, "tensors"),
    sweep_argument("pjrt_save_safetensors", pjrt_save_safetensors, save_args, "path"),
    sweep_argument("pjrt_save_safetensors", pjrt_save_safetensors, save_args, "metadata"),
    sweep_argument("pjrt_save_safetensors", pjrt_save_safetensors, save_args, "allow_c128"),
    sweep_argument("pjrt_load_safetensors", pjrt_load_safetensors, list(path = path), "path"),
    sweep_argument("pjrt_load_safetensors", pjrt_load_safetensors, list(path = path), "device"),
    sweep_argument("pjrt_load_safetensors", pjrt_load_safetensors, list(path = path), "names"),
    sweep_argument("pjrt_load_safetensors", pjrt_load_safetensors, list(path = path), "copy")
  )
  expect_snapshot(writeLines(lines), transform = function(x) {
    gsub(getwd(), "<dir>", gsub(path, "<path>", x, fixed = TRUE), fixed = TRUE)
  })
  expect_match(lines[startsWith(lines, "pjrt_load_safetensors(names = 1i)")],
               "`names` must be NULL or a character vector without missing values.", fixed = TRUE)
  expect_identical(as_array(pjrt_load_safetensors(path)$w), array(as.double(1:6), c(2, 3)))
})

test_that("every argument of the program functions rejects values of the wrong kind", {
  skip_under_valgrind()
  withr::local_dir(withr::local_tempdir())  # path = "x" would read ./x
  program <- add_program("tensor<2xf32>")
  e <- pjrt_compile(program)
  b <- pjrt_buffer(c(1, 2), dtype = "f32")
  run_with <- function(x) pjrt_execute(e, x, b)
  run_unchecked <- function(x) pjrt_execute(e, x, b, check = FALSE)
  lines <- c(
    sweep_argument("pjrt_program", pjrt_program, list(src = program$code), "src"),
    sweep_argument("pjrt_program", pjrt_program, list(), "path"),
    sweep_argument("pjrt_program", pjrt_program, list(src = program$code), "format"),
    sweep_argument("print<PJRTProgram>", print, list(x = program), "n"),
    sweep_argument("format<PJRTProgram>", format, list(x = program), "n"),
    sweep_argument("pjrt_compile", pjrt_compile, list(program = program), "program"),
    sweep_argument("pjrt_compile", pjrt_compile, list(program = program), "compile_options"),
    sweep_argument("pjrt_compile", pjrt_compile, list(program = program), "device"),
    sweep_argument("pjrt_execute", pjrt_execute, list(executable = e), "executable"),
    sweep_argument("pjrt_execute(e, <x>, b)", run_with, list(), "x"),
    sweep_argument("pjrt_execute", pjrt_execute, list(executable = e, b, b), "execution_options"),
    sweep_argument("pjrt_execute", pjrt_execute, list(executable = e, b, b), "simplify"),
    sweep_argument("pjrt_execute", pjrt_execute, list(executable = e, b, b), "check"),
    sweep_argument("pjrt_execute(check = FALSE)", pjrt_execute,
                   list(executable = e, b, check = FALSE), "executable"),
    sweep_argument("pjrt_execute(e, <x>, b, check = FALSE)", run_unchecked, list(), "x"),
    sweep_argument("pjrt_execute(check = FALSE)", pjrt_execute,
                   list(executable = e, b, b, check = FALSE), "execution_options"),
    sweep_argument("pjrt_execution_options", pjrt_execution_options, list(),
                   "non_donatable_input_indices"),
    sweep_argument("pjrt_execution_options", pjrt_execution_options, list(), "launch_id"),
    sweep_argument("as_array_async", as_array_async, list(x = b), "x"),
    sweep_argument("value", value, list(x = b), "x"),
    sweep_argument("is_ready", is_ready, list(x = b), "x"),
    sweep_argument("await", await, list(x = b), "x")
  )
  expect_snapshot(writeLines(lines))
  expect_match(lines[startsWith(lines, "pjrt_execute(simplify = NA)")],
               "`simplify` must be TRUE or FALSE.", fixed = TRUE)
  expect_match(lines[startsWith(lines, "pjrt_compile(device = \"x\")")],
               "Unknown platform", fixed = TRUE)
  expect_identical(as.vector(as_array(pjrt_execute(e, b, b))), c(2, 4))
})

test_that("every argument of pjrt_register_custom_call() rejects values of the wrong kind", {
  skip_under_valgrind()
  # A pointer with a NULL address: a name that passes the R checks still fails in the binding,
  # so nothing is registered by the sweep.
  null_handler <- null_pointer()
  lines <- c(
    sweep_argument("pjrt_register_custom_call", pjrt_register_custom_call,
                   list(handler = null_handler), "target_name"),
    sweep_argument("pjrt_register_custom_call", pjrt_register_custom_call,
                   list(target_name = "hostile_target"), "handler"),
    sweep_argument("pjrt_register_custom_call", pjrt_register_custom_call,
                   list(target_name = "hostile_target", handler = null_handler), ".package")
  )
  expect_snapshot(writeLines(lines))
  expect_false(any(c("x", "hostile_target") %in% pjrt:::custom_call_targets()$name))
})

test_that("every argument of the client and plugin functions rejects values of the wrong kind", {
  skip_under_valgrind()
  plugin <- pjrt_plugin("cpu")
  program <- add_program("tensor<2xf32>")
  quiet_install <- function(cuda) suppressMessages(install_pjrt(cuda))
  lines <- c(
    sweep_argument("pjrt_client", pjrt_client, list(), "platform"),
    sweep_argument("pjrt_client", pjrt_client, list(platform = "cpu"), "cpu_device_count"),
    sweep_argument("as_pjrt_client", as_pjrt_client, list(), "x"),
    sweep_argument("pjrt_plugin", pjrt_plugin, list(), "platform"),
    sweep_argument("as_pjrt_plugin", as_pjrt_plugin, list(), "x"),
    sweep_argument("plugin_attributes", plugin_attributes, list(), "plugin"),
    sweep_argument("plugin_client_create", plugin_client_create, list(), "plugin"),
    sweep_argument("plugin_client_create", plugin_client_create, list(plugin = plugin),
                   "platform"),
    sweep_argument("plugin_client_create", plugin_client_create, list(plugin = plugin),
                   "options"),
    sweep_argument("plugins_downloaded", plugins_downloaded, list(), "platforms"),
    sweep_argument("install_pjrt", quiet_install, list(), "cuda"),
    sweep_argument("inspect_hlo", inspect_hlo, list(program = program), "program"),
    sweep_argument("inspect_hlo", inspect_hlo, list(program = program), "device")
  )
  # install_pjrt(cuda = TRUE) succeeds where CUDA works: test-plugin.R covers both outcomes.
  lines <- lines[!startsWith(lines, "install_pjrt(cuda = TRUE)")]
  expect_snapshot(writeLines(lines))
  expect_match(lines[startsWith(lines, "pjrt_client(platform = \"x\")")],
               "Invalid platform \"x\".", fixed = TRUE)
  expect_match(lines[startsWith(lines, "plugins_downloaded(platforms = \"x\")")], ": ok$")
  expect_identical(pjrt_client("cpu"), as_pjrt_client("cpu"))  # the session keeps working
})

# ---- shapes -------------------------------------------------------------------------------------

test_that("every argument of pjrt_threads() and its option rejects values of the wrong kind", {
  skip_under_valgrind()
  withr::local_options(pjrt.threads = NULL)
  withr::local_envvar(PJRT_NUM_THREADS = NA)
  # A call that sets the count changes the option: each runs with the option restored.
  threads_restored <- function(threads) {
    withr::local_options(pjrt.threads = NULL)
    pjrt_threads(threads)
  }
  threads_with_option <- function(value) {
    withr::local_options(pjrt.threads = value)
    pjrt_threads()
  }
  lines <- c(
    sweep_argument("pjrt_threads", threads_restored, list(), "threads"),
    sweep_argument("pjrt_threads<option pjrt.threads>", threads_with_option, list(), "value")
  )
  expect_snapshot(writeLines(lines))
  expect_match(lines[startsWith(lines, "pjrt_threads(threads = -1)")],
               "`threads` must be a whole number >= 0 or NULL, not -1.", fixed = TRUE)
  expect_match(lines[startsWith(lines, "pjrt_threads<option pjrt.threads>(value = 1.5)")],
               "Option `pjrt.threads` must be a whole number >= 1, not a number.", fixed = TRUE)
  expect_null(getOption("pjrt.threads"))  # no sweep left the option set
  expect_gte(pjrt_threads(), 1)
})

test_that("negative, fractional, missing and huge shapes are clear errors", {
  # Labelled by hand: deparse() of doubles differs under valgrind (no 80-bit long double).
  shapes <- list(
    "-1" = -1, "-0.5" = -0.5, "1.5" = 1.5, "NA" = NA, "NA_integer_" = NA_integer_, "NaN" = NaN,
    "Inf" = Inf, "-Inf" = -Inf, "2^31" = 2^31, "2^31 - 0.5" = 2^31 - 0.5, "1e300" = 1e300,
    "double.xmax" = .Machine$double.xmax, "c(2, NA)" = c(2, NA),
    "c(2, -2147483647)" = c(2, -2147483647),
    "rep(2^31 - 1, 3)" = rep(2^31 - 1, 3),            # product beyond 2^63
    "c(2^31 - 1, 2^31 - 1, 4)" = c(2^31 - 1, 2^31 - 1, 4),  # product near 2^64
    "c(2^31 - 1, 2^31 - 1, 2)" = c(2^31 - 1, 2^31 - 1, 2),  # bytes beyond 2^63
    "rep(2^31 - 1, 64)" = rep(2^31 - 1, 64), "rep(2, 64)" = rep(2, 64),
    "c(rep(2, 62), 3)" = c(rep(2, 62), 3)
  )
  labels <- names(shapes)
  lines <- c(
    paste0("pjrt_empty(\"f32\", ", labels, "): ",
           vapply(shapes, function(s) outcome(pjrt_empty("f32", s)), "")),
    paste0("pjrt_buffer(1, shape = ", labels, "): ",
           vapply(shapes, function(s) outcome(pjrt_buffer(1, shape = s)), "")),
    paste0("pjrt_buffer(raw(8), \"ui8\", ", labels, "): ",
           vapply(shapes, function(s) outcome(pjrt_buffer(raw(8), "ui8", shape = s, row_major = TRUE)), ""))
  )
  expect_snapshot(writeLines(lines))
  expect_error(pjrt_empty("f32", c(2^31 - 1, 2^31 - 1, 2^31 - 1)),
               "has more elements than a 64-bit count can hold", fixed = TRUE)
  expect_error(pjrt_empty("f32", c(2^31 - 1, 2^31 - 1, 2)),
               "bytes do not fit a 64-bit byte count", fixed = TRUE)
  expect_error(pjrt_empty("f32", 2^31), "Entry 1 is 2147483648", fixed = TRUE)
  expect_error(pjrt_empty("f32", NaN), "Entry 1 is NaN", fixed = TRUE)
})

test_that("empty shapes beside huge dims work without overflow", {
  # Strides and slice offsets of such a buffer once overflowed int64 (undefined behaviour).
  m <- 2^31 - 1
  b <- pjrt_empty("f64", c(0, m, m, m, m))
  expect_identical(shape(b), c(0L, rep(.Machine$integer.max, 4)))
  expect_identical(length(b), 0L)
  expect_identical(dim(as_array(b)), shape(b))
  expect_identical(as_raw(b, row_major = TRUE), raw(0))
  expect_match(format(b)[[1]], "PJRTBuffer")
  h <- HArray$new_from_buffer(b)
  all <- rep(NA_integer_, 3)
  v <- h$slice(list(-1L, as.integer(m - 1), c(NA, NA, 3L), c(0L, 2L, 1L), all))
  expect_identical(v$shape(), c(as.integer((m - 1) / 3) + 1L, 2L, 0L))
  expect_identical(v$mem_adress(), h$mem_adress())
  expect_identical(v$collect(), array(numeric(0), rev(v$shape())))
  expect_identical(capture.output(v$print()), "[[[]]]")
  expect_identical(capture.output(print(v)), c("HArray", "Float64", "[[[]]]"))
  expect_identical(shape(pjrt_buffer(v)), rev(v$shape()))
})

test_that("buffers of very high rank print and slice without deep recursion", {
  # HArray printing once recursed once per axis and overflowed the C stack (a crash).
  rank <- 1e5
  b <- pjrt_buffer(7, dtype = "f64", shape = rep(1, rank))
  expect_identical(length(shape(b)), as.integer(rank))
  h <- HArray$new_from_buffer(b)
  text <- capture.output(h$print())
  expect_identical(text, paste0(strrep("[", rank), "7", strrep("]", rank)))
  expect_identical(as.vector(h$collect()), 7)
  expect_identical(as.vector(as_array(b)), 7)
  expect_identical(length(format(b)), 4L)
  v <- h$slice(rep(list(0L), rank))
  expect_identical(v$shape(), integer())
  expect_identical(v$collect(), 7)
})

test_that("data of the wrong length for a shape is an error", {
  expect_snapshot(error = TRUE, pjrt_buffer(1:2, shape = 2^31 - 1))
  expect_snapshot(error = TRUE, pjrt_buffer(1:3, shape = c(1, 0, 1, 2)))
  expect_identical(shape(pjrt_buffer(numeric(0), shape = c(1, 0, 2^31 - 1))),
                   c(1L, 0L, .Machine$integer.max))
})

# ---- raw vectors of the wrong size ------------------------------------------------------------

test_that("raw vectors of the wrong size are errors for every dtype", {
  itemsize <- c(pred = 1, i8 = 1, i16 = 2, i32 = 4, i64 = 8, ui8 = 1, ui16 = 2, ui32 = 4,
                ui64 = 8, f16 = 2, bf16 = 2, f32 = 4, f64 = 8, c64 = 8, c128 = 16)
  lines <- character()
  for (dtype in names(itemsize)) {
    needed <- 6 * itemsize[[dtype]]
    for (n in unique(c(0, 1, needed - 1, needed + 1, 2 * needed))) {
      result <- outcome(pjrt_buffer(raw(n), dtype, shape = c(2, 3), row_major = TRUE))
      lines <- c(lines, paste0(dtype, " (2, 3) from ", n, " bytes: ", result))
    }
    lines <- c(lines, paste0(dtype, " scalar from ", itemsize[[dtype]] + 1, " bytes: ",
                             outcome(pjrt_scalar(raw(itemsize[[dtype]] + 1), dtype))))
    # The right size works, in both orders, and reads back.
    bytes <- as.raw(rep(0:1, length.out = needed))
    b <- pjrt_buffer(bytes, dtype, shape = c(2, 3), row_major = FALSE)
    expect_identical(as_raw(b, row_major = FALSE), bytes)
  }
  expect_snapshot(writeLines(lines))
  expect_error(pjrt_buffer(raw(10), "f32", shape = c(2, 3), row_major = TRUE),
               "Raw data has 10 bytes, but dtype \"f32\" with shape (2, 3) requires 24 bytes.",
               fixed = TRUE)
})

# ---- invalidated, restored and forged objects ---------------------------------------------------

harray_methods <- function(h, other) {
  list(
    len = function() h$len(), shape = function() h$shape(), ndim = function() h$ndim(),
    dtype = function() h$dtype(), slice = function() h$slice(list(0L, 0L)),
    print = function() h$print(), eq = function() h$eq(other), ne = function() h$ne(other),
    eq_reversed = function() other$eq(h), `==` = function() h == other,
    clone = function() h$clone(), collect = function() h$collect(),
    mem_adress = function() h$mem_adress(), is_standard_layout = function() h$is_standard_layout(),
    is_unique = function() h$is_unique(), invalidate = function() h$invalidate(),
    pjrt_buffer = function() pjrt_buffer(h), S3_print = function() print(h),
    all.equal = function() all.equal(h, other)
  )
}

buffer_functions <- function(b) {
  list(
    as_array = function() as_array(b), as_raw = function() as_raw(b, row_major = TRUE),
    shape = function() shape(b), dim = function() dim(b), length = function() length(b),
    elt_type = function() elt_type(b), device = function() device(b),
    platform = function() platform(b), copy_buffer = function() copy_buffer(b, "cpu"),
    format = function() format(b), print = function() print(b),
    as.double = function() as.double(b), as.vector = function() as.vector(b),
    pjrt_buffer = function() pjrt_buffer(b), new_from_buffer = function() HArray$new_from_buffer(b),
    as.matrix = function() as.matrix(b), str = function() str(b),
    summary = function() summary(b), all.equal = function() all.equal(b, b),
    pjrt_scalar = function() pjrt_scalar(b),
    pjrt_buffer_check = function() pjrt_buffer(b, check = "error"),
    execute_argument = function() pjrt_execute(pjrt_compile(add_program()), b, b),
    save_safetensors = function() pjrt_save_safetensors(list(x = b), tempfile()),
    as_array_async = function() as_array_async(b)
  )
}

test_that("an invalidated HArray is an error in every method and as an argument", {
  arr <- array(c(1, 2, 3, 4), c(2, 2))
  h <- HArray$new_from_values(arr, HDataType$Float64)
  dead <- h$clone()
  dead$invalidate()
  calls <- harray_methods(dead, h)
  lines <- paste0("invalidated$", names(calls), "(): ", vapply(calls, function(f) outcome(f()), ""))
  expect_snapshot(writeLines(lines))
  expect_true(all(grepl("This external pointer is already consumed or deleted", lines)))
  gc()
  expect_identical(h$collect(), arr)
  expect_true(h$is_unique())
})

test_that("restored and relabelled external pointers are errors, never crashes", {
  b <- f64(c(1, 2, 3))
  h <- HArray$new_from_buffer(b)
  restored_b <- unserialize(serialize(b, NULL))
  restored_h <- unserialize(serialize(h, NULL))
  # The class attribute can be changed in R; the pointer's tag says what it really is. This
  # once made the bindings use an HArray as a buffer and the reverse (a segfault).
  forged_b <- h$clone()
  class(forged_b) <- "PJRTBuffer"
  forged_h <- pjrt:::ffi_buffer_copy_to(b, "cpu:0")
  class(forged_h) <- "HArray"
  empty_b <- structure(null_pointer(), class = "PJRTBuffer")
  lines <- c(
    paste0("restored buffer ", names(buffer_functions(restored_b)), ": ",
           vapply(buffer_functions(restored_b), function(f) outcome(f()), "")),
    paste0("forged buffer ", names(buffer_functions(forged_b)), ": ",
           vapply(buffer_functions(forged_b), function(f) outcome(f()), "")),
    paste0("empty pointer as buffer ", names(buffer_functions(empty_b)), ": ",
           vapply(buffer_functions(empty_b), function(f) outcome(f()), "")),
    paste0("restored HArray ", names(harray_methods(restored_h, h)), ": ",
           vapply(harray_methods(restored_h, h), function(f) outcome(f()), "")),
    paste0("forged HArray ", names(harray_methods(forged_h, h)), ": ",
           vapply(harray_methods(forged_h, h), function(f) outcome(f()), ""))
  )
  expect_snapshot(writeLines(lines))
  expect_false(any(grepl(": ok$", lines[!grepl(" (print|S3_print|format)", lines)])))
  expect_error(forged_h$invalidate(), "Expected an HArray.", fixed = TRUE)
  expect_error(as_array(forged_b), "Expected a PJRTBuffer.", fixed = TRUE)
  gc()
  expect_identical(as_array(b), array(c(1, 2, 3)))
  expect_identical(h$collect(), array(c(1, 2, 3)))
})

test_that("a donated buffer is an error in every function; executables are checked", {
  e <- pjrt_compile(pjrt_program(donation_src))
  y <- f64(c(1, 2, 3))
  donated <- f64(c(4, 5, 6))
  r <- pjrt_execute(e, donated, y)
  restored_e <- unserialize(serialize(e, NULL))
  forged_e <- f64(1)
  class(forged_e) <- "PJRTLoadedExecutable"
  executable_calls <- function(x) {
    list(print = function() print(x), device = function() device(x),
         pjrt_execute = function() pjrt_execute(x, y, y))
  }
  lines <- c(
    paste0("donated buffer ", names(buffer_functions(donated)), ": ",
           vapply(buffer_functions(donated), function(f) outcome(f()), "")),
    paste0("donated buffer pjrt_execute: ", outcome(pjrt_execute(e, donated, y))),
    paste0("restored executable ", names(executable_calls(restored_e)), ": ",
           vapply(executable_calls(restored_e), function(f) outcome(f()), "")),
    paste0("forged executable ", names(executable_calls(forged_e)), ": ",
           vapply(executable_calls(forged_e), function(f) outcome(f()), ""))
  )
  expect_snapshot(writeLines(lines))
  donated_lines <- lines[startsWith(lines, "donated")]
  expect_true(all(grepl("called on deleted or donated buffer", donated_lines, fixed = TRUE)))
  expect_false(any(grepl(": ok$", lines)))
  gc()
  expect_identical(as.vector(as_array(r)), c(4, 10, 18))
})

# ---- gctorture() --------------------------------------------------------------------------------

# Runs `expr` with a garbage collection at every allocation: an unprotected R object or a
# storage released too early shows up as a wrong value or a crash.
torture <- function(expr) {
  gctorture(TRUE)
  on.exit(gctorture(FALSE))
  expr
}

test_that("creation survives gctorture()", {
  skip_under_valgrind()
  skip_on_cran()
  doubles <- c(1.5, -2, NA, 4)
  b_copy <- torture(pjrt_buffer(doubles, dtype = "f32"))
  b_alias <- torture(pjrt_buffer(c(1.5, -2, NA, 4), dtype = "f64"))
  b_int <- torture(pjrt_buffer(c(1L, NA, 3L), dtype = "i32", check = "ignore"))
  b_cplx <- torture(pjrt_buffer(c(1 + 2i, 3i), dtype = "c128"))
  b_lgl <- torture(pjrt_buffer(c(TRUE, FALSE), shape = c(1, 2)))
  b_i64 <- torture(pjrt_buffer(bit64::as.integer64(c(1, 2^40)), dtype = "ui64"))
  b_raw <- torture(pjrt_buffer(as.raw(1:6), dtype = "ui8", shape = c(2, 3), row_major = TRUE))
  b_empty <- torture(pjrt_empty("bf16", c(2, 0, 3)))
  b_scalar <- torture(pjrt_scalar(3, dtype = "f16"))
  gc()
  expect_identical(as.vector(as_array(b_copy)), c(1.5, -2, NaN, 4))
  expect_identical(as.vector(as_array(b_alias)), c(1.5, -2, NA, 4))
  expect_identical(as.vector(as_array(b_int, check = "ignore")), c(1L, NA, 3L))
  expect_identical(as.vector(as_array(b_cplx)), c(1 + 2i, 3i))
  expect_identical(as_array(b_lgl), array(c(TRUE, FALSE), c(1, 2)))
  expect_identical(as.character(as_array(b_i64)), c("1", "1099511627776"))
  expect_identical(as_array(b_raw), array(c(1L, 4L, 2L, 5L, 3L, 6L), c(2, 3)))
  expect_identical(shape(b_empty), c(2L, 0L, 3L))
  expect_identical(as_array(b_scalar), 3)
})

test_that("conversion back to R survives gctorture() for every dtype", {
  skip_under_valgrind()
  skip_on_cran()
  for (dtype in c("pred", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64",
                  "f16", "bf16", "f32", "f64", "c64", "c128")) {
    b <- pjrt_buffer(c(1, 0, 1, 1), dtype = dtype, shape = c(2, 2))
    values <- torture(as_array(b))
    raw_bytes <- torture(as_raw(b, row_major = TRUE))
    gc()
    expect_equal(as.vector(as.double(values)), c(1, 0, 1, 1), info = dtype)
    expect_identical(attributes(values)$dim, c(2L, 2L), info = dtype)
    expect_identical(pjrt_buffer(raw_bytes, dtype, shape = c(2, 2), row_major = TRUE), b,
                     info = dtype)
  }
})

test_that("HArray creation, slicing, cloning and collecting survive gctorture()", {
  skip_under_valgrind()
  skip_on_cran()
  arr <- array(as.double(1:24), c(2, 3, 4))
  h32 <- torture(HArray$new_from_values(arr, HDataType$Float32))
  h64 <- torture(HArray$new_from_values(array(as.double(1:24), c(2, 3, 4)), HDataType$Float64))
  s <- torture(h64$slice(list(c(NA, NA, -1L), 1L, c(0L, 2L, 1L))))
  c1 <- torture(s$clone())
  collected <- torture(c1$collect())
  b <- torture(pjrt_buffer(s))
  h_back <- torture(HArray$new_from_buffer(b))
  text <- torture(capture.output(print(h32)))
  rm(arr)
  gc()
  arr_expected <- array(c(21, 22, 15, 16, 9, 10, 3, 4), c(2, 4))
  expect_identical(collected, arr_expected)
  expect_identical(h_back$collect(), arr_expected)
  expect_identical(h64$collect(), array(as.double(1:24), c(2, 3, 4)))
  expect_identical(h32 == HArray$new_from_values(array(as.double(1:24), c(2, 3, 4)),
                                                  HDataType$Float32), TRUE)
  expect_identical(text[1:2], c("HArray", "Float32"))
})

test_that("errors raised from C++ survive gctorture()", {
  skip_under_valgrind()
  skip_on_cran()
  # Straight to the bindings: cli's wording costs minutes under gctorture(). A failed binding
  # returns the marker symbol and keeps its message for with_core().
  err <- function(value) {
    if (is.symbol(value)) pjrt:::ffi_take_core_failure()[[2]] else "no error"
  }
  h <- HArray$new_from_values(array(c(1, 2, 3, 4), c(2, 2)), HDataType$Float64)
  dead <- h$clone()
  dead$invalidate()
  messages <- torture(c(
    err(pjrt:::ffi_buffer_from_vector(c(1, 300), FALSE, "ui8", 2L, "warn", "")),
    err(pjrt:::ffi_buffer_from_vector(c(1, NA), FALSE, "i32", 2L, "error", "")),
    err(pjrt:::ffi_buffer_from_vector(1:3, FALSE, "i32", c(2L, 2L), "warn", "")),
    err(pjrt:::ffi_buffer_from_raw(as.raw(1:3), "f32", 1L, TRUE, "")),
    err(pjrt:::ffi_buffer_empty("f32", c(-1L), "")),
    err(pjrt:::ffi_buffer_empty("f32", 1L, "cpu:7")),
    err(pjrt:::ffi_harray_slice(h, list(5L, 0L))),
    err(pjrt:::ffi_harray_len(dead)),
    err(pjrt:::ffi_buffer_values(h, TRUE))
  ))
  expect_identical(messages, c(
    "Value 300 at position 2 cannot be represented as ui8 (range 0 to 255)",
    "Value NA at position 2 cannot be represented as i32 (range -2147483648 to 2147483647)",
    "Data has length 3, but specified shape is 2x2",
    "Raw data has 3 bytes, but dtype \"f32\" with shape (1) requires 4 bytes.",
    "Shape (-1) has a negative dimension -1.",
    "Device index 7 out of range for platform cpu (1 device)",
    "Index 5 is out of bounds for axis 1 of length 2.",
    "This external pointer is already consumed or deleted",
    "Expected a PJRTBuffer."
  ))
  expect_identical(h$collect(), array(c(1, 2, 3, 4), c(2, 2)))
})

# ---- interrupts -------------------------------------------------------------------------------

# Sends SIGINT to this R process, then calls `f` inside `tryCatch(error = )`. Whether R's
# evaluator sees the pending interrupt first or the core sees it at its first poll (between
# rounds of 2^23 elements), it must arrive as a real interrupt condition, which the inner
# error handler does not catch ("caught as an error: ..." would be the old behaviour).
# Up to 2 s for R to act on an interrupt that no poll has seen (on a loaded machine the
# signal can take longer than a single short sleep, and then escapes the handlers below).
wait_for_interrupt <- function() for (i in 1:200) Sys.sleep(0.01)

interrupted <- function(f) {
  tryCatch({
    tools::pskill(Sys.getpid(), tools::SIGINT)
    tryCatch({
      f()
      wait_for_interrupt()
      "completed"
    }, error = function(e) paste("caught as an error:", conditionMessage(e)))
  }, interrupt = function(i) "interrupt")
}

# Ten tries: R's evaluator takes the interrupt first about half the time, so the core's path
# is all but certain to be among them.
expect_interrupt_everywhere <- function(f, tries = 10) {
  outcomes <- vapply(seq_len(tries), function(i) interrupted(f), "")
  expect_identical(outcomes, rep("interrupt", tries))
  # try() does not swallow it either.
  expect_identical(tryCatch({
    tools::pskill(Sys.getpid(), tools::SIGINT)
    try(f(), silent = TRUE)
    wait_for_interrupt()
    "completed"
  }, interrupt = function(i) "interrupt"), "interrupt")
}

test_that("interrupts stop long operations as real interrupts and leave nothing behind", {
  skip_on_cran()
  skip_on_os("windows")  # no SIGINT to send
  # Linux hands a process's SIGINT to its main thread; valgrind hands it to whichever thread
  # waits in a system call (an idle OpenMP worker), where R's handler for an interrupted
  # Sys.sleep() jumps to the main thread's stack.
  skip_under_valgrind("valgrind delivers SIGINT to worker threads, which Linux does not")
  n <- 2^23 + 16  # two rounds: the core polls once, between them
  x <- rep(0.5, n)
  expect_interrupt_everywhere(function() pjrt_buffer(x, dtype = "f32"))
  b <- pjrt_buffer(x, dtype = "f32")
  expect_interrupt_everywhere(function() as_array(b))
  h <- HArray$new_from_buffer(pjrt_empty("f32", c(2, n)))
  strided <- h$slice(list(rep(NA_integer_, 3), 0L))
  expect_interrupt_everywhere(function() strided$collect())
  ints <- rep(1L, n)
  expect_interrupt_everywhere(function() pjrt_buffer(ints, dtype = "i32"))  # the NA scan
  path <- withr::local_tempfile(fileext = ".safetensors")
  m <- pjrt_buffer(matrix(0.5, 4, n / 4), "f32")  # transposed while saving and loading
  expect_interrupt_everywhere(function() pjrt_save_safetensors(list(m = m), path))
  pjrt_save_safetensors(list(m = m), path)
  expect_interrupt_everywhere(function() pjrt_load_safetensors(path))
  # Nothing partial, nothing leaked: the session works and the heap is back where it was.
  before <- heap_bytes()
  for (i in 1:3) interrupted(function() pjrt_buffer(x, dtype = "f32"))
  expect_lt(heap_bytes() - before, 1e6)  # an interrupted buffer would hold 32 MiB
  expect_identical(sum(as_array(b)), n / 2)
  expect_identical(as_array(pjrt_load_safetensors(path)$m)[4, 1], 0.5)
})

test_that("stopping the queues (as R's exit does) cancels every queued run", {
  old <- pjrt_async(TRUE)
  withr::defer(pjrt_async(old))
  exe <- counting()
  running <- pjrt_execute(exe, steps(2^40))  # hours
  queued <- pjrt_execute(exe, steps(5))
  pjrt:::ffi_stop_queued_work()
  expect_true(is_ready(running))
  expect_true(is_ready(queued))
  read <- function(y) tryCatch(as_array(y), interrupt = function(i) "interrupted")
  expect_identical(read(running), "interrupted")
  expect_identical(read(queued), "interrupted")
  expect_identical(as.numeric(as_array(pjrt_execute(exe, steps(7)))), 7)
})

# ---- leaks ------------------------------------------------------------------------------------

test_that("failing calls leak nothing over many repetitions", {
  skip_under_valgrind()
  skip_on_cran()
  big <- c(rep(1, 1e5 - 1), 300)  # fails at the last element, after the output was allocated
  ints <- c(rep(1L, 1e5 - 1), NA)
  h <- HArray$new_from_values(array(as.double(1:12), c(3, 4)), HDataType$Float64)
  quiet <- function(expr) try(expr, silent = TRUE)
  growth <- heap_growth(function() {
    quiet(pjrt_buffer(big, dtype = "ui8"))
    quiet(pjrt_buffer(ints, dtype = "i32", check = "error"))
    quiet(pjrt_buffer(raw(8e5 + 1), dtype = "f64", shape = 1e5, row_major = TRUE))
    quiet(pjrt_buffer(as.raw(c(rep(0, 1e5 - 1), 2)), dtype = "pred", shape = 1e5, row_major = FALSE))
    quiet(pjrt_empty("f64", c(1e5, -1)))
    quiet(h$slice(list(c(0L, 9L, 1L), 0L)))
    quiet(as_array(pjrt_buffer(2^63, dtype = "ui64", shape = 1e4), check = "error"))
  }, times = 50)
  # Each leaked output would hold at least 100 KB, so 50 repetitions would hold 5 MB.
  expect_lt(growth, 2e6)
})

test_that("successful calls leak nothing over many repetitions", {
  skip_under_valgrind()
  skip_on_cran()
  x <- runif(1e5)
  growth <- heap_growth(function() {
    b <- pjrt_buffer(x, dtype = "f32")
    alias <- pjrt_buffer(x, dtype = "f64")
    values <- as_array(b)
    h <- HArray$new_from_buffer(alias)
    s <- h$slice(list(c(NA, NA, 2L)))
    collected <- s$clone()$collect()
    back <- pjrt_buffer(s)
    h$clone()$invalidate()
    invisible(format(b))
  }, times = 100)
  expect_lt(growth, 2e6)
})

test_that("compiling and running programs leaks nothing over many repetitions", {
  skip_under_valgrind()
  skip_on_cran()
  x <- pjrt_buffer(runif(1e5), dtype = "f32")
  donating <- pjrt_compile(pjrt_program(donation_src))
  quiet <- function(expr) try(expr, silent = TRUE)
  growth <- heap_growth(function() {
    e <- pjrt_compile(add_program("tensor<100000xf32>"))
    sum <- pjrt_execute(e, x, x)
    both <- pjrt_execute(e, sum, x, simplify = FALSE)
    quiet(pjrt_execute(e, x))
    quiet(pjrt_compile(pjrt_program("func.func @main( {")))
    pjrt_execute(donating, f64(c(1, 2, 3)), f64(c(1, 2, 3)))
  }, times = 50)
  # Each leaked result would hold 400 KB.
  expect_lt(growth, 2e6)
})

test_that("views and Arrow exchanges leak nothing over many repetitions", {
  skip_under_valgrind()
  skip_on_cran()
  skip_if_not_installed("nanoarrow")
  x <- runif(1e5)
  ints <- c(sample.int(100L, 1e5 - 1, replace = TRUE), NA)
  quiet <- function(expr) try(expr, silent = TRUE)
  growth <- heap_growth(function() {
    view <- as_array(pjrt_buffer(x, dtype = "f64"))
    view[1] <- 0  # the private copy
    kept <- as_array(pjrt_buffer(ints, dtype = "i32", check = "ignore"), check = "ignore")
    quiet(as_array(pjrt_buffer(ints, dtype = "i32", check = "ignore"), check = "error"))
    exported <- nanoarrow::as_nanoarrow_array(pjrt_buffer(x, dtype = "f32"))
    back <- pjrt_buffer(exported)
    bits <- pjrt_buffer(nanoarrow::as_nanoarrow_array(pjrt_buffer(x > 0.5)))
    quiet(pjrt_buffer(nanoarrow::as_nanoarrow_array(c(x, NA))))
  }, times = 50)
  # Each leaked vector, buffer or array would hold at least 100 KB.
  expect_lt(growth, 2e6)
})

test_that("every argument of the Arrow interop rejects values of the wrong kind", {
  skip_under_valgrind()
  skip_if_not_installed("nanoarrow")
  a <- nanoarrow::as_nanoarrow_array(c(1, 2))
  b <- pjrt_buffer(c(1, 2), dtype = "f64")
  lines <- c(
    sweep_argument("pjrt_buffer<nanoarrow_array>", pjrt_buffer, list(data = a), "dtype"),
    sweep_argument("pjrt_buffer<nanoarrow_array>", pjrt_buffer, list(data = a), "shape"),
    sweep_argument("pjrt_buffer<nanoarrow_array>", pjrt_buffer, list(data = a), "device"),
    sweep_argument("as_nanoarrow_array", nanoarrow::as_nanoarrow_array, list(x = b), "schema")
  )
  expect_snapshot(writeLines(lines))
  expect_identical(as_array(pjrt_buffer(a)), array(c(1, 2)))  # the session keeps working
})
