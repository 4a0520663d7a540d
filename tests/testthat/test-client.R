# Clients, devices(), as_pjrt_device() and the upstream argument names of the device functions.

test_that("pjrt_client() is one interned, locked object per platform", {
  client <- pjrt_client("cpu")
  expect_s3_class(client, "PJRTClient")
  expect_identical(pjrt_client("cpu"), client)
  expect_identical(pjrt_client(), client)  # the default platform is the CPU here
  expect_identical(as_pjrt_client(client), client)
  expect_identical(as_pjrt_client("cpu"), client)
  expect_identical(as_pjrt_client(NULL), client)
  expect_identical(platform(client), "cpu")
  expect_identical(as.character(client), "cpu")
  expect_identical(format(client), "<PJRTClient:cpu>")
  expect_error(client$platform <- "cuda", "locked")
  expect_length(c(list(), client), 1)
  expect_snapshot(print(client))
})

test_that("pjrt_client() follows PJRT_PLATFORM and refuses unknown platforms", {
  withr::local_envvar(PJRT_PLATFORM = "cpu")
  expect_identical(platform(pjrt_client()), "cpu")
  withr::local_envvar(PJRT_PLATFORM = "tpu")
  expect_snapshot(error = TRUE, pjrt_client())
  expect_snapshot(error = TRUE, {
    pjrt_client("tpu")
    pjrt_client(c("cpu", "cuda"))
    as_pjrt_client(1)
  })
})

test_that("cpu_device_count is accepted when it agrees with PJRT_CPU_DEVICE_COUNT", {
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "3")
  expect_identical(pjrt_client("cpu", cpu_device_count = 3L), pjrt_client("cpu"))
  expect_identical(pjrt_client("cpu", cpu_device_count = 3), pjrt_client("cpu"))
  expect_snapshot(error = TRUE, {
    pjrt_client("cpu", cpu_device_count = 2L)
    pjrt_client("cpu", cpu_device_count = 0L)
    pjrt_client("cpu", cpu_device_count = 1.5)
    pjrt_client("cpu", threads = 2L)
    pjrt_client("cpu", 2L)
  })
})

test_that("devices() lists the interned devices of a platform, a client or an executable", {
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "2")
  expected <- list(pjrt_device("cpu:0"), pjrt_device("cpu:1"))
  expect_identical(devices(), expected)
  expect_identical(devices("cpu"), expected)
  expect_identical(devices(NULL), expected)
  expect_identical(devices(pjrt_client("cpu")), expected)
  expect_identical(devices(platform = "cpu"), expected)  # the old argument name
  executable <- pjrt_compile(add_program(), device = "cpu:1")
  expect_identical(devices(executable), list(pjrt_device("cpu:1")))
  expect_snapshot(error = TRUE, {
    devices(1)
    devices(platform = 1)
    devices("cpu", platform = "cpu")
    devices("cpu", "cpu")
  })
})

test_that("as_pjrt_device() resolves devices, specs, clients and NULL", {
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "2")
  cpu1 <- pjrt_device("cpu:1")
  expect_identical(as_pjrt_device(cpu1), cpu1)
  expect_identical(as_pjrt_device("cpu:1"), cpu1)
  expect_identical(as_pjrt_device("cpu"), devices("cpu")[[1]])
  expect_identical(as_pjrt_device(NULL), devices("cpu")[[1]])
  expect_identical(as_pjrt_device(pjrt_client("cpu")), devices("cpu")[[1]])
  expect_identical(as.character(as_pjrt_device("cpu:1")), "CpuDevice(id=1)")
  expect_snapshot(error = TRUE, {
    as_pjrt_device("cpu:2")
    as_pjrt_device(pjrt_buffer(1))
  })
})

test_that("pjrt_device() takes its upstream argument name `device` and its old name `x`", {
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "2")
  cpu1 <- devices("cpu")[[2]]
  expect_identical(pjrt_device(device = "cpu:1"), cpu1)
  expect_identical(pjrt_device(x = "cpu:1"), cpu1)
  expect_identical(pjrt_device("cpu:1"), cpu1)
  expect_identical(pjrt_device(device = cpu1), cpu1)
  expect_snapshot(error = TRUE, {
    pjrt_device("cpu", x = "cpu:1")
    pjrt_device("cpu", "cpu:1")
    pjrt_device(y = "cpu")
  })
})

test_that("copy_buffer() takes its upstream argument name `buffer` and its old name `x`", {
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "2")
  b <- pjrt_buffer(c(1.5, -2), dtype = "f32")
  moved <- copy_buffer(buffer = b, device = "cpu:1")
  expect_identical(device(moved), pjrt_device("cpu:1"))
  expect_identical(as_array(moved), array(c(1.5, -2)))
  old <- copy_buffer(x = b, device = "cpu:1")
  expect_identical(device(old), pjrt_device("cpu:1"))
  expect_identical(as_array(old), array(c(1.5, -2)))
  expect_identical(copy_buffer(buffer = b, device = "cpu:0"), b)  # already there
  expect_snapshot(error = TRUE, {
    copy_buffer(b, "cpu", x = b)
    copy_buffer(x = 1, device = "cpu")
    copy_buffer(buffer = 1, device = "cpu")
    copy_buffer(b, "cpu", extra = 1)
  })
})
