# The built-in runtime described as a plugin: pjrt_plugin() and friends, plugins_downloaded(),
# install_pjrt() and inspect_hlo(). `make test-r-fake-cuda` runs this file with the fake CUDA
# driver, where the CUDA branches below take their other side.

cuda_works <- function() {
  tryCatch({
    devices("cuda")
    TRUE
  }, error = function(e) FALSE)
}

test_that("pjrt_plugin() is one interned, locked object per platform", {
  plugin <- pjrt_plugin("cpu")
  expect_s3_class(plugin, "PJRTPlugin")
  expect_identical(pjrt_plugin("cpu"), plugin)
  expect_identical(pjrt_plugin(), plugin)
  expect_identical(as_pjrt_plugin("cpu"), plugin)
  expect_identical(as_pjrt_plugin(plugin), plugin)
  expect_error(plugin$platform <- "cuda", "locked")
  expect_snapshot(print(plugin))
  expect_snapshot(error = TRUE, {
    pjrt_plugin("abc")
    pjrt_plugin(c("cpu", "cuda"))
    as_pjrt_plugin(1)
  })
})

test_that("plugin_attributes() describes the runtime of a platform", {
  withr::local_envvar(PJRT_CPU_DEVICE_COUNT = "3")
  attributes <- plugin_attributes(pjrt_plugin("cpu"))
  expect_identical(attributes, list(
    platform = "cpu", runtime = "ndbuf",
    pjrt_version = as.character(utils::packageVersion("pjrt")),
    program_formats = "mlir", devices = 3L
  ))
  expect_identical(plugin_attributes("cpu"), attributes)
  expect_snapshot(error = TRUE, {
    plugin_attributes(NULL)
    plugin_attributes("tpu")
  })
})

test_that("plugin_client_create() returns the client of the plugin's platform", {
  plugin <- pjrt_plugin("cpu")
  expect_identical(plugin_client_create(plugin, "cpu"), pjrt_client("cpu"))
  expect_identical(plugin_client_create(plugin), pjrt_client("cpu"))
  expect_identical(plugin_client_create("cpu", "cpu", options = list(cpu_device_count = 1L)),
                   pjrt_client("cpu"))
  expect_snapshot(error = TRUE, {
    plugin_client_create(plugin, "cuda")
    plugin_client_create(plugin, "cpu", options = list(cpu_device_count = 7L))
    plugin_client_create(plugin, "cpu", options = 1)
  })
})

test_that("plugins_downloaded() is TRUE exactly for the platforms that work here", {
  expect_true(plugins_downloaded())
  expect_true(plugins_downloaded("cpu"))
  expect_true(plugins_downloaded(character()))
  expect_false(plugins_downloaded("tpu"))
  expect_false(plugins_downloaded(c("cpu", "tpu")))
  expect_identical(plugins_downloaded("cuda"), cuda_works())
  expect_identical(plugins_downloaded(c("cpu", "cuda")), cuda_works())
  withr::local_envvar(PJRT_PLATFORM = "cuda")
  expect_identical(plugins_downloaded(), cuda_works())
  withr::local_envvar(PJRT_PLATFORM = "tpu")
  expect_false(plugins_downloaded())
  expect_true(plugins_downloaded("cpu"))  # named platforms do not read PJRT_PLATFORM
  expect_snapshot(error = TRUE, plugins_downloaded(NA_character_))
})

test_that("install_pjrt() installs nothing and names the ready platforms", {
  expect_message(ready <- install_pjrt(cuda = FALSE), "Nothing to install")
  expect_identical(ready, "cpu")
  expect_message(ready <- install_pjrt(), "Nothing to install")
  expect_identical(ready, if (cuda_works()) c("cpu", "cuda") else "cpu")
  expect_snapshot(install_pjrt(cuda = FALSE))
  expect_snapshot(error = TRUE, install_pjrt(cuda = "yes"))
})

test_that("install_pjrt(cuda = TRUE) says why CUDA does not work, or names it ready", {
  if (cuda_works()) {
    expect_message(ready <- install_pjrt(cuda = TRUE), "Nothing to install")
    expect_identical(ready, c("cpu", "cuda"))
    expect_s3_class(pjrt_plugin("cuda"), "PJRTPlugin")
    expect_identical(platform(pjrt_client("cuda")), "cuda")
    expect_identical(devices(pjrt_client("cuda")), devices("cuda"))
  } else {
    error <- expect_error(install_pjrt(cuda = TRUE), "CUDA does not work here")
    reason <- tryCatch(devices("cuda"), error = conditionMessage)
    expect_match(conditionMessage(error), reason, fixed = TRUE)
    expect_error(pjrt_plugin("cuda"), reason, fixed = TRUE)
    expect_error(pjrt_client("cuda"), reason, fixed = TRUE)
  }
})

test_that("inspect_hlo() checks its arguments, then says there is no HLO", {
  program <- add_program()
  expect_snapshot(error = TRUE, {
    inspect_hlo(program)
    inspect_hlo("func.func @main() -> () { return }")
    inspect_hlo(program, device = "tpu")
  })
  withr::local_envvar(XLA_FLAGS = "--xla_dump_to=/tmp/hlo --xla_dump_hlo_as_text")
  expect_error(inspect_hlo(program, device = "cpu"), "no HLO to inspect")
})
