# Hostile processes: forked children of a parent that used threads, and files changed on disk
# by another process while buffers mapped from them are alive. Each risky step runs in a
# forked child with a timeout, so a regression fails its test instead of hanging or killing
# the suite.

# Runs an R script in a separate R process that loads this pjrt, for at most a minute; its
# output lines, with a "status" attribute where it failed.
run_script <- function(script) {
  rscript <- file.path(R.home("bin"), "Rscript")
  withr::with_envvar(
    c(R_LIBS = paste(.libPaths(), collapse = .Platform$path.sep)),
    suppressWarnings(system2(rscript, c("--vanilla", script), stdout = TRUE, stderr = TRUE,
                             timeout = 60))
  )
}

# Runs R code in a separate process (another program changing a file), waiting for it.
other_process <- function(code) {
  rscript <- file.path(R.home("bin"), "Rscript")
  status <- system2(rscript, c("--vanilla", "-e", shQuote(code)), stdout = FALSE, stderr = FALSE,
                    timeout = 60)
  stopifnot(status == 0)
}

big_file <- function(path = tempfile(fileext = ".safetensors")) {
  # 2 MiB of f64 (mapped, not read: files under 1 MiB are read) and a transposed matrix.
  x <- pjrt_buffer(as.double(seq_len(2^18)), "f64")
  m <- pjrt_buffer(matrix(as.double(1:6), 2), "f32")
  pjrt_save_safetensors(list(x = x, m = m), path)
  path
}

error_or_value <- function(expr) tryCatch(expr, error = function(e) conditionMessage(e))

test_that("forked children convert after the parent used threads", {
  skip_under_valgrind("forks, signals and other R processes; valgrind intercepts SIGBUS and runs threads serially")
  skip_on_os("windows")  # no fork
  invisible(pjrt_buffer(runif(1e6), "f32"))  # the parent's OpenMP threads now exist
  convert <- function(i) sum(as_array(pjrt_buffer(rep(i, 1e6), "f32")))
  expect_identical(in_fork(unlist(parallel::mclapply(1:2, convert, mc.cores = 2))), c(1e6, 2e6))
  expect_identical(in_fork(convert(3)), 3e6)
  job <- in_fork({
    p <- parallel::mcparallel(convert(4))
    parallel::mccollect(p)[[1]]
  })
  expect_identical(job, 4e6)
  cluster <- in_fork({
    cl <- parallel::makeForkCluster(1)
    on.exit(parallel::stopCluster(cl))
    parallel::clusterCall(cl, convert, 5)[[1]]
  })
  expect_identical(cluster, 5e6)
})

test_that("every long operation works in a forked child", {
  skip_under_valgrind("forks, signals and other R processes; valgrind intercepts SIGBUS and runs threads serially")
  skip_on_os("windows")
  invisible(pjrt_buffer(runif(1e6), "f64"))
  path <- tempfile(fileext = ".safetensors")
  m <- matrix(as.double(1:2e6), 1000)
  outcome <- in_fork({
    b <- pjrt_buffer(m, "f32")
    pjrt_save_safetensors(list(m = b), path)
    back <- as_array(pjrt_load_safetensors(path)$m)
    h <- HArray$new_from_buffer(b)
    # The HArray reverses the axes; its row-major values, read back, are m again.
    c(identical(back, m), identical(h$collect(), m), length(format(b)) > 0)
  })
  expect_identical(outcome, c(TRUE, TRUE, TRUE))
})

test_that("a mapped file rewritten in place by another process is an error, not a crash", {
  skip_under_valgrind("forks, signals and other R processes; valgrind intercepts SIGBUS and runs threads serially")
  skip_on_os("windows")
  skip_if_not_installed("safetensors")
  path <- big_file()
  rewrite <- sprintf(
    'library(pjrt); safetensors::safe_save_file(list(w = pjrt_buffer(1:4, "f32")), "%s")', path
  )
  outcome <- in_fork({
    y <- pjrt_load_safetensors(path)
    Sys.sleep(0.05)  # a later modification time than the loaded one
    other_process(rewrite)  # truncates the file, then writes a smaller one
    c(error_or_value(as_array(y$x)), error_or_value(format(y$x)),
      error_or_value(pjrt_save_safetensors(y, tempfile())))
  })
  expect_length(outcome, 3)
  expect_true(all(grepl("changed on disk after it was loaded", outcome)))
  expect_snapshot(error = TRUE, transform = function(x) gsub(path, "<path>", x, fixed = TRUE), {
    y <- pjrt_load_safetensors(path <- big_file())
    other_process(sprintf('f <- file("%s", "r+b"); writeBin(as.raw(1:8), f); close(f)', path))
    as_array(y$x)
  })
})

test_that("bytes overwritten in place (same size) are detected, and copies are immune", {
  skip_under_valgrind("forks, signals and other R processes; valgrind intercepts SIGBUS and runs threads serially")
  skip_on_os("windows")
  path <- big_file()
  overwrite <- sprintf('f <- file("%s", "r+b"); seek(f, 200, rw = "write"); writeBin(as.raw(rep(7, 64)), f); close(f)', path)
  outcome <- in_fork({
    mapped <- pjrt_load_safetensors(path)
    copied <- pjrt_load_safetensors(path, copy = TRUE)
    Sys.sleep(0.05)
    other_process(overwrite)
    list(error_or_value(as_array(mapped$x)), as_array(copied$x), as_array(copied$m))
  })
  expect_match(outcome[[1]], "changed on disk after it was loaded")
  expect_identical(outcome[[2]], array(as.double(seq_len(2^18))))  # the values as saved
  expect_identical(outcome[[3]], matrix(as.double(1:6), 2))
})

test_that("a file truncated by another process while it loads never kills R", {
  skip_under_valgrind("forks, signals and other R processes; valgrind intercepts SIGBUS and runs threads serially")
  skip_on_os("windows")
  skip_on_cran()
  path <- tempfile(fileext = ".safetensors")
  m <- pjrt_buffer(matrix(runif(2^22), 2048), "f32")  # 16 MiB, transposed while loading
  rscript <- file.path(R.home("bin"), "Rscript")
  outcomes <- character()
  for (delay in c(0, 0.02, 0.05, 0.1)) {
    pjrt_save_safetensors(list(a = m, b = m, c = m), path)
    truncate <- sprintf('Sys.sleep(%s); f <- file("%s", "r+b"); truncate(f); close(f)', delay, path)
    system2(rscript, c("--vanilla", "-e", shQuote(truncate)), wait = FALSE)
    outcomes <- c(outcomes, in_fork({
      loaded <- error_or_value(pjrt_load_safetensors(path))
      if (is.character(loaded)) loaded else error_or_value(sum(as_array(loaded$c)) > 0)
    }))
    Sys.sleep(delay + 0.3)
  }
  # Loaded before the change (TRUE), caught by the guard, or found empty when opened.
  ok <- outcomes == "TRUE" | grepl("changed on disk after it was loaded", outcomes) |
    grepl("Invalid safetensors file", outcomes)
  expect_true(all(ok), info = paste(outcomes, collapse = " | "))
})

test_that("tens of thousands of loaded small files do not exhaust the map limit", {
  skip_under_valgrind("forks, signals and other R processes; valgrind intercepts SIGBUS and runs threads serially")
  skip_on_cran()
  path <- tempfile(fileext = ".safetensors")
  pjrt_save_safetensors(list(x = pjrt_buffer(1:4, "i32")), path)
  # Beyond Linux's default vm.max_map_count (65530) had each load kept a map.
  loaded <- vector("list", 70000)
  for (k in seq_along(loaded)) loaded[[k]] <- pjrt_load_safetensors(path)$x
  expect_identical(as_array(loaded[[70000]]), array(1:4))
  expect_identical(sum(as_array(pjrt_buffer(rep(0.5, 1e6), "f64"))), 5e5)  # still allocates
})

test_that("R ends cleanly with asynchronous runs still queued", {
  skip_under_valgrind("other R processes; valgrind runs threads serially")
  skip_on_cran()
  # A script whose last results nobody reads: R's exit used to tear down the BLAS while the
  # queue's worker still solved in it (a segfault in 6 of 10 exits). Now the exit cancels the
  # queued runs and waits for the running one.
  script <- tempfile(fileext = ".R")
  writeLines(c(
    "suppressPackageStartupMessages(library(pjrt))",
    "pjrt_async(TRUE)",
    "n <- 1000",
    "a <- matrix(rnorm(n * n) / n, n); a[upper.tri(a)] <- 0; diag(a) <- 1",
    "m <- sprintf('tensor<%dx%dxf32>', n, n); v <- sprintf('tensor<%dx100xf32>', n)",
    "solve <- pjrt_compile(pjrt_program(sprintf(paste0(",
    "  'func.func @main(%%a: %1$s, %%b: %2$s) -> %2$s {\\n',",
    "  '  %%y = \"stablehlo.triangular_solve\"(%%a, %%b) {left_side = true, lower = true, ',",
    "  'unit_diagonal = false, transpose_a = #stablehlo<transpose NO_TRANSPOSE>} : ',",
    "  '(%1$s, %2$s) -> %2$s\\n  return %%y : %2$s\\n}'), m, v)))",
    "b <- pjrt_buffer(matrix(rnorm(n * 100), n), dtype = 'f32')",
    "a <- pjrt_buffer(a, dtype = 'f32')",
    "for (i in 1:100) y <- pjrt_execute(solve, a, b)",
    "cat('queued\\n')"
  ), script)
  for (attempt in 1:3) {
    output <- run_script(script)
    expect_null(attr(output, "status"))
    expect_identical(output, "queued")
  }
})

test_that("unloading pjrt stops its queued runs, and a later load's runs are left alone", {
  skip_under_valgrind("other R processes; valgrind runs threads serially")
  skip_on_cran()
  script <- tempfile(fileext = ".R")
  writeLines(c(
    "suppressPackageStartupMessages(library(pjrt))",
    paste("count <-", deparse1(counting_text)),
    "run <- function(n) {",
    "  pjrt_execute(pjrt_compile(pjrt_program(count)),",
    "               pjrt_buffer(n, dtype = 'i64', shape = integer()))",
    "}",
    "hours <- run(2^40)",
    "unloadNamespace('pjrt')",
    "suppressPackageStartupMessages(library(pjrt))",
    "later <- run(3e6)  # queued behind the first run unless the unload stopped it",
    "invisible(gc())  # collects the first load's exit finalizer, which must not cancel it",
    "cat(tryCatch(as_array(later) == 3e6, error = conditionMessage), '\\n')"
  ), script)
  output <- run_script(script)
  expect_null(attr(output, "status"))
  expect_identical(trimws(output), "TRUE")
})
