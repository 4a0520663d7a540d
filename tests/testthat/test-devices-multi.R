# Several CPU devices (PJRT_CPU_DEVICE_COUNT), device objects and copies between devices.

test_that("PJRT_CPU_DEVICE_COUNT sets how many CPU devices exist", {
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "3")
  cpus <- devices("cpu")
  expect_length(cpus, 3)
  expect_identical(vapply(cpus, as.character, ""),
                   c("CpuDevice(id=0)", "CpuDevice(id=1)", "CpuDevice(id=2)"))
  expect_identical(devices(), cpus)
  expect_identical(pjrt_device("cpu:2"), cpus[[3]])
  expect_error(pjrt_device("cpu:3"), "Device index 3 out of range for platform cpu (3 devices)",
               fixed = TRUE)

  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "1")
  expect_length(devices("cpu"), 1)
  expect_error(pjrt_device("cpu:1"), "Device index 1 out of range for platform cpu (1 device)",
               fixed = TRUE)

  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "zero")
  expect_error(devices("cpu"), "PJRT_CPU_DEVICE_COUNT must be a whole number from 1 to 1024",
               fixed = TRUE)
})

test_that("a device is one value to c(), list(), identical() and unique(), and cannot change", {
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "2")
  cpu0 <- pjrt_device("cpu:0")
  cpu1 <- pjrt_device("cpu:1")
  # Collecting the devices of several buffers, as array libraries do.
  seen <- c(list(), device(pjrt_buffer(1, device = cpu0)), device(pjrt_buffer(2, device = cpu1)),
            device(pjrt_buffer(3)))
  expect_length(seen, 3)
  expect_true(all(vapply(seen, inherits, TRUE, "PJRTDevice")))
  expect_length(unique(seen), 2)
  expect_identical(unique(seen), list(cpu0, cpu1))
  expect_identical(seen[[3]], cpu0)
  expect_false(identical(cpu0, cpu1))
  expect_length(c(cpu0, cpu1), 2)
  expect_length(list(cpu0), 1)
  expect_identical(cpu1$platform, "cpu")
  expect_identical(cpu1$id, 1L)
  expect_error(cpu1$id <- 0L, "locked")
  expect_identical(pjrt_device("cpu:1")$id, 1L)
})

test_that("device objects are cached and compare by platform and index", {
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "2")
  a <- pjrt_device("cpu:1")
  expect_identical(pjrt_device("cpu:1"), a)
  expect_identical(pjrt_device(a), a)
  expect_true(identical(devices("cpu")[[2]], a))
  expect_true(a == pjrt_device("cpu:1"))
  expect_false(a != pjrt_device("cpu:1"))
  expect_true(a != pjrt_device("cpu:0"))
  expect_identical(pjrt_device(), pjrt_device("cpu"))
  expect_identical(pjrt_device("cpu"), pjrt_device("cpu:0"))
  expect_identical(format(a), "<CpuDevice(id=1)>")
  expect_output(print(a), "<CpuDevice(id=1)>", fixed = TRUE)
  expect_error(a < a, "Devices only support `==` and `!=`, not `<`.", fixed = TRUE)
})

test_that("buffers live on the CPU device they were made on", {
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "3")
  b <- pjrt_buffer(c(1, 2, 3), dtype = "f64", device = "cpu:2")
  expect_identical(device(b), pjrt_device("cpu:2"))
  expect_identical(platform(b), "cpu")
  expect_identical(device(pjrt_scalar(1L, device = "cpu:1")), pjrt_device("cpu:1"))
  expect_identical(device(pjrt_empty("ui8", c(2, 2), device = pjrt_device("cpu:1"))),
                   pjrt_device("cpu:1"))
  raw <- pjrt_buffer(as.raw(1:4), dtype = "ui8", shape = 4, row_major = TRUE, device = "cpu:2")
  expect_identical(device(raw), pjrt_device("cpu:2"))
  expect_identical(as_array(raw), array(1:4))
})

test_that("copy_buffer() copies between CPU devices and returns the same object in place", {
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "2")
  values <- matrix(c(1L, -2L, 3L, 4L, 5L, 6L), 2)
  b <- pjrt_buffer(values, dtype = "i16")
  expect_identical(copy_buffer(b, "cpu"), b)
  expect_identical(copy_buffer(b, pjrt_device("cpu:0")), b)
  moved <- copy_buffer(b, "cpu:1")
  expect_identical(device(moved), pjrt_device("cpu:1"))
  expect_identical(as_array(moved), values)
  expect_identical(elt_type(moved), elt_type(b))
  expect_false(identical(pjrt:::ffi_buffer_address(moved), pjrt:::ffi_buffer_address(b)))
  expect_identical(device(pjrt_buffer(b, device = "cpu:1")), pjrt_device("cpu:1"))
  expect_identical(pjrt_buffer(b), b)
  expect_error(copy_buffer(1:3, "cpu"), "must be a PJRTBuffer")
})

test_that("platform() names the default platform, a device's or a spec's", {
  withr::local_envvar(PJRT_PLATFORM = NA, PJRT_CPU_DEVICE_COUNT = "2")
  expect_identical(platform(), "cpu")
  expect_identical(platform("cpu:1"), "cpu")
  expect_identical(platform(pjrt_device("cpu:1")), "cpu")
  withr::local_envvar(PJRT_PLATFORM = "cpu")
  expect_identical(platform(), "cpu")
  withr::local_envvar(PJRT_PLATFORM = "tpu")
  expect_error(platform(), "PJRT_PLATFORM names an unknown platform \"tpu\"; valid platforms are cpu, cuda.", fixed = TRUE)
})

test_that("device arguments are validated", {
  expect_error(devices("tpu"), "Unknown platform \"tpu\"", fixed = TRUE)
  expect_error(devices("cpu:0"), "Unknown platform \"cpu:0\"", fixed = TRUE)
  expect_error(devices(1), "must be NULL, a platform name such as")
  expect_error(pjrt_buffer(1, device = 1), "must be NULL, a PJRTDevice or a string")
  expect_error(pjrt_buffer(1, device = "cpu:x"),
               "Device \"cpu:x\" is not of the form \"<platform>:<index>\" with a non-negative index.",
               fixed = TRUE)
  memory <- pjrt:::device_memory("cpu")
  expect_true(memory[["total"]] > 0 && memory[["free"]] <= memory[["total"]])
})
