# Errors from the core are classed by kind (?pjrt_conditions): each class is caught from a real
# call, the message is the one the user sees anyway, and R-layer checks keep their own class.

# The class a handler for `class` caught from calling `f` and the message.
caught <- function(f, class) {
  handlers <- list(function(e) list(class = class, message = conditionMessage(e)))
  names(handlers) <- class
  do.call(tryCatch, c(list(quote(f())), handlers))
}

# `expr` is run three times: under a handler for its kind, for pjrt_error, and for any error.
expect_core_error <- function(expr, kind, message) {
  call <- substitute(expr)
  env <- parent.frame()
  f <- function() eval(call, env)
  class <- paste0("pjrt_error_", kind)
  specific <- caught(f, class)
  expect_identical(specific$class, class)
  expect_identical(specific$message, message)
  general <- caught(f, "pjrt_error")
  expect_identical(general$message, message)
  e <- tryCatch(f(), error = identity)
  # One kind per error, under the common class, still an rlang error.
  expect_identical(grep("^pjrt_error_", class(e), value = TRUE), class)
  expect_true(inherits(e, "pjrt_error") && inherits(e, "rlang_error"))
}

test_that("each core error kind is a catchable class", {
  expect_core_error(pjrt_buffer(1:6, shape = c(2, 2)), "argument",
                    "Data has length 6, but specified shape is 2x2")
  expect_core_error(pjrt_buffer(c(1, 256), dtype = "ui8"), "conversion",
                    "Value 256 at position 2 cannot be represented as ui8 (range 0 to 255)")
  h <- HArray$new_from_values(array(as.double(1:12), c(3, 4)), HDataType$Float64)
  expect_core_error(h$slice(list(0L, -4L)), "index",
                    "Index -4 is out of bounds for axis 2 of length 3.")
  path <- withr::local_tempfile()
  writeBin(as.raw(1:7), path)
  expect_core_error(pjrt_load_safetensors(path), "format", paste0(
    "Invalid safetensors file '", path,
    "': it has 7 bytes, fewer than the 8 bytes of its header length."
  ))
  folder <- withr::local_tempdir()
  expect_core_error(pjrt_load_safetensors(folder), "io",
                    paste0("Cannot read '", folder, "': Is a directory."))
  expect_core_error(pjrt_buffer(1, device = "cpu:999"), "device",
                    "Device index 999 out of range for platform cpu (1 device)")
})

test_that("objects of the wrong kind are argument errors from the bindings", {
  b <- pjrt_buffer(c(1, 2, 3))
  forged <- pjrt_buffer(1)
  class(forged) <- "PJRTLoadedExecutable"
  expect_core_error(print(forged), "argument", "Expected a PJRTLoadedExecutable.")
  restored <- unserialize(serialize(b, NULL))
  expect_core_error(as_array(restored), "argument",
                    "This PJRTBuffer is no longer valid (it was saved and restored, or released).")
})

test_that("errors found in R keep their own class and a handled core error leaves no trace", {
  e <- tryCatch(pjrt_buffer(1, dtype = "f128"), error = identity)
  expect_false(inherits(e, "pjrt_error"))
  expect_s3_class(e, "rlang_error")
  # The kind of a caught core error is not carried over to the next, unrelated error.
  expect_core_error(pjrt_buffer(c(1, 256), dtype = "ui8"), "conversion",
                    "Value 256 at position 2 cannot be represented as ui8 (range 0 to 255)")
  e <- tryCatch(pjrt_buffer(1, shape = -1), error = identity)
  expect_false(inherits(e, "pjrt_error"))
  expect_identical(as_array(pjrt_buffer(c(1, 2), dtype = "i32")), array(c(1L, 2L)))
})

test_that("the header of a printed core error names rlang_error first, as before", {
  e <- tryCatch(pjrt_buffer(c(1, 256), dtype = "ui8"), error = identity)
  expect_identical(class(e)[[1]], "rlang_error")
  expect_identical(class(e), c("rlang_error", "pjrt_error_conversion", "pjrt_error", "error",
                               "condition"))
})

test_that("a failed binding returns the marker and keeps its message and kind for with_core()", {
  forged <- pjrt_buffer(1)
  class(forged) <- "PJRTLoadedExecutable"
  value <- pjrt:::ffi_executable_device(forged)
  expect_identical(value, quote(pjrt_core_failure))
  # Kind, message and detail (none: the core worded this error itself).
  expect_identical(pjrt:::ffi_take_core_failure(),
                   c("argument", "Expected a PJRTLoadedExecutable.", ""))
  # Taken once: nothing is left for the next failure to inherit.
  expect_identical(pjrt:::ffi_take_core_failure(), c("", "", ""))
  # A successful call returns its value as it is.
  expect_identical(pjrt:::with_core(pjrt:::ffi_buffer_dtype(pjrt_buffer(1L))), "i32")
})

test_that("a binding's argument of the wrong type stops in the call wrapper with its message", {
  # The generated wrapper converts the argument before the binding runs; its exception becomes
  # an R error through the wrapper's own message buffer (see src/r_call_entry.h).
  e <- tryCatch(pjrt:::ffi_devices(1), error = identity)
  expect_identical(conditionMessage(e), "Expected string vector of length 1")
  expect_null(conditionCall(e))
  # The next call through the same wrapper succeeds: no message is left behind.
  expect_identical(pjrt:::ffi_devices("cpu")[[1]], "cpu:0")
})

test_that("standard exceptions from the engine get a kind and a sentence, not library text", {
  # ffi_test_throw() lets the named exception escape from the standard library function that
  # throws it (vector growth, vector::at, std::stoll, bitset::to_ulong, ...).
  expected <- list(
    bad_alloc = c("memory", "std::bad_alloc: "),
    length_error = c("memory", "std::length_error: "),
    out_of_range = c("index", "std::out_of_range: "),
    invalid_argument = c("argument", "std::invalid_argument: "),
    overflow_error = c("argument", "std::overflow_error: "),
    runtime_error = c("internal", "std::exception: "),
    unknown = c("internal", "an exception of unknown type")
  )
  for (type in names(expected)) {
    kind <- expected[[type]][[1]]
    e <- tryCatch(pjrt:::with_core(pjrt:::ffi_test_throw(type)), error = identity)
    expect_identical(grep("^pjrt_error_", class(e), value = TRUE), paste0("pjrt_error_", kind))
    expect_true(inherits(e, "pjrt_error") && inherits(e, "rlang_error"))
    # The library's text is kept apart, for a report; the message never shows it.
    expect_true(startsWith(e$pjrt_detail, expected[[type]][[2]]))
    expect_false(grepl("std::|_M_|basic_string|vector::|stoll|bitset", conditionMessage(e)))
  }
  expect_snapshot(error = TRUE, pjrt:::with_core(pjrt:::ffi_test_throw("bad_alloc")))
  expect_snapshot(error = TRUE, pjrt:::with_core(pjrt:::ffi_test_throw("length_error")))
  expect_snapshot(error = TRUE, pjrt:::with_core(pjrt:::ffi_test_throw("out_of_range")))
  expect_snapshot(error = TRUE, pjrt:::with_core(pjrt:::ffi_test_throw("invalid_argument")))
  expect_snapshot(error = TRUE, pjrt:::with_core(pjrt:::ffi_test_throw("overflow_error")))
  expect_snapshot(error = TRUE, pjrt:::with_core(pjrt:::ffi_test_throw("runtime_error")))
  expect_snapshot(error = TRUE, pjrt:::with_core(pjrt:::ffi_test_throw("unknown")))
  # The exact library texts of the two that reached users before.
  e <- tryCatch(pjrt:::with_core(pjrt:::ffi_test_throw("length_error")), error = identity)
  expect_identical(e$pjrt_detail, "std::length_error: vector::_M_default_append")
  e <- tryCatch(pjrt:::with_core(pjrt:::ffi_test_throw("bad_alloc")), error = identity)
  expect_identical(e$pjrt_detail, "std::bad_alloc: std::bad_alloc")
  # An error pjrt worded itself has no detail.
  e <- tryCatch(pjrt_buffer(c(1, 256), dtype = "ui8"), error = identity)
  expect_null(e$pjrt_detail)
})
