# How long a running program takes to stop after Ctrl-C (SIGINT), for programs whose unit of
# work is slow: a `while` whose body is one 700 x 700 matmul, and a reduce_window whose body
# (tanh, then add) is interpreted per window. Each runs in a child Rscript that is sent SIGINT
# one second after it starts executing; the time from the signal to the child's "interrupted"
# is the latency (target: under 0.5 s). Run with `make bench` (or Rscript bench/interrupt.R).
programs <- list(
  "while, body one 700x700 matmul" = '
    x <- pjrt_buffer(matrix(runif(700 * 700), 700), dtype = "f32")
    n <- pjrt_scalar(100000L, dtype = "i64")
    exe <- pjrt_compile(pjrt_program("
func.func @main(%x: tensor<700x700xf32>, %n: tensor<i64>) -> tensor<700x700xf32> {
  %zero = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %r:2 = stablehlo.while(%i = %zero, %a = %x) : tensor<i64>, tensor<700x700xf32>
    cond {
      %c = stablehlo.compare LT, %i, %n : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %c : tensor<i1>
    } do {
      %p = stablehlo.dot_general %a, %x, contracting_dims = [1] x [0] : (tensor<700x700xf32>, tensor<700x700xf32>) -> tensor<700x700xf32>
      %j = stablehlo.add %i, %one : tensor<i64>
      stablehlo.return %j, %p : tensor<i64>, tensor<700x700xf32>
    }
  return %r#1 : tensor<700x700xf32>
}"))
    run <- function() pjrt_execute(exe, x, n)',
  "reduce_window, body tanh + add" = '
    x <- pjrt_buffer(array(runif(64 * 512 * 512), c(64, 512, 512)), dtype = "f32")
    exe <- pjrt_compile(pjrt_program("
func.func @main(%x: tensor<64x512x512xf32>) -> tensor<64x508x508xf32> {
  %z = stablehlo.constant dense<0.0> : tensor<f32>
  %r = \\"stablehlo.reduce_window\\"(%x, %z) ({
  ^bb0(%a: tensor<f32>, %b: tensor<f32>):
    %t = stablehlo.tanh %b : tensor<f32>
    %s = stablehlo.add %a, %t : tensor<f32>
    stablehlo.return %s : tensor<f32>
  }) {window_dimensions = array<i64: 1, 5, 5>} : (tensor<64x512x512xf32>, tensor<f32>) -> tensor<64x508x508xf32>
  return %r : tensor<64x508x508xf32>
}"))
    run <- function() pjrt_execute(exe, x)'
)

child_script <- function(setup) {
  script <- tempfile(fileext = ".R")
  writeLines(c("suppressPackageStartupMessages(library(pjrt))", setup,
               "cat('running\\n')",
               "out <- tryCatch({ run(); 'finished' }, interrupt = function(e) 'interrupted')",
               "cat(out, '\\n')", "cat('usable:', as_array(pjrt_buffer(2)), '\\n')"), script)
  script
}

latency <- function(setup) {
  log <- tempfile()
  pid <- as.integer(system(sprintf("Rscript --vanilla %s > %s 2>&1 & echo $!",
                                   shQuote(child_script(setup)), shQuote(log)), intern = TRUE))
  while (!any(grepl("running", readLines(log, warn = FALSE)))) Sys.sleep(0.01)
  Sys.sleep(1)
  sent <- Sys.time()
  tools::pskill(pid, tools::SIGINT)
  repeat {
    lines <- readLines(log, warn = FALSE)
    if (any(grepl("interrupted|finished", lines))) break
    if (as.numeric(Sys.time() - sent, units = "secs") > 60) break
    Sys.sleep(0.005)
  }
  seconds <- as.numeric(Sys.time() - sent, units = "secs")
  Sys.sleep(0.5)
  list(seconds = seconds, lines = readLines(log, warn = FALSE))
}

for (name in names(programs)) {
  result <- latency(programs[[name]])
  cat(sprintf("%-34s %6.3f s from SIGINT to stop (%s)\n", name, result$seconds,
              paste(trimws(result$lines[-1]), collapse = "; ")))
}
