# ---- round trips -----------------------------------------------------------------------

test_that("round trips are bit-exact for every dtype and shape", {
  set.seed(1)
  shapes <- list(integer(), 0L, 1L, 5L, c(3L, 4L), c(1L, 7L), c(2L, 3L, 4L), c(2L, 0L, 3L))
  path <- tempfile(fileext = ".safetensors")
  for (dtype in all_dtypes) {
    tensors <- list()
    for (k in seq_along(shapes)) {
      shape <- shapes[[k]]
      bytes <- random_bytes(dtype, prod(shape))
      tensors[[paste0(dtype, "_", k)]] <- pjrt_buffer(bytes, dtype = dtype, shape = shape,
                                                      row_major = FALSE)
    }
    pjrt_save_safetensors(tensors, path, allow_c128 = TRUE)
    loaded <- pjrt_load_safetensors(path)
    expect_identical(names(loaded), names(tensors))
    for (name in names(tensors)) {
      expect_identical(as.character(elt_type(loaded[[name]])), dtype)
      expect_identical(shape(loaded[[name]]), shape(tensors[[name]]))
      expect_identical(as_raw(loaded[[name]], row_major = FALSE),
                       as_raw(tensors[[name]], row_major = FALSE))
    }
  }
})

test_that("values keep their positions: the file holds them row-major", {
  x <- array(1:24, c(2, 3, 4))
  path <- tempfile()
  pjrt_save_safetensors(list(x = pjrt_buffer(x, dtype = "i32")), path)
  bytes <- readBin(path, "raw", file.size(path))
  header_length <- readBin(bytes[1:8], "integer", size = 4, endian = "little")
  data <- readBin(bytes[-(1:(8 + header_length))], "integer", n = 24, size = 4)
  expect_identical(data, as.integer(aperm(x, 3:1)))
  y <- as_array(pjrt_load_safetensors(path)$x)
  expect_identical(y, x)
})

test_that("metadata round trips and is NULL when absent", {
  path <- tempfile()
  b <- list(a = pjrt_buffer(1:3))
  pjrt_save_safetensors(b, path, metadata = list(format = "pt", note = "h\u00e9llo"))
  expect_identical(attr(pjrt_load_safetensors(path), "metadata"),
                   list(format = "pt", note = "h\u00e9llo"))
  pjrt_save_safetensors(b, path, metadata = c(k = "v"))
  expect_identical(attr(pjrt_load_safetensors(path), "metadata"), list(k = "v"))
  pjrt_save_safetensors(b, path)
  expect_null(attr(pjrt_load_safetensors(path), "metadata"))
  expect_identical(pjrt_save_safetensors(b, path), path)
})

test_that("non-ASCII names round trip, also through the safetensors package", {
  name <- "gewicht_\u00e4\u4e2d"
  x <- stats::setNames(list(pjrt_buffer(1:2, dtype = "i16")), name)
  path <- tempfile()
  pjrt_save_safetensors(x, path)
  expect_identical(names(pjrt_load_safetensors(path)), name)
  expect_identical(names(safetensors::safe_load_file(path, framework = "pjrt")), name)
  safetensors::safe_save_file(x, path)
  expect_identical(names(pjrt_load_safetensors(path)), name)
})

test_that("progress bars can be shown", {
  skip_under_valgrind("a 16 MB write for the progress bar; the reader and writer run in smaller tests")
  withr::local_options(cli.progress_show_after = 0)
  x <- list(m = pjrt_buffer(matrix(runif(2^22), 2^11), dtype = "f32"))
  path <- tempfile()
  expect_no_error(pjrt_save_safetensors(x, path))
  expect_identical(as_array(pjrt_load_safetensors(path)$m), as_array(x$m))
})

test_that("an empty list makes a valid file", {
  path <- tempfile()
  pjrt_save_safetensors(list(), path)
  expect_length(pjrt_load_safetensors(path), 0)
  expect_identical(readBin(path, "raw", 100), c(le64(8), charToRaw("{}      ")))
})

test_that("a subset is loaded by name, in the order asked", {
  path <- tempfile()
  pjrt_save_safetensors(
    list(a = pjrt_buffer(1:2), b = pjrt_buffer(c(1.5, 2)), c = pjrt_buffer(TRUE)), path
  )
  out <- pjrt_load_safetensors(path, names = c("c", "a"))
  expect_identical(names(out), c("c", "a"))
  expect_identical(as_array(out$a), array(1:2))
  expect_length(pjrt_load_safetensors(path, names = character()), 0)
  expect_snapshot(error = TRUE, {
    pjrt_load_safetensors(path, names = "zz")
    pjrt_load_safetensors(path, names = c("a", "a"))
    pjrt_load_safetensors(path, names = NA_character_)
  })
})

test_that("buffers can be placed on a device", {
  path <- tempfile()
  pjrt_save_safetensors(list(a = pjrt_buffer(1:4)), path)
  out <- pjrt_load_safetensors(path, device = "cpu")
  expect_true(device(out$a) == pjrt_device("cpu"))
  expect_error(pjrt_load_safetensors(path, device = "tpu"))
  withr::with_envvar(c(PJRT_CPU_DEVICE_COUNT = "2"), {
    out <- pjrt_load_safetensors(path, device = "cpu:1")
    expect_identical(as.character(device(out$a)), "CpuDevice(id=1)")
    expect_identical(as_array(out$a), array(1:4))
  })
})

# ---- the reference fixture ---------------------------------------------------------------

test_that("the reference implementation's fixture loads", {
  path <- skip_without_fixture("hello.safetensors")
  out <- pjrt_load_safetensors(path)
  expect_identical(names(out), c("hello", "world"))
  expect_identical(shape(out$hello), c(10L, 10L))
  expect_identical(shape(out$world), c(5L, 10L))
  expect_identical(as.character(elt_type(out$hello)), "f32")
  expect_identical(as_array(out$hello), array(1, c(10, 10)))
  expect_identical(as_array(out$world), array(0, c(5, 10)))
  expect_null(attr(out, "metadata"))
  via_package <- safetensors::safe_load_file(path, framework = "pjrt")
  expect_identical(as_array(via_package$world), as_array(out$world))
})

# ---- the safetensors package -----------------------------------------------------------

test_that("files written by pjrt load with safetensors::safe_load_file()", {
  set.seed(2)
  tensors <- list()
  for (dtype in all_dtypes) {
    tensors[[dtype]] <- pjrt_buffer(random_bytes(dtype, 6), dtype = dtype, shape = c(2, 3),
                                    row_major = FALSE)
  }
  tensors$scalar <- pjrt_scalar(3.5, dtype = "f64")
  tensors$empty <- pjrt_buffer(integer(), dtype = "i16")
  path <- tempfile()
  pjrt_save_safetensors(tensors, path, metadata = list(a = "b"), allow_c128 = TRUE)
  loaded <- safetensors::safe_load_file(path, framework = "pjrt")
  expect_setequal(names(loaded), names(tensors))
  for (name in names(tensors)) {
    expect_identical(shape(loaded[[name]]), shape(tensors[[name]]))
    expect_identical(elt_type(loaded[[name]]), elt_type(tensors[[name]]))
    expect_identical(as_raw(loaded[[name]], row_major = FALSE),
                     as_raw(tensors[[name]], row_major = FALSE))
  }
})

test_that("files written by safetensors::safe_save_file() load with pjrt", {
  set.seed(3)
  # The safetensors package cannot size complex tensors (C64, C128).
  real <- setdiff(all_dtypes, c("c64", "c128"))
  tensors <- list()
  for (dtype in real) {
    tensors[[dtype]] <- pjrt_buffer(random_bytes(dtype, 24), dtype = dtype, shape = c(2, 3, 4),
                                    row_major = FALSE)
  }
  tensors$scalar <- pjrt_scalar(7L, dtype = "i32")
  path <- tempfile()
  safetensors::safe_save_file(tensors, path, metadata = list(k = "v"))
  loaded <- pjrt_load_safetensors(path)
  expect_identical(names(loaded), names(tensors))
  expect_identical(attr(loaded, "metadata"), list(k = "v"))
  for (name in names(tensors)) {
    expect_identical(shape(loaded[[name]]), shape(tensors[[name]]))
    expect_identical(elt_type(loaded[[name]]), elt_type(tensors[[name]]))
    expect_identical(as_raw(loaded[[name]], row_major = FALSE),
                     as_raw(tensors[[name]], row_major = FALSE))
  }
  expect_identical(as_array(loaded$f64), as_array(tensors$f64))
})

test_that("the framework constructor places buffers and rejects unknown dtypes", {
  path <- tempfile()
  pjrt_save_safetensors(list(a = pjrt_buffer(1:3)), path)
  out <- safetensors::safe_load_file(path, framework = "pjrt", device = "cpu")
  expect_identical(as_array(out$a), array(1:3))
  expect_snapshot(error = TRUE, {
    pjrt:::pjrt_tensor_from_raw(as.raw(1:2), list(dtype = "F8_E8M0", shape = 2L))
  })
})

test_that("c128 needs an explicit opt-in", {
  x <- list(z = pjrt_buffer(complex(real = 1, imaginary = 2), dtype = "c128"))
  path <- tempfile()
  expect_snapshot(error = TRUE, {
    pjrt_save_safetensors(x, path)
    safetensors::safe_save_file(x, path)
  })
  pjrt_save_safetensors(x, path, allow_c128 = TRUE)
  expect_identical(as_array(pjrt_load_safetensors(path)$z), as_array(x$z))
  withr::with_options(list(pjrt.safetensors_allow_c128 = TRUE), {
    expect_identical(safetensors:::safe_tensor_meta(x$z), list(shape = list(1L), dtype = "C128"))
  })
})

test_that("pjrt registers with safetensors when that package loads after it", {
  path <- tempfile()
  pjrt_save_safetensors(list(a = pjrt_buffer(1:3)), path)
  script <- tempfile(fileext = ".R")
  writeLines(c(
    'suppressPackageStartupMessages(library(pjrt))',
    'stopifnot(!isNamespaceLoaded("safetensors"))',
    'loadNamespace("safetensors")',
    sprintf('out <- safetensors::safe_load_file("%s", framework = "pjrt")', path),
    'stopifnot(identical(as_array(out$a), array(1:3)))',
    'cat("registered\\n")'
  ), script)
  rscript <- file.path(R.home("bin"), "Rscript")
  output <- withr::with_envvar(
    c(R_LIBS = paste(.libPaths(), collapse = .Platform$path.sep)),
    system2(rscript, c("--vanilla", script), stdout = TRUE, stderr = TRUE)
  )
  expect_identical(output[length(output)], "registered")
})

# ---- safety --------------------------------------------------------------------------------

test_that("overwriting a loaded (mapped) file keeps the old buffers' values", {
  path <- tempfile()
  pjrt_save_safetensors(list(v = pjrt_buffer(as.double(1:1000), dtype = "f64")), path)
  old <- pjrt_load_safetensors(path)
  pjrt_save_safetensors(list(v = pjrt_buffer(-as.double(1:1000), dtype = "f64")), path)
  expect_identical(as_array(old$v), array(as.double(1:1000)))
  expect_identical(as_array(pjrt_load_safetensors(path)$v), array(-as.double(1:1000)))
  # ... and writing a file from buffers mapped from it.
  pjrt_save_safetensors(list(w = old$v), path)
  rm(old)
  gc()
  expect_identical(as_array(pjrt_load_safetensors(path)$w), array(as.double(1:1000)))
})

test_that("a failed write leaves the previous file and no temporary file", {
  dir <- withr::local_tempdir()
  target <- file.path(dir, "x.safetensors")
  dir.create(target)  # a directory is never replaced
  file.create(file.path(target, "inside"))
  expect_error(pjrt_save_safetensors(list(a = pjrt_buffer(1:3)), target),
               "Cannot write '.*x.safetensors': Is a directory.")
  expect_identical(list.files(dir), "x.safetensors")
  expect_identical(list.files(target), "inside")
})

test_that("a malformed file gives a clear error, never a crash", {
  dir <- file.path(tempdir(), "malformed")
  dir.create(dir, showWarnings = FALSE)
  d8 <- raw(8)
  f32 <- st_entry("a", "F32", 2, c(0, 8))
  corpus <- list(
    "empty" = raw(),
    "7 bytes" = as.raw(1:7),
    "huge header length" = c(le64(1e8 + 1), charToRaw("{}")),
    "header past the end" = c(le64(100), charToRaw("{}")),
    "not UTF-8" = c(le64(6), charToRaw('{"'), as.raw(0xff), charToRaw('":1}')),
    "not an object" = st_bytes("[1, 2]"),
    "invalid JSON" = st_bytes('{"a":}'),
    "tensor not an object" = st_bytes('{"a":3}'),
    "unknown dtype" = st_bytes(paste0("{", st_entry("a", "F7", 2, c(0, 8)), "}"), d8),
    "negative dimension" = st_bytes(paste0("{", st_entry("a", "F32", -2, c(0, 8)), "}"), d8),
    "one offset" = st_bytes(paste0("{", st_entry("a", "F32", 2, 8), "}"), d8),
    "no dtype" = st_bytes('{"a":{"shape":[2],"data_offsets":[0,8]}}', d8),
    "metadata not strings" = st_bytes('{"__metadata__":{"k":1}}'),
    "duplicate name" = st_bytes(paste0("{", f32, ",", f32, "}"), d8),
    "first tensor not at 0" = st_bytes(paste0("{", st_entry("a", "U8", 1, c(1, 2)), "}"), raw(2)),
    "gap" = st_bytes(paste0("{", f32, ",", st_entry("b", "U8", 1, c(9, 10)), "}"), raw(10)),
    "overlap" = st_bytes(paste0("{", f32, ",", st_entry("b", "U8", 4, c(4, 8)), "}"), d8),
    "size mismatch" = st_bytes(paste0("{", st_entry("a", "F32", 3, c(0, 8)), "}"), d8),
    "size overflow" = st_bytes(paste0("{", st_entry("a", "F64", "4611686018427387904",
                                                     c(0, 8)), "}"), d8),
    "trailing bytes" = st_bytes(paste0("{", f32, "}"), c(d8, as.raw(1))),
    "truncated data" = st_bytes(paste0("{", f32, "}"), raw(4)),
    "BOOL byte 2" = st_bytes(paste0("{", st_entry("p", "BOOL", 2, c(0, 2)), "}"), as.raw(1:2))
  )
  paths <- character()
  for (k in seq_along(corpus)) {
    paths[[names(corpus)[[k]]]] <- write_raw(corpus[[k]], file.path(dir, sprintf("case%02d", k)))
  }
  for (path in paths) expect_error(pjrt_load_safetensors(path), class = "rlang_error")
  expect_snapshot(
    for (case in names(paths)) {
      message <- tryCatch(pjrt_load_safetensors(paths[[case]]),
                          error = function(e) conditionMessage(e))
      cat(case, ": ", message, "\n", sep = "")
    },
    transform = scrub_tempdir
  )
})

test_that("truncations and random bytes are rejected with errors", {
  skip_under_valgrind("a sweep of every truncation; the safetensors fuzz target covers the reader under ASan")
  set.seed(4)
  good <- st_bytes(paste0("{", st_entry("w", "F32", c(2, 3), c(0, 24)), ",",
                          st_entry("b", "I64", 2, c(24, 40)), "}"), as.raw(1:40))
  path <- write_raw(good)
  expect_identical(shape(pjrt_load_safetensors(path)$w), c(2L, 3L))
  for (n in seq(0, length(good) - 1, by = 3)) {
    expect_error(pjrt_load_safetensors(write_raw(good[seq_len(n)], path)), "Invalid safetensors")
  }
  for (k in 1:50) {
    bytes <- as.raw(sample(0:255, sample(0:300, 1), replace = TRUE))
    expect_error(pjrt_load_safetensors(write_raw(bytes, path)), "Invalid safetensors")
  }
})

test_that("offsets beyond 2^31 are read (sparse file)", {
  big <- 2^31 + 16
  header <- paste0("{", st_entry("big", "U8", format(big, scientific = FALSE), c(0, big)), ",",
                   st_entry("tail", "F64", 2, c(big, big + 16)), "}")
  header <- paste0(header, strrep(" ", (8 - nchar(header) %% 8) %% 8))
  path <- tempfile()
  con <- file(path, "wb")
  writeBin(st_bytes(header), con)
  seek(con, 8 + nchar(header) + big, rw = "write")
  writeBin(c(3.25, -1e300), con)
  close(con)
  out <- pjrt_load_safetensors(path, names = "tail")
  expect_identical(as_array(out$tail), array(c(3.25, -1e300)))
  expect_snapshot(error = TRUE, pjrt_load_safetensors(path, names = "big"))
  unlink(path)
})

test_that("more than 2 GiB round trips (PJRT_BIG_TESTS=1)", {
  skip_if(Sys.getenv("PJRT_BIG_TESTS") == "", "set PJRT_BIG_TESTS=1 for the > 2 GiB round trip")
  n <- 2^28 + 3  # f64: 2 GiB + 24 bytes
  x <- list(small = pjrt_buffer(matrix(1:6, 2), dtype = "i16"),
            big = pjrt_buffer(seq_len(n) / 2, dtype = "f64"))
  path <- tempfile()
  on.exit(unlink(path))
  pjrt_save_safetensors(x, path)
  expect_gt(file.size(path), 2^31)
  y <- pjrt_load_safetensors(path)
  expect_identical(as_array(y$small), as_array(x$small))
  expect_true(identical(as_array(y$big), as_array(x$big)))
})

# ---- argument errors -------------------------------------------------------------------------

test_that("arguments are checked with clear errors", {
  path <- tempfile()
  b <- pjrt_buffer(1:3)
  expect_snapshot(error = TRUE, {
    pjrt_save_safetensors(b, path)
    pjrt_save_safetensors(list(b), path)
    pjrt_save_safetensors(list(a = b, a = b), path)
    pjrt_save_safetensors(list(a = 1:3), path)
    pjrt_save_safetensors(list(`__metadata__` = b), path)
    pjrt_save_safetensors(list(a = b), c(path, path))
    pjrt_save_safetensors(list(a = b), path, metadata = list(k = 1))
    pjrt_save_safetensors(list(a = b), path, metadata = list(k = "1", k = "2"))
    pjrt_save_safetensors(list(a = b), path, allow_c128 = NA)
    pjrt_load_safetensors(123)
  })
  expect_snapshot(error = TRUE, pjrt_load_safetensors(file.path(tempdir(), "absent")),
                  transform = scrub_tempdir)
})
