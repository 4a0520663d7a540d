# Programs that used to crash, give non-boolean booleans or ignore Ctrl-C. Cases that could kill or hang the session run in a child process (in_fork()).

# `@f` calling itself from inside `depth` nested ifs on %p (the reported shape), and `@main`
# calling `@f`.
recursive_program <- function(depth) {
  body <- c("%c = func.call @f(%p, %x) : (tensor<i1>, tensor<i32>) -> tensor<i32>",
            "stablehlo.return %c : tensor<i32>")
  for (k in seq_len(depth) - 1) {
    body <- c(sprintf('%%r%d = "stablehlo.if"(%%p) ({', k), body,
              "}, {", "stablehlo.return %x : tensor<i32>",
              "}) : (tensor<i1>) -> tensor<i32>",
              sprintf("stablehlo.return %%r%d : tensor<i32>", k))
  }
  body[length(body)] <- sprintf("return %%r%d : tensor<i32>", depth - 1)
  paste(c("func.func private @f(%p: tensor<i1>, %x: tensor<i32>) -> tensor<i32> {", body, "}",
          "func.func @main(%p: tensor<i1>, %x: tensor<i32>) -> tensor<i32> {",
          "%0 = func.call @f(%p, %x) : (tensor<i1>, tensor<i32>) -> tensor<i32>",
          "return %0 : tensor<i32>", "}"), collapse = "\n")
}

test_that("recursion from inside deeply nested regions is an error, not a C stack overflow", {
  skip_on_os("windows")  # in_fork() forks
  src <- recursive_program(160)
  outcome <- in_fork(tryCatch(
    as_array(run_program(src, pjrt_scalar(TRUE, "pred"), pjrt_scalar(7L, "i32"))),
    pjrt_error = function(e) conditionMessage(e)
  ))
  # 512 levels: main's body, three calls of 161 levels (the body and 160 ifs), then the 28th
  # if of the fourth call, on line 29.
  expect_identical(outcome, paste0(
    "calls and regions nested more than 512 deep (at @f, line 29): ",
    "is the program recursive?"
  ))
  # With %p false the same program returns %x: nesting alone is fine.
  expect_identical(as_array(run_program(src, pjrt_scalar(FALSE, "pred"), pjrt_scalar(7L, "i32"))),
                   7L)
})

# ---- booleans are 0 / 1 ------------------------------------------------------------------------

# Runs `body` (which defines %r : `type`) in a @main without arguments.
run_constant <- function(body, type) {
  run_program(paste(c(paste0("func.func @main() -> ", type, " {"), body,
                      paste0("return %r : ", type), "}"), collapse = "\n"))
}

test_that("every producer of i1 gives bytes 0 and 1 only", {
  hex <- run_constant('%r = stablehlo.constant dense<"0x00010280FF"> : tensor<5xi1>',
                      "tensor<5xi1>")
  expect_identical(as_raw(hex, row_major = TRUE), as.raw(c(0, 1, 1, 1, 1)))
  expect_identical(as.vector(as_array(hex) == TRUE), c(FALSE, TRUE, TRUE, TRUE, TRUE))
  splat <- run_constant('%r = stablehlo.constant dense<"0x02"> : tensor<3xi1>', "tensor<3xi1>")
  expect_identical(as_raw(splat, row_major = TRUE), as.raw(c(1, 1, 1)))
  list <- run_constant("%r = stablehlo.constant dense<[true, false, true]> : tensor<3xi1>",
                       "tensor<3xi1>")
  expect_identical(as_raw(list, row_major = TRUE), as.raw(c(1, 0, 1)))
  converted <- run_program(paste(
    "func.func @main(%x: tensor<4xf32>) -> tensor<4xi1> {",
    "  %r = stablehlo.convert %x : (tensor<4xf32>) -> tensor<4xi1>",
    "  return %r : tensor<4xi1>", "}", sep = "\n"), pjrt_buffer(c(0, 2, -0.5, NaN), "f32"))
  # x != 0, as in C (NaN != 0 too)
  expect_identical(as_raw(converted, row_major = TRUE), as.raw(c(0, 1, 1, 1)))
  # bitcast_convert takes i1 as one bit: the bits of 0x05, least significant first.
  bits <- run_program(paste(
    "func.func @main(%x: tensor<ui8>) -> tensor<8xi1> {",
    '  %r = "stablehlo.bitcast_convert"(%x) : (tensor<ui8>) -> tensor<8xi1>',
    "  return %r : tensor<8xi1>", "}", sep = "\n"), pjrt_scalar(5L, "ui8"))
  expect_identical(as_raw(bits, row_major = TRUE), as.raw(c(1, 0, 1, 0, 0, 0, 0, 0)))
})

test_that("a boolean result saves and loads through safetensors", {
  hex <- run_constant('%r = stablehlo.constant dense<"0x0002000300"> : tensor<5xi1>',
                      "tensor<5xi1>")
  path <- withr::local_tempfile(fileext = ".safetensors")
  pjrt_save_safetensors(list(b = hex), path)
  expect_identical(as.vector(as_array(pjrt_load_safetensors(path)$b)),
                   c(FALSE, TRUE, FALSE, TRUE, FALSE))
})

test_that("iota on i1 and raw pred bytes other than 0 / 1 are errors", {
  expect_snapshot(error = TRUE, pjrt_compile(pjrt_program(paste(
    "func.func @main() -> tensor<4xi1> {",
    '  %r = "stablehlo.iota"() {iota_dimension = 0 : i64} : () -> tensor<4xi1>',
    "  return %r : tensor<4xi1>", "}", sep = "\n"))))
  expect_snapshot(error = TRUE,
                  pjrt_buffer(as.raw(c(0, 1, 2)), dtype = "pred", shape = 3, row_major = TRUE))
})

# ---- Ctrl-C during compiles --------------------------------------------------------------------

test_that("Ctrl-C stops a long compile as a real interrupt", {
  skip_on_cran()
  skip_on_os("windows")  # no SIGINT to send, no fork
  skip_under_valgrind("valgrind delivers SIGINT to worker threads, which Linux does not")
  n <- 2e5  # 2 million tokens: the lexer polls about 30 times
  program <- pjrt_program(paste(c(
    "func.func @main() -> tensor<f32> {", "%v0 = stablehlo.constant dense<1.0> : tensor<f32>",
    sprintf("%%v%d = stablehlo.add %%v%d, %%v0 : tensor<f32>", seq_len(n), seq_len(n) - 1),
    sprintf("return %%v%d : tensor<f32>", n), "}"), collapse = "\n"))
  full <- system.time(pjrt_compile(program))[["elapsed"]]
  # In a child: SIGINT to itself, then the compile. R's evaluator takes the interrupt before
  # the compile starts about half the time; otherwise the core's first poll must stop the
  # compile, well before its end, as an interrupt (not an error the inner handler catches).
  outcomes <- in_fork(lapply(1:6, function(i) {
    start <- proc.time()[["elapsed"]]
    outcome <- tryCatch({
      tools::pskill(Sys.getpid(), tools::SIGINT)
      tryCatch({
        pjrt_compile(program)
        for (k in 1:200) Sys.sleep(0.01)
        "completed"
      }, error = function(e) paste("caught as an error:", conditionMessage(e)))
    }, interrupt = function(i) "interrupt")
    list(outcome = outcome, seconds = proc.time()[["elapsed"]] - start)
  }), timeout = 120)
  expect_type(outcomes, "list")
  expect_identical(vapply(outcomes, `[[`, "", "outcome"), rep("interrupt", 6))
  expect_lt(max(vapply(outcomes, `[[`, 0, "seconds")), full / 2)
})
