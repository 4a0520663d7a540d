# Upstream pjrt's names around running programs: pjrt_execute(check =), the
# PJRTExecuteOptions class, format() of a program and as_array() of a promise.

test_that("pjrt_execute(check = FALSE) computes the same results and ignores names", {
  e <- pjrt_compile(add_program("tensor<3xf32>"))
  a <- pjrt_buffer(c(1, 2.5, -4), dtype = "f32")
  b <- pjrt_buffer(c(10, 20, 30), dtype = "f32")
  expected <- array(c(11, 22.5, 26))
  expect_identical(as_array(pjrt_execute(e, a, b, check = FALSE)), expected)
  expect_identical(as_array(pjrt_execute(e, x = a, y = b, check = FALSE)), expected)
  results <- pjrt_execute(e, a, b, simplify = FALSE, check = FALSE)
  expect_length(results, 1)
  expect_identical(as_array(results[[1]]), expected)
  options <- pjrt_execution_options(launch_id = 3)
  expect_identical(as_array(pjrt_execute(e, a, b, execution_options = options, check = FALSE)),
                   expected)
  expect_snapshot(error = TRUE, pjrt_execute(e, x = a, y = b))  # checked by default
})

test_that("pjrt_execute(check = FALSE) still refuses what the engine cannot run", {
  e <- pjrt_compile(add_program("tensor<3xf32>"))
  a <- pjrt_buffer(c(1, 2, 3), dtype = "f32")
  expect_snapshot(error = TRUE, {
    pjrt_execute(e, a, 1, check = FALSE)
    pjrt_execute("e", a, a, check = FALSE)
    pjrt_execute(e, a, check = FALSE)
    pjrt_execute(e, a, pjrt_buffer(1:3), check = FALSE)
    pjrt_execute(e, a, a, execution_options = list(), check = FALSE)
    pjrt_execute(e, a, a, simplify = NA, check = FALSE)
    pjrt_execute(e, a, a, check = NA)
  })
  expect_identical(as_array(a), array(c(1, 2, 3)))  # nothing was changed
})

test_that("pjrt_execute(check = FALSE) donates as the default does", {
  e <- pjrt_compile(pjrt_program(donation_src))
  x <- pjrt_buffer(c(1, 2, 3), dtype = "f64")
  x <- pjrt_execute(pjrt_compile(add_program("tensor<3xf64>")), x, x)  # memory of its own
  y <- pjrt_buffer(c(2, 2, 2), dtype = "f64")
  result <- pjrt_execute(e, x, y, check = FALSE)
  expect_identical(as_array(result), array(c(4, 8, 12)))
  expect_error(as_array(x), "donated")
})

test_that("execution options have upstream's class and keep the earlier one", {
  options <- pjrt_execution_options(non_donatable_input_indices = c(0L, 2L), launch_id = 42L)
  expect_identical(class(options), c("PJRTExecuteOptions", "PJRTExecutionOptions"))
  expect_s3_class(options, "PJRTExecuteOptions")
  expect_s3_class(options, "PJRTExecutionOptions")
  expect_snapshot(print(options))
  e <- pjrt_compile(add_program("tensor<2xf64>"))
  b <- pjrt_buffer(c(1, 2), dtype = "f64")
  options <- pjrt_execution_options(non_donatable_input_indices = 1L, launch_id = 42L)
  expect_identical(as_array(pjrt_execute(e, b, b, execution_options = options)),
                   array(c(2, 4)))
})

test_that("format() of a program is its header and first lines, print() writes it", {
  lines <- c("func.func @main(%x: tensor<f32>) -> tensor<f32> {",
             "  %0 = stablehlo.negate %x : tensor<f32>",
             "  return %0 : tensor<f32>",
             "}")
  program <- pjrt_program(lines)
  header <- sprintf("PJRTProgram(format=mlir, code_size=%d)",
                    sum(nchar(lines, type = "bytes")) + 3L)
  expect_identical(format(program), paste(c(header, lines), collapse = "\n"))
  expect_identical(format(program, n = 2), paste(c(header, lines[1:2], "..."), collapse = "\n"))
  expect_identical(format(program, n = 0), paste(header, "...", sep = "\n"))
  expect_identical(format(program, n = 4), format(program))
  expect_identical(capture.output(print(program, n = 2)), c(header, lines[1:2], "... "))
  expect_identical(capture.output(print(program)), c(header, lines[1:3], "} "))
  expect_snapshot(error = TRUE, format(program, n = -1))
})

test_that("as_array() of a PJRTArrayPromise is the promise's array", {
  b <- pjrt_buffer(matrix(c(1.5, 2, 3, 4), 2), dtype = "f32")
  promise <- as_array_async(b)
  expect_identical(as_array(promise), matrix(c(1.5, 2, 3, 4), 2))
  expect_identical(as_array(promise), value(promise))
  missing <- as_array_async(pjrt_buffer(c(1L, NA), check = FALSE), check = "ignore")
  expect_identical(as_array(missing), array(c(1L, NA)))
})
