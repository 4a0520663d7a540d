# Memory R can reclaim: loops that replace large buffers hold about what the same loop over R
# vectors holds. Each loop runs in a fresh R process that reports the growth of its resident
# memory (sampled after every iteration) over what it held before the loop; the plain-R loop,
# making results of the same size from the same input, is the baseline.

# Bytes of buffer storage alive now, as the package counts them.
live <- function() pjrt:::ffi_buffer_memory_bytes()

# The peak growth, in MB, of `loop` (an expression assigning `b` from `setup`'s objects) run
# `times` times in a new R process with pjrt attached.
rss_growth_mb <- function(setup, loop, times) {
  code <- sprintf('
    rss <- function() {
      s <- readLines("/proc/self/status")
      as.numeric(gsub("[^0-9]", "", s[startsWith(s, "VmRSS:")])) / 1024
    }
    suppressMessages(library(pjrt))
    %s
    invisible(gc())
    start <- rss()
    peak <- start
    for (i in seq_len(%d)) {
      %s
      peak <- max(peak, rss())
    }
    cat(peak - start)
  ', setup, times, loop)
  rscript <- file.path(R.home("bin"), "Rscript")
  out <- system2(rscript, c("--vanilla", "-e", shQuote(code)), stdout = TRUE, stderr = FALSE,
                 timeout = 300)
  as.numeric(out[length(out)])
}

test_that("a loop of 100 MB buffer creations holds at most twice what plain R holds", {
  skip_under_valgrind("loops over hundreds of megabytes, measuring the process's memory")
  skip_on_os(c("windows", "mac"))  # /proc/self/status
  setup <- "x <- runif(25e6)"  # 200 MB of doubles; 100 MB as f32 or as integers
  plain <- rss_growth_mb(setup, "b <- as.integer(x)", 20)
  ours <- rss_growth_mb(setup, 'b <- pjrt_buffer(x, dtype = "f32")', 20)
  expect_gt(plain, 90)  # the baseline holds at least its own result
  expect_lte(ours, 2 * plain)
})

test_that("a loop of 300 MB program results holds at most twice what plain R holds", {
  skip_under_valgrind("loops over hundreds of megabytes, measuring the process's memory")
  skip_on_os(c("windows", "mac"))
  n <- 75e6  # 300 MB of f32
  setup <- sprintf('
    y <- runif(%1$.0f)
    a <- pjrt_buffer(y, dtype = "f32")
    e <- pjrt_compile(pjrt_program(src = "
      func.func @main(%%a: tensor<%1$.0fxf32>) -> tensor<%1$.0fxf32> {
        %%0 = stablehlo.add %%a, %%a : tensor<%1$.0fxf32>
        return %%0 : tensor<%1$.0fxf32>
      }"))
    z <- as.integer(y)
    rm(y)', n)
  # The baseline: 300 MB integer results of the same length from an R vector.
  plain <- rss_growth_mb(setup, "b <- z + z", 12)
  ours <- rss_growth_mb(setup, "b <- pjrt_execute(e, a)", 12)
  expect_gt(plain, 290)
  expect_lte(ours, 2 * plain)
})

test_that("the storage of collected buffers is released by the collection that finds them", {
  invisible(gc())  # nothing dead left over from earlier tests
  before <- live()
  b <- pjrt_buffer(as.double(1:2^20), dtype = "f32")  # converted: 4 MiB of storage
  expect_identical(live() - before, 4 * 2^20)
  rm(b)
  invisible(gc())
  expect_identical(live(), before)
})

test_that("a collection releases every dropped result, donated ones once", {
  e <- pjrt_compile(pjrt_program(donation_src))
  # Run at once, so that no result also counts the bytes it will have (test-async.R).
  old <- pjrt_async(FALSE)
  on.exit(pjrt_async(old))
  invisible(gc())
  before <- live()
  # 300 calls, each donating a converted (so private) 3-element f64 buffer to its result: 24
  # bytes live per call once the dropped second arguments are collected (the donated input's
  # storage is the result's).
  results <- lapply(seq_len(300), function(i) {
    pjrt_execute(e, pjrt_buffer(1:3, dtype = "f64"), pjrt_buffer(4:6, dtype = "f64"))
  })
  invisible(gc())
  expect_identical(live() - before, 300 * 24)
  expect_identical(as.vector(as_array(results[[300]])), c(4, 10, 18))
  rm(results)
  invisible(gc())
  expect_identical(live(), before)
})

test_that("a buffer stays valid through collections while it is referenced", {
  b <- pjrt_buffer(c(1.5, -2, 3), dtype = "f64")
  for (i in 1:3) invisible(gc())
  expect_identical(as.vector(as_array(b)), c(1.5, -2, 3))
})

test_that("every collection releases dead buffers, beside other finalizers", {
  invisible(gc())
  before <- live()
  # R runs the finalizers a collection made ready in one pass; objects with finalizers made
  # before and after each buffer put ready entries on both sides of the buffer's own.
  for (i in 1:12) {
    older <- new.env()
    reg.finalizer(older, function(e) NULL)
    b <- pjrt_buffer(as.double(1:1000), dtype = "f32")  # converted: 4000 bytes of storage
    newer <- new.env()
    reg.finalizer(newer, function(e) NULL)
    expect_identical(live() - before, 4000)
    rm(older, b, newer)
    invisible(gc())
    expect_identical(live(), before)
  }
})
