# Devices: listing, resolving and placing buffers.
cuda_available <- function() {
  tryCatch({
    devices("cuda")
    TRUE
  }, error = function(e) FALSE)
}

test_that("device() of a buffer prints as <CpuDevice(id=0)>", {
  d <- device(pjrt_buffer(1))
  expect_s3_class(d, "PJRTDevice")
  expect_output(print(d), "^<CpuDevice\\(id=0\\)>$")
  expect_identical(format(d), "<CpuDevice(id=0)>")
  expect_identical(as.character(d), "CpuDevice(id=0)")
  expect_snapshot(device(pjrt_buffer(1)))
  capture.output(shown <- withVisible(print(d)))
  expect_false(shown$visible)
  expect_identical(shown$value, d)
})

test_that("platform() works for buffers and devices", {
  b <- pjrt_buffer(1:3)
  expect_identical(platform(b), "cpu")
  expect_identical(platform(device(b)), "cpu")
  expect_identical(platform(pjrt_device("cpu:0")), "cpu")
})

test_that("the same device is always the same object", {
  a <- device(pjrt_buffer(1))
  b <- device(pjrt_buffer(2L))
  expect_identical(a, b)
  expect_identical(pjrt_device(), a)
  expect_identical(pjrt_device("cpu"), a)
  expect_identical(pjrt_device("cpu:0"), a)
  expect_identical(pjrt_device(a), a)
  expect_identical(device(a), a)
  expect_identical(devices()[[1]], a)
  expect_true(a == b)
  expect_false(a != b)
})

test_that("devices compare by platform and index", {
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "2")
  d0 <- pjrt_device("cpu:0")
  d1 <- pjrt_device("cpu:1")
  expect_false(d0 == d1)
  expect_true(d0 != d1)
  expect_true(d1 == pjrt_device("cpu:1"))
  expect_false(d0 == "cpu:0") # a string is not a device
  expect_true(d0 != "cpu:0")
  expect_false("cpu:0" == d0)
  # A device read back from a file is another R object, equal by its platform and index.
  restored <- unserialize(serialize(d1, NULL))
  expect_false(identical(restored, d1))
  expect_true(restored == d1)
  expect_false(restored != d1)
  expect_true(restored != d0)
  expect_snapshot(d0 < d1, error = TRUE)
})

test_that("a buffer's device is the interned device, also from another device's buffer", {
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "2")
  b1 <- pjrt_buffer(1:3, device = "cpu:1")
  expect_identical(device(b1), pjrt_device("cpu:1"))
  expect_identical(copy_buffer(b1, pjrt_device("cpu:1")), b1)
  moved <- copy_buffer(b1, pjrt_device("cpu:0"))
  expect_false(identical(moved, b1))
  expect_identical(device(moved), pjrt_device("cpu:0"))
  expect_identical(as.vector(as_array(moved)), 1:3)
})

test_that("PJRT_CPU_DEVICE_COUNT sets the number of CPU devices", {
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "3")
  all <- devices("cpu")
  expect_length(all, 3)
  expect_identical(vapply(all, as.character, ""),
                   c("CpuDevice(id=0)", "CpuDevice(id=1)", "CpuDevice(id=2)"))
  expect_identical(all[[2]], pjrt_device("cpu:1"))
  expect_identical(devices(), all)
  b <- pjrt_buffer(c(1, 2), device = "cpu:2")
  expect_identical(device(b), all[[3]])
  expect_identical(format(device(b)), "<CpuDevice(id=2)>")
  expect_identical(as_array(b), array(c(1, 2)))
  expect_identical(device(pjrt_empty("i8", 2, device = all[[2]])), all[[2]])
  expect_identical(device(pjrt_scalar(1L, device = "cpu:1")), all[[2]])
  expect_identical(
    device(pjrt_buffer(as.raw(1), dtype = "ui8", shape = 1, row_major = TRUE, device = "cpu:1")),
    all[[2]]
  )
  expect_error(pjrt_device("cpu:3"),
               "Device index 3 out of range for platform cpu (3 devices)", fixed = TRUE)
})

test_that("cpu:1 exists only with PJRT_CPU_DEVICE_COUNT", {
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = NA)
  expect_length(devices("cpu"), 1)
  expect_error(pjrt_buffer(1, device = "cpu:1"),
               "Device index 1 out of range for platform cpu (1 device)", fixed = TRUE)
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "1")
  expect_error(pjrt_buffer(1, device = "cpu:3"),
               "Device index 3 out of range for platform cpu (1 device)", fixed = TRUE)
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "2")
  expect_identical(platform(pjrt_buffer(1, device = "cpu:1")), "cpu")
})

test_that("a bad PJRT_CPU_DEVICE_COUNT is a clear error", {
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "zero")
  expect_snapshot(pjrt_buffer(1), error = TRUE)
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "0")
  expect_error(devices(), "PJRT_CPU_DEVICE_COUNT must be a whole number from 1 to 1024, not \"0\"",
               fixed = TRUE)
})

test_that("device arguments: NULL, a device, a platform, platform:index", {
  d <- pjrt_device("cpu:0")
  for (device in list(NULL, d, "cpu", "cpu:0")) {
    b <- pjrt_buffer(1:2, device = device)
    expect_identical(device(b), d)
  }
})

test_that("unknown platforms are errors listing the valid ones", {
  expect_error(pjrt_buffer(1, device = "tpu"),
               "Unknown platform \"tpu\"; valid platforms are cpu, cuda.", fixed = TRUE)
  expect_error(pjrt_device("gpu:0"), "Unknown platform \"gpu\"", fixed = TRUE)
  expect_error(devices("metal"), "Unknown platform \"metal\"", fixed = TRUE)
})

test_that("cuda errors clearly where there is no CUDA driver or GPU", {
  skip_if(cuda_available(), "CUDA is available on this machine")
  msg <- "The cuda platform is not available on this machine: no CUDA driver was found"
  expect_error(pjrt_buffer(1, device = "cuda"), msg, fixed = TRUE)
  expect_error(pjrt_buffer(1, device = "cuda:0"), msg, fixed = TRUE)
  expect_error(pjrt_device("cuda"), msg, fixed = TRUE)
  expect_error(devices("cuda"), msg, fixed = TRUE)
  expect_error(pjrt_empty("f32", 2, device = "cuda"), msg, fixed = TRUE)
  expect_error(copy_buffer(pjrt_buffer(1), "cuda"), msg, fixed = TRUE)
  # and everything else still works
  expect_identical(as_array(pjrt_buffer(1, device = "cpu")), array(1))
})

test_that("PJRT_PLATFORM names the default platform", {
  withr::local_envvar(PJRT_PLATFORM = "cpu")
  expect_identical(device(pjrt_buffer(1)), pjrt_device("cpu:0"))
  expect_identical(pjrt_device(), pjrt_device("cpu:0"))
  withr::local_envvar(PJRT_PLATFORM = "")
  expect_identical(pjrt_device(), pjrt_device("cpu:0"))
  withr::local_envvar(PJRT_PLATFORM = "tpu")
  expect_snapshot(pjrt_buffer(1), error = TRUE)
  expect_error(devices(), "PJRT_PLATFORM names an unknown platform \"tpu\"", fixed = TRUE)
  expect_error(pjrt_device(), "PJRT_PLATFORM names an unknown platform \"tpu\"", fixed = TRUE)
  # an explicit device does not depend on the default platform
  expect_identical(platform(pjrt_buffer(1, device = "cpu")), "cpu")
})

test_that("PJRT_PLATFORM = cuda without CUDA is a clear error", {
  skip_if(cuda_available(), "CUDA is available on this machine")
  withr::local_envvar(PJRT_PLATFORM = "cuda")
  expect_error(pjrt_buffer(1), "The cuda platform is not available on this machine", fixed = TRUE)
  expect_error(pjrt_device(), "The cuda platform is not available on this machine", fixed = TRUE)
  expect_identical(platform(pjrt_buffer(1, device = "cpu:0")), "cpu")
})

test_that("copy_buffer() returns the same object when already there", {
  b <- pjrt_buffer(c(1.5, 2.5))
  expect_identical(copy_buffer(b, "cpu"), b)
  expect_identical(copy_buffer(b, "cpu:0"), b)
  expect_identical(copy_buffer(b, pjrt_device()), b)
  expect_identical(buffer_address(copy_buffer(b, "cpu")), buffer_address(b))
  # A device read back from serialized bytes is another R object with the same fields.
  restored <- unserialize(serialize(pjrt_device(), NULL))
  expect_identical(copy_buffer(b, restored), b)
  expect_error(copy_buffer(1, pjrt_device()), "must be a PJRTBuffer")
  expect_error(copy_buffer(b, list()), "must be NULL, a PJRTDevice or a string")
})

test_that("copy_buffer() to cpu:1 makes a copy there", {
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "2")
  for (dtype in all_dtypes) {
    data <- if (dtype %in% complex_dtypes) c(1i, 2, 3, 4) else c(1, 0, 1, 1)
    b <- pjrt_buffer(data, dtype = dtype, shape = c(2, 2))
    moved <- copy_buffer(b, "cpu:1")
    expect_identical(device(moved), pjrt_device("cpu:1"))
    expect_equal(moved, b, label = dtype)
    expect_identical(as_raw(moved, row_major = TRUE), as_raw(b, row_major = TRUE))
    expect_false(identical(buffer_address(moved), buffer_address(b)), label = dtype)
    # already there: same object
    expect_identical(copy_buffer(moved, pjrt_device("cpu:1")), moved)
    # and back: another copy
    back <- copy_buffer(moved, "cpu:0")
    expect_identical(device(back), pjrt_device("cpu:0"))
    expect_equal(back, b, label = dtype)
  }
  s <- copy_buffer(pjrt_scalar(3L), "cpu:1")
  expect_identical(shape(s), integer())
  expect_identical(as_array(s), 3L)
  e <- copy_buffer(pjrt_empty("f32", c(0, 4)), "cpu:1")
  expect_identical(shape(e), c(0L, 4L))
})
