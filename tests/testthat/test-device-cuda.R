# Buffers on CUDA devices. Where there is no CUDA driver or GPU these tests skip, saying why,
# and the first test checks that "cuda" is then a clear error. PJRT_TEST_REQUIRE_CUDA=1 turns
# the skips, and a lack of memory for the 4 GiB test, into failures (tools/gpu-check.sh).
# With PJRT_CUDA_DRIVER_PATH naming the fake driver built with the core's tests
# (libndbuf_fake_cuda.so: two GPUs, host memory behind fake device addresses,
# NDBUF_FAKE_CUDA_MEMORY_MB each) the whole GPU path runs on any machine. The driver is loaded
# once per R session, so these variables must be set before R starts.

cuda_unavailable <- function() {
  tryCatch({
    devices("cuda")
    NULL
  }, error = function(e) conditionMessage(e))
}

skip_if_no_cuda <- function() {
  reason <- cuda_unavailable()
  if (is.null(reason)) return(invisible(TRUE))
  if (nzchar(Sys.getenv("PJRT_TEST_REQUIRE_CUDA"))) {
    stop("PJRT_TEST_REQUIRE_CUDA is set, but CUDA is not available: ", reason, call. = FALSE)
  }
  skip(paste("CUDA is not available:", reason))
}

using_fake_driver <- function() grepl("fake_cuda", Sys.getenv("PJRT_CUDA_DRIVER_PATH"))

unavailable <- "The cuda platform is not available on this machine"

# Six values of every dtype, including each type's extremes and special values.
dtype_values <- function() {
  list(
    pred = c(TRUE, FALSE, TRUE, TRUE, FALSE, FALSE),
    i8 = c(-128L, 127L, 0L, -1L, 5L, 6L),
    i16 = c(-32768L, 32767L, 0L, -1L, 5L, 6L),
    i32 = c(-.Machine$integer.max, .Machine$integer.max, 0L, -1L, 5L, 6L),
    i64 = bit64::as.integer64(c("-9223372036854775807", "9223372036854775807", "0", "-1", "5", "6")),
    ui8 = c(0L, 255L, 1L, 128L, 5L, 6L),
    ui16 = c(0L, 65535L, 1L, 32768L, 5L, 6L),
    ui32 = bit64::as.integer64(c("0", "4294967295", "1", "2147483648", "5", "6")),
    ui64 = bit64::as.integer64(c("0", "9223372036854775807", "1", "4294967296", "5", "6")),
    f16 = c(-65504, 65504, NaN, Inf, -0, 6e-8),
    bf16 = c(-3.389531e38, 1.5, NaN, -Inf, -0, 1e-30),
    f32 = c(-3.4e38, 1.5, NaN, Inf, -0, 1e-45),
    f64 = c(-.Machine$double.xmax, pi, NaN, -Inf, -0, 5e-324),
    c64 = complex(real = c(1.5, -2, NaN, Inf, 0, 1e-45), imaginary = c(0, 3, 1, -Inf, -0, 2)),
    c128 = complex(real = c(pi, -2, NaN, Inf, 0, 5e-324), imaginary = c(0, 3, 1, -Inf, -0, 2))
  )
}

test_that("without a CUDA driver or GPU, cuda is a clear error and the CPU is unaffected", {
  reason <- cuda_unavailable()
  skip_if(is.null(reason), "a CUDA driver and GPU are present")
  expect_match(reason, unavailable, fixed = TRUE)
  expect_error(pjrt_buffer(1, device = "cuda"), unavailable, fixed = TRUE)
  expect_error(pjrt_buffer(1, device = "cuda:1"), unavailable, fixed = TRUE)
  expect_error(pjrt_scalar(1L, device = "cuda"), unavailable, fixed = TRUE)
  expect_error(pjrt_empty("f32", 2, device = "cuda"), unavailable, fixed = TRUE)
  expect_error(pjrt_buffer(as.raw(1:4), "ui8", "cuda", 4, row_major = TRUE), unavailable,
               fixed = TRUE)
  expect_error(pjrt_device("cuda"), unavailable, fixed = TRUE)
  expect_error(devices("cuda"), unavailable, fixed = TRUE)
  expect_error(platform("cuda:0"), unavailable, fixed = TRUE)
  b <- pjrt_buffer(1:3)
  expect_error(copy_buffer(b, "cuda"), unavailable, fixed = TRUE)
  expect_error(pjrt_buffer(b, device = "cuda"), unavailable, fixed = TRUE)
  # The failure is kept for the session: the same message every time.
  expect_identical(cuda_unavailable(), reason)

  withr::local_envvar(PJRT_PLATFORM = "cuda")
  expect_identical(platform(), "cuda")
  expect_error(pjrt_buffer(1), unavailable, fixed = TRUE)
  expect_error(pjrt_device(), unavailable, fixed = TRUE)
  # An explicit CPU device still works.
  expect_identical(as_array(pjrt_buffer(1:3, device = "cpu")), array(1:3))
  expect_identical(platform(pjrt_buffer(1, device = "cpu")), "cpu")
})

test_that("CUDA devices are listed, cached and compared", {
  skip_if_no_cuda()
  gpus <- devices("cuda")
  expect_gte(length(gpus), 1)
  if (using_fake_driver()) expect_length(gpus, 2)
  gpu <- pjrt_device("cuda")
  expect_s3_class(gpu, "PJRTDevice")
  expect_identical(gpu, gpus[[1]])
  expect_identical(pjrt_device("cuda:0"), gpu)
  expect_true(gpu == pjrt_device("cuda:0"))
  expect_true(gpu != pjrt_device("cpu"))
  expect_identical(platform(gpu), "cuda")
  expect_identical(platform("cuda:0"), "cuda")
  expect_identical(as.character(gpu), "CudaDevice(id=0)")
  expect_identical(format(gpus[[length(gpus)]]), sprintf("<CudaDevice(id=%d)>", length(gpus) - 1))
  n <- length(gpus)
  expect_error(
    pjrt_device(paste0("cuda:", n)),
    sprintf("Device index %d out of range for platform cuda (%d device", n, n),
    fixed = TRUE
  )
})

test_that("every dtype round-trips through GPU memory", {
  skip_if_no_cuda()
  for (dtype in names(dtype_values())) {
    data <- dtype_values()[[dtype]]
    cpu <- pjrt_buffer(data, dtype = dtype, shape = c(2, 3))
    gpu <- pjrt_buffer(data, dtype = dtype, shape = c(2, 3), device = "cuda")
    expect_identical(platform(gpu), "cuda", label = dtype)
    expect_identical(device(gpu), pjrt_device("cuda:0"))
    expect_identical(elt_type(gpu), elt_type(cpu))
    expect_identical(shape(gpu), c(2L, 3L))
    expect_identical(as_array(gpu), as_array(cpu), label = dtype)
    expect_identical(as_raw(gpu, row_major = TRUE), as_raw(cpu, row_major = TRUE), label = dtype)
    expect_identical(as_raw(gpu, row_major = FALSE), as_raw(cpu, row_major = FALSE))
    # Raw bytes straight to the GPU, in both orders.
    for (row_major in c(TRUE, FALSE)) {
      raw <- pjrt_buffer(as_raw(cpu, row_major = row_major), dtype = dtype, shape = c(2, 3),
                         row_major = row_major, device = "cuda")
      expect_identical(as_raw(raw, row_major = FALSE), as_raw(cpu, row_major = FALSE),
                       label = paste(dtype, row_major))
    }
    # And back to the CPU.
    back <- copy_buffer(gpu, "cpu")
    expect_identical(platform(back), "cpu")
    expect_identical(as_array(back), as_array(cpu))
    # A scalar, and an empty buffer.
    scalar <- pjrt_scalar(data[1], dtype = dtype, device = "cuda")
    expect_identical(as_array(scalar), as_array(pjrt_scalar(data[1], dtype = dtype)))
    empty <- pjrt_empty(dtype, c(0, 3), device = "cuda")
    expect_identical(shape(empty), c(0L, 3L))
    expect_length(as_array(empty), 0)
  }
})

test_that("GPU buffers print with a CUDA footer", {
  skip_if_no_cuda()
  gpu <- pjrt_buffer(matrix(1:6, 2), dtype = "i32", device = "cuda")
  lines <- capture.output(print(gpu))
  expect_identical(lines[[1]], "PJRTBuffer ")
  expect_identical(lines[[length(lines)]], "[ CUDAi32{2x3} ] ")
  expect_identical(capture.output(print(gpu)), capture.output(print(pjrt_buffer(matrix(1:6, 2))))
                   |> sub(pattern = "CPU", replacement = "CUDA", fixed = TRUE))
  scalar <- capture.output(print(pjrt_scalar(2.5, device = "cuda")))
  expect_identical(scalar[[length(scalar)]], "[ CUDAf32{} ] ")
})

test_that("conversion rules and NA handling are the same as on the CPU", {
  skip_if_no_cuda()
  expect_error(
    pjrt_buffer(c(1, 256), dtype = "ui8", device = "cuda"),
    "Value 256 at position 2 cannot be represented as ui8 (range 0 to 255)",
    fixed = TRUE
  )
  expect_warning(
    b <- pjrt_buffer(c(1L, NA, 3L), device = "cuda"),
    "1 missing value was stored as -2147483648 (INT_MIN)",
    fixed = TRUE
  )
  expect_warning(values <- as_array(b), "INT_MIN")
  expect_identical(values, array(c(1L, NA, 3L)))
  expect_error(pjrt_buffer(c(1L, NA), device = "cuda", check = "error"),
               "Value NA at position 2 cannot be represented as i32", fixed = TRUE)
  expect_identical(as_array(pjrt_buffer(c(1, NA), dtype = "f32", device = "cuda")), array(c(1, NaN)))
  # Recycling a length-1 vector and a supplied shape.
  expect_identical(as_array(pjrt_buffer(7, dtype = "f64", shape = c(2, 2), device = "cuda")),
                   array(7, c(2, 2)))
})

test_that("data uploaded from an R vector does not follow later changes to the vector", {
  skip_if_no_cuda()
  x <- c(1, 2, 3)
  gpu <- pjrt_buffer(x, dtype = "f64", device = "cuda")
  x[1] <- 9
  expect_identical(as_array(gpu), array(c(1, 2, 3)))
})

test_that("copy_buffer() moves buffers between any two devices", {
  skip_if_no_cuda()
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "2")
  values <- matrix(c(1.5, -2, 3.25, 4, 5, 6), 2)
  start <- pjrt_buffer(values, dtype = "f64", device = "cpu:1")
  gpu <- copy_buffer(start, "cuda")
  expect_identical(device(gpu), pjrt_device("cuda:0"))
  expect_identical(copy_buffer(gpu, "cuda:0"), gpu)
  expect_identical(copy_buffer(gpu, pjrt_device("cuda")), gpu)
  expect_identical(pjrt_buffer(gpu), gpu)
  expect_identical(as_array(gpu), values)
  if (length(devices("cuda")) > 1) {
    other <- copy_buffer(gpu, "cuda:1")
    expect_identical(device(other), pjrt_device("cuda:1"))
    expect_identical(as_array(other), values)
    gpu <- copy_buffer(other, "cuda:0")
    expect_identical(as_array(gpu), values)
  }
  home <- copy_buffer(gpu, "cpu:1")
  expect_identical(device(home), pjrt_device("cpu:1"))
  expect_identical(as_array(home), values)
  via_buffer <- pjrt_buffer(home, device = "cuda")
  expect_identical(platform(via_buffer), "cuda")
  expect_identical(as_raw(via_buffer, row_major = TRUE), as_raw(home, row_major = TRUE))
})

test_that("PJRT_PLATFORM=cuda makes the first GPU the default device", {
  skip_if_no_cuda()
  withr::local_envvar(PJRT_PLATFORM = "cuda")
  expect_identical(platform(), "cuda")
  expect_identical(pjrt_device(), pjrt_device("cuda:0"))
  b <- pjrt_buffer(1:3)
  expect_identical(device(b), pjrt_device("cuda:0"))
  expect_identical(devices(), devices("cuda"))
  expect_identical(platform(pjrt_empty("f32", 2)), "cuda")
  expect_identical(platform(pjrt_buffer(1:3, device = "cpu")), "cpu")
})

test_that("GPU out of memory runs the garbage collector once and retries, then errors clearly", {
  skip_if_no_cuda()
  gc()
  memory <- pjrt:::device_memory("cuda")
  # Columns of 1024 f32 values (4 KiB) taking 60% of the free memory: two do not fit at once.
  columns <- floor(memory[["free"]] * 0.6 / 4096)
  x <- pjrt_empty("f32", c(1024, columns), device = "cuda")
  rm(x)
  # Only a garbage collection frees x's memory for this one.
  y <- pjrt_empty("f32", c(1024, columns), device = "cuda")
  expect_identical(shape(y), c(1024L, as.integer(columns)))
  rm(y)
  gc()

  too_many <- ceiling(memory[["total"]] * 2 / 4096)
  expect_error(
    pjrt_empty("f32", c(1024, too_many), device = "cuda"),
    "on CudaDevice\\(id=0\\): the GPU is out of memory .*even after unused buffers were released"
  )
  expect_identical(as_array(pjrt_buffer(1:2, device = "cuda")), array(1:2))
})

test_that("a GPU buffer larger than 4 GiB round-trips", {
  skip_if_no_cuda()
  skip_if(using_fake_driver(), "the fake driver keeps its memory on the host")
  n <- 3 * 1431655767  # more than 2^32 bytes
  gc()  # buffers of earlier tests hold GPU memory until they are collected
  short <- pjrt:::device_memory("cuda")[["free"]] < n + 2^30 ||
    pjrt:::device_memory("cpu")[["free"]] < 3 * n
  if (short && nzchar(Sys.getenv("PJRT_TEST_REQUIRE_CUDA"))) {
    stop("PJRT_TEST_REQUIRE_CUDA is set, but memory is short for the 4 GiB test.", call. = FALSE)
  }
  skip_if(short, "needs 5 GiB of free GPU memory and 12 GiB of free host memory")
  data <- rep_len(as.raw(0:250), n)
  gpu <- pjrt_buffer(data, dtype = "ui8", shape = c(3, n / 3), row_major = FALSE, device = "cuda")
  expect_identical(shape(gpu), c(3L, 1431655767L))
  if (length(devices("cuda")) > 1) {
    # There and back; the GPU out-of-memory retry collects each dropped copy if needed.
    other <- copy_buffer(gpu, "cuda:1")
    rm(gpu)
    gpu <- copy_buffer(other, "cuda:0")
    rm(other)
  }
  back <- as_raw(gpu, row_major = FALSE)
  expect_identical(length(back), n)
  expect_identical(back[(n - 9):n], data[(n - 9):n])
  expect_identical(back, data)
})
