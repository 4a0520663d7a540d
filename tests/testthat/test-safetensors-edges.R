# Safetensors edge cases: where a save lands (links, devices, FIFOs, long names), dtypes pjrt
# cannot hold, odd names, and saving many tensors.

one <- function() list(a = pjrt_buffer(1:4, "ui8"))

test_that("saving follows symbolic links and creates a dangling link's target", {
  skip_on_os("windows")
  dir <- withr::local_tempdir()
  link <- file.path(dir, "link")
  file.symlink("made.safetensors", link)
  pjrt_save_safetensors(one(), link)
  expect_identical(Sys.readlink(link), "made.safetensors")  # the link stays a link
  expect_identical(as_array(pjrt_load_safetensors(file.path(dir, "made.safetensors"))$a),
                   array(1:4))
  file.symlink("b", file.path(dir, "a"))
  file.symlink("a", file.path(dir, "b"))
  expect_snapshot(error = TRUE, transform = function(x) gsub(dir, "<dir>", x, fixed = TRUE),
                  pjrt_save_safetensors(one(), file.path(dir, "a")))
  expect_identical(Sys.readlink(file.path(dir, "a")), "b")
})

test_that("saving writes through devices and FIFOs instead of replacing them", {
  skip_on_os("windows")
  pjrt_save_safetensors(one(), "/dev/null")
  expect_identical(system2("test", c("-c", "/dev/null")), 0L)  # still a character device
  dir <- withr::local_tempdir()
  fifo <- file.path(dir, "pipe")
  expect_identical(system2("mkfifo", fifo), 0L)
  expect_snapshot(error = TRUE, transform = function(x) gsub(dir, "<dir>", x, fixed = TRUE),
                  pjrt_save_safetensors(one(), fifo))
  expect_identical(system2("test", c("-p", fifo)), 0L)  # still a FIFO
})

test_that("a 255-byte file name works and write errors name the target", {
  dir <- withr::local_tempdir()
  long <- file.path(dir, paste0(strrep("n", 243), ".safetensors"))  # 255 bytes
  pjrt_save_safetensors(one(), long)
  expect_identical(as_array(pjrt_load_safetensors(long)$a), array(1:4))
  expect_identical(list.files(dir), basename(long))  # no temporary file left
  missing <- file.path(dir, "no-such-folder", "out.safetensors")
  expect_snapshot(error = TRUE, transform = function(x) gsub(dir, "<dir>", x, fixed = TRUE),
                  pjrt_save_safetensors(one(), missing))
})

test_that("tensors of dtypes pjrt cannot hold are checked only when loaded", {
  header <- paste0("{", st_entry("w", "F8_E8M0", c(2, 2), c(0, 4)), ",",
                   st_entry("s", "F4", 4, c(4, 6)), ",", st_entry("b", "U8", 2, c(6, 8)), "}")
  path <- write_raw(st_bytes(header, as.raw(1:8)))
  expect_identical(as_array(pjrt_load_safetensors(path, names = "b")$b), array(c(7L, 8L)))
  expect_snapshot(error = TRUE, transform = scrub_tempdir, {
    pjrt_load_safetensors(path)
    pjrt_load_safetensors(path, names = c("b", "s"))
  })
})

test_that("a shape of -0 is the dimension 0", {
  path <- write_raw(st_bytes('{"a":{"dtype":"F32","shape":[-0,3],"data_offsets":[0,0]}}'))
  expect_identical(shape(pjrt_load_safetensors(path)$a), c(0L, 3L))
})

test_that("a tensor named \"\" and bytes-encoded names are clear errors both ways", {
  path <- write_raw(st_bytes(paste0("{", st_entry("", "U8", 1, c(0, 1)), ",",
                                    st_entry("b", "U8", 1, c(1, 2)), "}"), as.raw(1:2)))
  expect_identical(as_array(pjrt_load_safetensors(path, names = "b")$b), array(2L))
  bytes_name <- one()
  label <- "caf\xe9"
  Encoding(label) <- "bytes"
  names(bytes_name) <- label
  expect_snapshot(error = TRUE, transform = scrub_tempdir, {
    pjrt_load_safetensors(path)
    pjrt_save_safetensors(list(pjrt_buffer(1, "f32")), tempfile())
    pjrt_save_safetensors(bytes_name, tempfile())
  })
})

test_that("saving many tensors takes time linear in their count", {
  skip_on_cran()
  skip_under_valgrind()
  make <- function(n) {
    out <- rep(list(pjrt_buffer(1L, "i32")), n)
    names(out) <- paste0("t", seq_len(n))
    out
  }
  small <- make(5000)
  large <- make(40000)
  time <- function(x) system.time(pjrt_save_safetensors(x, tempfile()))[["elapsed"]]
  time(small)  # warm-up
  ratio <- time(large) / max(time(small), 0.01)
  # 8 times the tensors; quadratic work would take 64 times as long.
  expect_lt(ratio, 24)
  path <- tempfile()
  pjrt_save_safetensors(large, path)
  expect_identical(names(pjrt_load_safetensors(path)), names(large))
})
