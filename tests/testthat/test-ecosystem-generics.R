# pjrt's buffers, devices and executables answer the generics of tengen and of xlamisc (which
# takes them over from tengen) whenever that package's namespace is loaded, whichever package
# loads first. The checks run in fresh R processes against stand-ins (the generics, naxes(),
# nelts() and as_dtype() only, installed in a temporary library), so they need neither the
# real packages nor a network; where a real one is installed, the last tests run against it.

# A library holding a minimal package named `package`: the `generics` pjrt answers (all five
# unless said otherwise), naxes() and nelts() computed from shape(), and an as_dtype() returning
# a "DataType" string, as both packages' do.
stand_in_library <- function(package,
                             generics = c("shape", "dtype", "device", "as_array", "as_raw")) {
  source_dir <- file.path(tempfile(paste0(package, "-src")), package)
  dir.create(file.path(source_dir, "R"), recursive = TRUE)
  writeLines(c(paste("Package:", package), "Version: 0.4.1", "Title: Stand-in",
               "Description: Stand-in.", "License: MIT", "Encoding: UTF-8"),
             file.path(source_dir, "DESCRIPTION"))
  exports <- c(generics, "naxes", "nelts", "as_dtype")
  writeLines(sprintf("export(%s)", exports), file.path(source_dir, "NAMESPACE"))
  writeLines(c(sprintf('%s <- function(x, ...) UseMethod("%s")', generics, generics),
               "naxes <- function(x) length(shape(x))",
               "nelts <- function(x) prod(shape(x))",
               'as_dtype <- function(x) structure(x, class = "DataType")'),
             file.path(source_dir, "R", "generics.R"))
  library_dir <- tempfile(paste0(package, "-lib"))
  dir.create(library_dir)
  r <- file.path(R.home("bin"), "R")
  status <- system2(r, c("CMD", "INSTALL", "--no-test-load", "-l", shQuote(library_dir),
                         shQuote(source_dir)), stdout = FALSE, stderr = FALSE)
  if (status != 0) testthat::skip(paste("could not install the stand-in", package))
  library_dir
}

# What `checks` (R code using `b`, a 2 x 3 f32 buffer, and `e`, an executable) prints when run
# in a new R process whose library path starts with `library_dir`, after loading the packages
# in `load_order`.
run_with_packages <- function(library_dir, load_order, checks) {
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

# The checks of `package`'s generics (written for tengen, the names swapped for another).
generics_checks <- function(package) {
  checks <- c(
    "cat('shape:', tengen::shape(b), tengen::naxes(b), tengen::nelts(b), '\\n')",
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
  gsub("tengen::", paste0(package, "::"), checks, fixed = TRUE)
}

expected_generics_output <- c(
  "shape: 2 3 2 6 ",
  "dtype: DataType f32 ",
  "device: <CpuDevice(id=0)> <CpuDevice(id=0)> <CpuDevice(id=0)> ",
  "as_array: TRUE ",
  "as_raw: TRUE ",
  "promise: TRUE ",
  "pjrt dtype: PJRTElementType "
)

for (package in c("tengen", "xlamisc")) {
  test_that(paste0(package, "'s generics find pjrt's methods when ", package, " loads first"), {
    skip_on_cran()
    library_dir <- stand_in_library(package)
    out <- run_with_packages(library_dir, c(package, "pjrt"), generics_checks(package))
    expect_identical(out, expected_generics_output)
  })

  test_that(paste0(package, "'s generics find pjrt's methods when ", package, " loads after pjrt"), {
    skip_on_cran()
    library_dir <- stand_in_library(package)
    out <- run_with_packages(library_dir, c("pjrt", package), generics_checks(package))
    expect_identical(out, expected_generics_output)
  })
}

test_that("pjrt loads beside a version of either package that lacks some of the generics", {
  skip_on_cran()
  # Releases of xlamisc before 0.4.1 have none of them; pjrt answers the ones that exist.
  for (package in c("tengen", "xlamisc")) {
    library_dir <- stand_in_library(package, generics = "shape")
    for (order in list(c(package, "pjrt"), c("pjrt", package))) {
      out <- run_with_packages(library_dir, order, sprintf(
        "cat('shape:', %s::shape(b), exists('dtype', asNamespace('%s')), '\\n')", package, package))
      expect_identical(out, "shape: 2 3 FALSE ", label = paste(order, collapse = " then "))
    }
  }
})

test_that("both packages' generics answer in one session", {
  skip_on_cran()
  libraries <- c(stand_in_library("tengen"), stand_in_library("xlamisc"))
  out <- run_with_packages(libraries, c("xlamisc", "pjrt", "tengen"), c(
    "cat(class(tengen::dtype(b))[[1]], class(xlamisc::dtype(b))[[1]],",
    "    tengen::nelts(b), xlamisc::naxes(b), '\\n')"
  ))
  expect_identical(out, "DataType DataType 6 2 ")
})

test_that("pjrt loads and its own generics work where neither package is installed", {
  skip_on_cran()
  if (nzchar(system.file(package = "tengen")) || nzchar(system.file(package = "xlamisc"))) {
    skip("tengen or xlamisc is installed here")
  }
  out <- run_with_packages(character(), "pjrt", c(
    "cat('shape:', pjrt::shape(b), format(pjrt::dtype(b)), format(pjrt::device(b)), '\\n')",
    "cat('found:', requireNamespace('tengen', quietly = TRUE),",
    "    requireNamespace('xlamisc', quietly = TRUE), '\\n')"
  ))
  expect_identical(out, c("shape: 2 3 <f32> <CpuDevice(id=0)> ", "found: FALSE FALSE "))
})

for (package in c("tengen", "xlamisc")) {
  test_that(paste0("the installed ", package, "'s generics answer for pjrt's objects"), {
    skip_on_cran()
    skip_if_not_installed(package)
    checks <- c(
      "d <- tengen::dtype(b)",
      "cat('dtype:', inherits(d, 'DataType'), as.character(d), d == tengen::as_dtype('f32'), '\\n')",
      "cat('shape:', tengen::shape(b), tengen::nelts(b), '\\n')"
    )
    out <- run_with_packages(character(), c(package, "pjrt"),
                             gsub("tengen::", paste0(package, "::"), checks, fixed = TRUE))
    expect_identical(out, c("dtype: TRUE f32 TRUE ", "shape: 2 3 6 "))
  })
}
