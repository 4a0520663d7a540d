# pjrt's buffers, devices and executables answer tengen's generics whenever tengen's namespace
# is loaded, whichever of the two packages loads first. The checks run in fresh R processes
# against a stand-in tengen (the generics and as_dtype() only, installed in a temporary
# library), so they need neither the real package nor a network; where the real tengen is
# installed, the last test runs the same checks against it.

# A library holding a minimal package named tengen: the five generics pjrt answers, and an
# as_dtype() returning a "DataType" string, as tengen's does.
stand_in_tengen_library <- function() {
  source_dir <- file.path(tempfile("tengen-src"), "tengen")
  dir.create(file.path(source_dir, "R"), recursive = TRUE)
  writeLines(c("Package: tengen", "Version: 0.0.1", "Title: Stand-in", "Description: Stand-in.",
               "License: MIT", "Encoding: UTF-8"), file.path(source_dir, "DESCRIPTION"))
  generics <- c("shape", "dtype", "device", "as_array", "as_raw")
  writeLines(c(sprintf("export(%s)", c(generics, "as_dtype"))), file.path(source_dir, "NAMESPACE"))
  writeLines(c(sprintf('%s <- function(x, ...) UseMethod("%s")', generics, generics),
               'as_dtype <- function(x) structure(x, class = "DataType")'),
             file.path(source_dir, "R", "generics.R"))
  library_dir <- tempfile("tengen-lib")
  dir.create(library_dir)
  r <- file.path(R.home("bin"), "R")
  status <- system2(r, c("CMD", "INSTALL", "--no-test-load", "-l", shQuote(library_dir),
                         shQuote(source_dir)), stdout = FALSE, stderr = FALSE)
  if (status != 0) testthat::skip("could not install the stand-in tengen")
  library_dir
}

# What `checks` (R code using `b`, a 2 x 3 f32 buffer, and `e`, an executable) prints when run
# in a new R process whose library path starts with `library_dir`, after loading the packages
# in `load_order`.
run_with_tengen <- function(library_dir, load_order, checks) {
  code <- paste(c(
    sprintf("invisible(suppressPackageStartupMessages(loadNamespace(%s)))", dQuote(load_order, FALSE)),
    "b <- pjrt::pjrt_buffer(matrix(c(1, 2, 3, 4, 5, 6), 2), dtype = 'f32')",
    "e <- pjrt::pjrt_compile(pjrt::pjrt_program(",
    "  'func.func @main(%x: tensor<f32>) -> tensor<f32> { return %x : tensor<f32> }'))",
    checks
  ), collapse = "\n")
  script <- tempfile(fileext = ".R")
  writeLines(code, script)
  rscript <- file.path(R.home("bin"), "Rscript")
  libraries <- paste(c(library_dir, .libPaths()), collapse = .Platform$path.sep)
  system2(rscript, c("--vanilla", shQuote(script)), stdout = TRUE, stderr = TRUE,
          env = paste0("R_LIBS=", shQuote(libraries)), timeout = 120)
}

tengen_checks <- c(
  "cat('shape:', tengen::shape(b), '\\n')",
  "d <- tengen::dtype(b); cat('dtype:', class(d)[[1]], unclass(d), '\\n')",
  "cat('device:', format(tengen::device(b)), format(tengen::device(e)),",
  "    format(tengen::device(pjrt::pjrt_device())), '\\n')",
  "cat('as_array:', identical(tengen::as_array(b), matrix(c(1, 2, 3, 4, 5, 6), 2)), '\\n')",
  "cat('as_raw:', identical(tengen::as_raw(b, row_major = FALSE),",
  "    writeBin(c(1, 2, 3, 4, 5, 6), raw(), size = 4)), '\\n')",
  "p <- pjrt::as_array_async(b)",
  "cat('promise:', identical(tengen::as_array(p), matrix(c(1, 2, 3, 4, 5, 6), 2)), '\\n')",
  "cat('pjrt dtype:', class(pjrt::dtype(b))[[1]], '\\n')"
)

expected_tengen_output <- c(
  "shape: 2 3 ",
  "dtype: DataType f32 ",
  "device: <CpuDevice(id=0)> <CpuDevice(id=0)> <CpuDevice(id=0)> ",
  "as_array: TRUE ",
  "as_raw: TRUE ",
  "promise: TRUE ",
  "pjrt dtype: PJRTElementType "
)

test_that("tengen's generics find pjrt's methods when tengen loads first", {
  skip_on_cran()
  library_dir <- stand_in_tengen_library()
  out <- run_with_tengen(library_dir, c("tengen", "pjrt"), tengen_checks)
  expect_identical(out, expected_tengen_output)
})

test_that("tengen's generics find pjrt's methods when tengen loads after pjrt", {
  skip_on_cran()
  library_dir <- stand_in_tengen_library()
  out <- run_with_tengen(library_dir, c("pjrt", "tengen"), tengen_checks)
  expect_identical(out, expected_tengen_output)
})

test_that("pjrt loads and its own generics work where tengen is not installed", {
  skip_on_cran()
  if (nzchar(system.file(package = "tengen"))) skip("tengen is installed here")
  out <- run_with_tengen(character(), "pjrt", c(
    "cat('shape:', pjrt::shape(b), format(pjrt::dtype(b)), format(pjrt::device(b)), '\\n')",
    "cat('tengen:', requireNamespace('tengen', quietly = TRUE), '\\n')"
  ))
  expect_identical(out, c("shape: 2 3 <f32> <CpuDevice(id=0)> ", "tengen: FALSE "))
})

test_that("the installed tengen's generics answer for pjrt's objects", {
  skip_on_cran()
  skip_if_not_installed("tengen")
  out <- run_with_tengen(character(), c("tengen", "pjrt"), c(
    "d <- tengen::dtype(b)",
    "cat('dtype:', inherits(d, 'DataType'), as.character(d), d == tengen::as_dtype('f32'), '\\n')",
    "cat('shape:', tengen::shape(b), tengen::nelts(b), '\\n')"
  ))
  expect_identical(out, c("dtype: TRUE f32 TRUE ", "shape: 2 3 6 "))
})
