# stablehlo.custom_call from R: pjrt_register_custom_call() with handlers compiled here
# against the installed header, the built-in print_tensor, and the errors.

scale_program <- function(type = "tensor<2x3xf64>", target = "test_scale", factor = "2.5 : f64") {
  pjrt_program(paste0(
    "func.func @main(%x: ", type, ") -> ", type, " {\n",
    "  %0 = stablehlo.custom_call @", target, "(%x) {api_version = 4 : i32, ",
    "backend_config = {factor = ", factor, "}} : (", type, ") -> ", type, "\n",
    "  return %0 : ", type, "\n}"
  ))
}

test_that("a registered C handler runs in programs", {
  withr::defer(unregister_custom_call("test_scale"))
  pjrt_register_custom_call("test_scale", custom_call_test_handler("scale_handler"))
  x <- matrix(c(1, -2, 3.5, 4, 0, 6), 2, 3)
  out <- pjrt_execute(pjrt_compile(scale_program()), pjrt_buffer(x, dtype = "f64"))
  expect_identical(as_array(out), x * 2.5)
  # upstream's form: a list keyed by platform
  pjrt_register_custom_call("test_scale", list(cuda = NULL, host = custom_call_test_handler("scale_handler")))
  out32 <- pjrt_execute(pjrt_compile(scale_program("tensor<3xf32>", factor = "-1 : i64")),
                        pjrt_buffer(c(1, 2, 3), dtype = "f32"))
  expect_identical(as.vector(as_array(out32)), c(-1, -2, -3))
  targets <- custom_call_targets()
  expect_identical(targets$builtin[targets$name == "test_scale"], FALSE)
})

test_that("handlers see the layouts the op declares", {
  withr::defer(unregister_custom_call("test_layout"))
  pjrt_register_custom_call("test_layout", custom_call_test_handler("layout_handler"))
  program <- function(layout) {
    pjrt_program(paste0(
      "func.func @main(%x: tensor<2x3xf64>) -> (tensor<1xf64>, tensor<2xi64>) {\n",
      "  %0:2 = stablehlo.custom_call @test_layout(%x) {", layout, "} : ",
      "(tensor<2x3xf64>) -> (tensor<1xf64>, tensor<2xi64>)\n",
      "  return %0#0, %0#1 : tensor<1xf64>, tensor<2xi64>\n}"
    ))
  }
  x <- matrix(1:6 + 0, 2, 3)  # memory element 2 is x[2, 1] column-major, x[1, 2] row-major
  col <- pjrt_execute(pjrt_compile(program(
    "operand_layouts = [dense<[0, 1]> : tensor<2xindex>]"
  )), pjrt_buffer(x, dtype = "f64"))
  expect_identical(as.vector(as_array(col[[1]])), x[2, 1])
  expect_identical(as.integer(as_array(col[[2]])), c(0L, 1L))
  row <- pjrt_execute(pjrt_compile(program("")), pjrt_buffer(x, dtype = "f64"))
  expect_identical(as.vector(as_array(row[[1]])), x[1, 2])
  expect_identical(as.integer(as_array(row[[2]])), c(1L, 0L))
})

test_that("handler failures and unknown targets are clear errors", {
  withr::defer(unregister_custom_call("test_scale"))
  pjrt_register_custom_call("test_scale", custom_call_test_handler("scale_handler"))
  exe <- pjrt_compile(scale_program("tensor<2xi32>"))
  expect_snapshot(error = TRUE, pjrt_execute(exe, pjrt_buffer(1:2, dtype = "i32")))
  expect_snapshot(error = TRUE, pjrt_compile(scale_program(target = "no_such_target")))
})

test_that("a package's handlers go when it unloads; programs compiled before say so when run", {
  pjrt_register_custom_call("test_scale", custom_call_test_handler("scale_handler"),
                            .package = "pjrtFakePackage")
  exe <- pjrt_compile(scale_program("tensor<1xf64>"))
  expect_identical(as.vector(as_array(pjrt_execute(exe, pjrt_buffer(2, dtype = "f64")))), 5)
  pjrt:::unregister_custom_calls("pjrtFakePackage")
  expect_false("test_scale" %in% custom_call_targets()$name)
  expect_error(pjrt_compile(scale_program("tensor<1xf64>")), "is not registered",
               class = "pjrt_error_argument")
  # The handler's library may be gone by now (devtools::load_all() reloads it): never called.
  expect_snapshot(error = TRUE, pjrt_execute(exe, pjrt_buffer(2, dtype = "f64")))
  # Registered again (as a reloaded package does), a new compile runs; the old one still refuses.
  withr::defer(unregister_custom_call("test_scale"))
  pjrt_register_custom_call("test_scale", custom_call_test_handler("scale_handler"))
  again <- pjrt_compile(scale_program("tensor<1xf64>"))
  expect_identical(as.vector(as_array(pjrt_execute(again, pjrt_buffer(2, dtype = "f64")))), 5)
  expect_error(pjrt_execute(exe, pjrt_buffer(2, dtype = "f64")), "compile the program again",
               class = "pjrt_error_argument")
})

test_that("a handler whose library was unloaded is an error, not a call into unmapped code", {
  skip_on_os("windows")
  library_path <- custom_call_test_library()
  outcome <- in_fork({
    pjrt_register_custom_call("test_scale", custom_call_test_handler("scale_handler"))
    exe <- pjrt_compile(scale_program("tensor<1xf64>"))
    dyn.unload(library_path)  # without unregistering: R code can do this
    tryCatch({
      pjrt_execute(exe, pjrt_buffer(2, dtype = "f64"))
      "ran"
    }, pjrt_error_argument = function(e) conditionMessage(e))
  })
  expect_match(outcome, "custom call @test_scale: the handler's code is no longer loaded",
               fixed = TRUE)
})

test_that("pjrt's own objects and pointers outside loaded code are not handlers", {
  buffer <- pjrt_buffer(1:3)
  expect_snapshot(error = TRUE, {
    pjrt_register_custom_call("x", buffer)
    pjrt_register_custom_call("x", list(host = pjrt_compile(pjrt_program(
      "func.func @main(%x: tensor<f32>) -> tensor<f32> { return %x : tensor<f32> }"))))
  })
  # An unclassed external pointer to data (an exported Arrow array on the heap), not to code.
  data_pointer <- pjrt:::ffi_buffer_to_arrow(buffer)
  expect_identical(typeof(data_pointer), "externalptr")
  expect_snapshot(error = TRUE, pjrt_register_custom_call("x", data_pointer))
  expect_false("x" %in% custom_call_targets()$name)
})

test_that("pjrt_register_custom_call() checks its arguments", {
  ptr <- custom_call_test_handler("scale_handler")
  expect_snapshot(error = TRUE, {
    pjrt_register_custom_call(1, ptr)
    pjrt_register_custom_call("", ptr)
    pjrt_register_custom_call("x", "not a pointer")
    pjrt_register_custom_call("x", list(ptr))
    pjrt_register_custom_call("x", list(cuda = ptr))
    pjrt_register_custom_call("x", ptr, .package = 3)
    pjrt_register_custom_call("svd", ptr)
  })
  null_ptr <- unserialize(serialize(ptr, NULL))
  expect_snapshot(error = TRUE, pjrt_register_custom_call("x", null_ptr))
  expect_false("x" %in% custom_call_targets()$name)
})

test_that("print_tensor writes its operand between a header and a footer", {
  program <- pjrt_program(r"(
func.func @main(%f: tensor<3xf32>, %b: tensor<2x2xi1>) -> tensor<3xf32> {
  stablehlo.custom_call @print_tensor(%f) {api_version = 4 : i32, has_side_effect = true} : (tensor<3xf32>) -> ()
  "stablehlo.custom_call"(%b) {call_target_name = "print_tensor", api_version = 4 : i32, has_side_effect = true, backend_config = {print_header = "Mask", print_footer = "end of mask"}} : (tensor<2x2xi1>) -> ()
  stablehlo.custom_call @print_tensor(%f) {api_version = 4 : i32, backend_config = {print_header = "", print_footer = ""}} : (tensor<3xf32>) -> ()
  return %f : tensor<3xf32>
})")
  exe <- pjrt_compile(program)
  f <- pjrt_buffer(c(1.5, -2, 3), dtype = "f32")
  b <- pjrt_buffer(matrix(c(TRUE, FALSE, FALSE, TRUE), 2))
  expect_snapshot(invisible(pjrt_execute(exe, f, b)))
  expect_identical(custom_call_targets()$builtin[custom_call_targets()$name == "print_tensor"], TRUE)
})
