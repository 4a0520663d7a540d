# HArray and HDataType (SPEC sections 3 and 5).

doc_array <- function() array(c(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12), c(3, 4))
f32 <- function(arr) HArray$new_from_values(arr, HDataType$Float32)
f64 <- function(arr) HArray$new_from_values(arr, HDataType$Float64)
ALL <- c(NA_integer_, NA_integer_, NA_integer_)  # a whole axis (c(NA, NA, NA) is logical)

# "0x7f..." as a number (addresses have at most 48 bits, so a double holds them exactly).
address_value <- function(address) {
  digits <- match(strsplit(sub("^0x", "", address), "")[[1]], c(0:9, letters[1:6])) - 1
  Reduce(function(acc, d) acc * 16 + d, digits, 0)
}

# ---- the documented example -----------------------------------------------------------------

test_that("the documentation example gives the documented results", {
  harray <- f32(doc_array())
  expect_identical(harray$shape(), c(4L, 3L))
  expect_identical(harray$len(), 12L)
  expect_identical(harray$ndim(), 2L)
  expect_identical(harray$dtype(), HDataType$Float32)
  expect_output(
    harray$print(),
    "^\\[\\[1, 2, 3\\],\n \\[4, 5, 6\\],\n \\[7, 8, 9\\],\n \\[10, 11, 12\\]\\]$"
  )
  expect_output(
    print(harray),
    "HArray\nFloat32\n[[1, 2, 3],\n [4, 5, 6],\n [7, 8, 9],\n [10, 11, 12]]",
    fixed = TRUE
  )
  expect_true(harray$is_standard_layout())
  expect_false(harray$slice(list(c(0L, 2L, 1L), c(1L, 3L, 1L)))$is_standard_layout())
  x <- c(NA_integer_, NA_integer_, NA_integer_)
  expect_true(harray$slice(list(x, x)) == harray)
  gc()  # the slice above was a temporary; until collected it shares the memory
  expect_true(harray$is_unique())
  harray2 <- harray$clone()
  expect_false(harray$is_unique())
  expect_false(harray2$is_unique())
})

test_that("print() returns NULL invisibly and S3 print() returns the HArray", {
  harray <- f32(doc_array())
  capture.output(res <- withVisible(harray$print()))
  expect_false(res$visible)
  expect_null(res$value)
  capture.output(res <- withVisible(print(harray)))
  expect_false(res$visible)
  expect_identical(res$value, harray)
  expect_identical(capture.output(print(harray)),
                   c("HArray", "Float32", capture.output(harray$print())))
})

# ---- creation --------------------------------------------------------------------------------

test_that("the HArray's axes are the R dims reversed, rows being the R columns", {
  arr <- doc_array()
  h <- f64(arr)
  expect_identical(h$shape(), rev(dim(arr)))
  expect_identical(h$slice(list(0L, ALL))$collect(), array(arr[, 1]))
  expect_identical(h$slice(list(3L, ALL))$collect(), array(arr[, 4]))
  expect_identical(h$slice(list(ALL, 2L))$collect(), array(arr[3, ]))
  expect_identical(h$collect(), arr)
  h3 <- f64(array(as.double(1:24), c(2, 3, 4)))
  expect_identical(h3$shape(), c(4L, 3L, 2L))
  expect_identical(h3$slice(list(1L, 2L, 0L))$collect(), 11)  # arr[1, 3, 2]
})

test_that("Float64 and Complex64 share the R vector's memory", {
  arr <- doc_array()
  h <- f64(arr)
  b <- pjrt_buffer(arr, dtype = "f64")  # a zero-copy buffer over the same R vector
  expect_identical(h$mem_adress(), pjrt:::ffi_buffer_address(b))
  z <- array(complex(real = 1:4, imaginary = -1), c(2, 2))
  hz <- HArray$new_from_values(z, HDataType$Complex64)
  expect_identical(hz$mem_adress(), pjrt:::ffi_buffer_address(pjrt_buffer(z, dtype = "c128")))
  expect_identical(hz$collect(), z)
  # Modifying the R vector later copies it; the HArray keeps the old values.
  arr[1] <- 100
  expect_identical(h$collect(), doc_array())
})

test_that("Float32 and Complex32 convert, NA becoming NaN", {
  h <- f32(array(c(0.1, NA, 1 / 3, 2^200)))
  v <- h$collect()
  expect_identical(v[1], 0.100000001490116119384765625)  # 0.1 rounded to f32
  expect_true(is.nan(v[2]))
  expect_identical(v[4], Inf)
  z <- HArray$new_from_values(array(c(0.1 + 1i, NA)), HDataType$Complex32)
  expect_identical(z$dtype(), HDataType$Complex32)
  expect_identical(Re(z$collect())[1], 0.100000001490116119384765625)
  expect_true(is.na(z$collect()[2]))
  expect_false(f32(doc_array())$mem_adress() == f32(doc_array())$mem_adress())
})

test_that("new_from_values() validates its input", {
  expect_snapshot(error = TRUE, HArray$new_from_values(c(1, 2), HDataType$Float32))
  expect_snapshot(error = TRUE, HArray$new_from_values(array(1:3), HDataType$Float32))
  expect_snapshot(error = TRUE, HArray$new_from_values(array(c(1i, 2i)), HDataType$Float64))
  expect_snapshot(error = TRUE, HArray$new_from_values(array(c(1, 2)), HDataType$Complex64))
  expect_snapshot(error = TRUE, HArray$new_from_values(array(TRUE), HDataType$Float64))
  expect_snapshot(error = TRUE, HArray$new_from_values(array(1), "Float64"))
  i64 <- bit64::as.integer64(1:2)
  dim(i64) <- 2L
  expect_error(HArray$new_from_values(i64, HDataType$Float64), "not valid input types")
})

test_that("empty and one-element arrays", {
  h <- f64(array(numeric(), c(0, 3)))
  expect_identical(h$shape(), c(3L, 0L))
  expect_identical(h$len(), 0L)
  expect_true(h$is_standard_layout())
  expect_identical(h$collect(), array(numeric(), c(0, 3)))
  one <- f32(array(5, 1))
  expect_identical(one$shape(), 1L)
  expect_identical(one$collect(), array(5))
})

# ---- slicing ---------------------------------------------------------------------------------

test_that("an index removes the axis; negative indices count from the end", {
  h <- f64(doc_array())  # rows: (1, 2, 3), (4, 5, 6), (7, 8, 9), (10, 11, 12)
  expect_identical(h$slice(list(1L, ALL))$collect(), array(c(4, 5, 6)))
  expect_identical(h$slice(list(-1L, ALL))$collect(), array(c(10, 11, 12)))
  expect_identical(h$slice(list(ALL, -3L))$collect(), array(c(1, 4, 7, 10)))
  s <- h$slice(list(2L, 1L))
  expect_identical(s$shape(), integer(0))
  expect_identical(s$ndim(), 0L)
  expect_identical(s$collect(), 8)
  expect_identical(h$slice(list(-4L, -3L))$collect(), 1)
})

test_that("start/end/step ranges with NA defaults", {
  h <- f64(array(as.double(0:9)))
  expect_identical(h$slice(list(ALL))$collect(), array(as.double(0:9)))
  expect_identical(h$slice(list(c(2L, NA, NA)))$collect(), array(as.double(2:9)))
  expect_identical(h$slice(list(c(NA, 3L, NA)))$collect(), array(c(0, 1, 2)))
  expect_identical(h$slice(list(c(NA, NA, 3L)))$collect(), array(c(0, 3, 6, 9)))
  expect_identical(h$slice(list(c(1L, 8L, 3L)))$collect(), array(c(1, 4, 7)))
  expect_identical(h$slice(list(c(0L, 10L, 100L)))$collect(), array(0))
  expect_identical(h$slice(list(c(3L, 4L, 1L)))$shape(), 1L)
})

test_that("negative start and end count from the back", {
  h <- f64(array(as.double(0:4)))
  expect_identical(h$slice(list(c(-2L, NA, NA)))$collect(), array(c(3, 4)))
  expect_identical(h$slice(list(c(NA, -1L, NA)))$collect(), array(c(0, 1, 2, 3)))
  expect_identical(h$slice(list(c(-5L, -3L, 1L)))$collect(), array(c(0, 1)))
  expect_identical(h$slice(list(c(-5L, 5L, 2L)))$collect(), array(c(0, 2, 4)))
})

test_that("negative steps walk [start, end) from end - 1 downward, as ndarray", {
  h <- f64(array(as.double(0:3)))
  expect_identical(h$slice(list(c(NA, NA, -2L)))$collect(), array(c(3, 1)))
  expect_identical(h$slice(list(c(NA, NA, -1L)))$collect(), array(c(3, 2, 1, 0)))
  expect_identical(h$slice(list(c(0L, 3L, -2L)))$collect(), array(c(2, 0)))
  expect_identical(h$slice(list(c(1L, NA, -2L)))$collect(), array(c(3, 1)))
  expect_identical(h$slice(list(c(NA, NA, -3L)))$collect(), array(c(3, 0)))
  expect_identical(h$slice(list(c(-3L, -1L, -1L)))$collect(), array(c(2, 1)))
  expect_identical(f64(array(as.double(0:4)))$slice(list(c(NA, NA, -2L)))$collect(),
                   array(c(4, 2, 0)))
  m <- f64(doc_array())
  rev_both <- m$slice(list(c(NA, NA, -1L), c(NA, NA, -1L)))
  expect_false(rev_both$is_standard_layout())
  expect_identical(rev_both$collect(), matrix(12:1, 3, 4) + 0)
})

test_that("start > end gives an empty axis", {
  h <- f64(doc_array())
  e <- h$slice(list(c(3L, 1L, 1L), ALL))
  expect_identical(e$shape(), c(0L, 3L))
  expect_identical(e$len(), 0L)
  expect_true(e$is_standard_layout())
  expect_identical(e$collect(), array(numeric(), c(3, 0)))
  expect_identical(h$slice(list(c(4L, NA, NA), ALL))$shape(), c(0L, 3L))
  expect_identical(h$slice(list(c(2L, 2L, NA), 0L))$shape(), 0L)
  expect_identical(h$slice(list(c(3L, 1L, -1L), 0L))$shape(), 0L)
  expect_identical(h$slice(list(c(-1L, -3L, 1L), 0L))$collect(), array(numeric()))
})

test_that("slices are views that share memory and can be sliced again", {
  h <- f64(array(as.double(0:23), c(6, 4)))  # shape (4, 6): row r holds 6r .. 6r + 5
  a <- h$slice(list(c(1L, 4L, NA), c(NA, NA, 2L)))
  expect_identical(a$collect(), matrix(c(6, 8, 10, 12, 14, 16, 18, 20, 22), 3, 3))
  b <- a$slice(list(c(NA, NA, -1L), c(1L, NA, NA)))
  expect_identical(b$shape(), c(3L, 2L))
  expect_identical(b$collect(), matrix(c(20, 22, 14, 16, 8, 10), 2, 3))
  c0 <- b$slice(list(-1L, 0L))
  expect_identical(c0$collect(), 8)
  d <- b$slice(list(c(NA, NA, -1L), c(NA, NA, -1L)))
  expect_identical(d$collect(), matrix(c(10, 8, 16, 14, 22, 20), 2, 3))
  # Same storage: an element's address is the source's address plus its offset.
  base <- address_value(h$mem_adress())
  expect_identical(address_value(a$mem_adress()) - base, 6 * 8)
  expect_identical(address_value(b$mem_adress()) - base, 20 * 8)
  expect_identical(address_value(c0$mem_adress()) - base, 8 * 8)
  expect_identical(h$slice(list(c(0L, 2L, 1L), c(0L, 3L, 2L)))$mem_adress(), h$mem_adress())
})

test_that("three-dimensional slices", {
  arr <- array(as.double(1:24), c(4, 3, 2))
  h <- f64(arr)  # shape (2, 3, 4); h[i, j, k] = arr[k + 1, j + 1, i + 1]
  s <- h$slice(list(1L, c(NA, NA, 2L), c(1L, 3L, NA)))
  expect_identical(s$shape(), c(2L, 2L))
  expect_identical(s$collect(), arr[2:3, c(1, 3), 2])
  r <- h$slice(list(c(NA, NA, -1L), ALL, ALL))
  expect_identical(r$collect(), arr[, , 2:1])
})

test_that("slice() validates the range with harmonium's messages", {
  h <- f64(doc_array())
  expect_snapshot(error = TRUE, {
    h$slice(c(1, 2))
    h$slice(list(1L))
    h$slice(list(1, 2L))
    h$slice(list(c(1L, 2L), 0L))
    h$slice(list(NULL, 0L))
  })
})

test_that("out-of-bounds input is an error naming axis, value and length", {
  h <- f64(doc_array())  # shape (4, 3)
  expect_snapshot(error = TRUE, {
    h$slice(list(4L, 0L))
    h$slice(list(0L, -4L))
    h$slice(list(c(5L, NA, NA), 0L))
    h$slice(list(0L, c(NA, 4L, NA)))
    h$slice(list(c(-5L, NA, NA), 0L))
    h$slice(list(0L, c(0L, 3L, 0L)))
    h$slice(list(NA_integer_, 0L))
  })
  expect_error(h$slice(list(.Machine$integer.max, 0L)), "Index 2147483647 is out of bounds")
  expect_error(h$slice(list(c(-.Machine$integer.max, NA, NA), 0L)), "Slice start -2147483647")
})

# ---- addresses -------------------------------------------------------------------------------

test_that("mem_adress() is 0x and lowercase hex", {
  h <- f64(doc_array())
  expect_match(h$mem_adress(), "^0x[0-9a-f]+$")
  expect_identical(h$clone()$mem_adress(), h$mem_adress())
  expect_false(h$slice(list(1L, ALL))$mem_adress() == h$mem_adress())
  f <- f32(doc_array())
  expect_identical(address_value(f$slice(list(c(1L, NA, NA), 0L))$mem_adress()) -
                     address_value(f$mem_adress()), 3 * 4)
})

# ---- equality --------------------------------------------------------------------------------

test_that("equality needs the same dtype, shape and elements", {
  a <- f64(doc_array())
  expect_true(a == f64(doc_array()))
  expect_true(a$eq(f64(doc_array())))
  expect_false(a$ne(f64(doc_array())))
  expect_false(a != a)
  b <- doc_array()
  b[12] <- 0
  expect_false(a == f64(b))
  expect_true(a != f64(b))
  expect_false(a == f32(doc_array()))  # same values, Float32 vs Float64
  expect_false(a == f64(array(doc_array(), c(4, 3))))  # same data, another shape
  expect_false(a == f64(array(doc_array(), c(12))))
  expect_false(f64(array(1, c(1, 1))) == f64(array(1)))
  expect_true(f64(array(numeric(), c(0, 2))) == f64(array(numeric(), c(0, 2))))
  expect_false(f64(array(numeric(), c(0, 2))) == f64(array(numeric(), c(2, 0))))
})

test_that("equality follows IEEE rules: NaN is never equal, 0 equals -0", {
  n <- f64(array(c(1, NaN)))
  expect_false(n == n)
  expect_true(n != n)
  expect_false(f64(array(NA_real_)) == f64(array(NA_real_)))
  expect_true(f64(array(c(0, -0))) == f64(array(c(-0, 0))))
  expect_true(f32(array(-0)) == f32(array(0)))
  z <- array(c(1 + 2i, 3 - 4i))
  expect_true(HArray$new_from_values(z, HDataType$Complex64) ==
                HArray$new_from_values(z, HDataType$Complex64))
  expect_false(HArray$new_from_values(z, HDataType$Complex64) ==
                 HArray$new_from_values(Conj(z), HDataType$Complex64))
  expect_false(HArray$new_from_values(z, HDataType$Complex64) ==
                 HArray$new_from_values(z, HDataType$Complex32))
})

test_that("a slice equals a standalone HArray with the same elements", {
  h <- f64(doc_array())
  s <- h$slice(list(c(NA, NA, -2L), c(1L, 3L, NA)))  # rows 3, 1; columns 1, 2
  standalone <- f64(matrix(c(11, 12, 5, 6), 2, 2))
  expect_true(s == standalone)
  expect_true(standalone == s)
  expect_true(h$slice(list(c(NA, NA, -1L), ALL))$slice(
    list(c(NA, NA, -1L), ALL)) == h)
})

test_that("comparing with something else is an error", {
  h <- f64(doc_array())
  expect_snapshot(error = TRUE, {
    h == 1
    1 == h
    h != "a"
    h$eq(doc_array())
    h$ne(pjrt_buffer(doc_array()))
  })
})

# ---- printing --------------------------------------------------------------------------------

test_that("printing in one, two and three dimensions and 0-d", {
  expect_snapshot({
    f64(array(c(1, 2, 3)))$print()
    f32(doc_array())$print()
    f64(array(as.double(1:12), c(3, 2, 2)))$print()
    f64(array(as.double(1:16), c(2, 2, 2, 2)))$print()
    f64(doc_array())$slice(list(1L, 2L))$print()
  })
})

test_that("printing empty arrays: one bracket pair per axis", {
  expect_snapshot({
    f64(array(numeric(), 0))$print()
    f64(array(numeric(), c(0, 3)))$print()
    f64(array(numeric(), c(2, 0, 3)))$print()
    f64(doc_array())$slice(list(c(2L, 1L, NA), 0L))$print()
  })
})

test_that("printing complex values and special values", {
  expect_snapshot({
    # (snapshot code is deparsed, and `3 - 4i` would come back as `3 - 0+4i`)
    HArray$new_from_values(array(complex(real = c(1, 3, -0.5), imaginary = c(2, -4, 0))),
                           HDataType$Complex64)$print()
    HArray$new_from_values(array(complex(real = 0.1, imaginary = 1 / 3)),
                           HDataType$Complex32)$print()
    f64(array(c(NaN, Inf, -Inf, -0, 0, NA)))$print()
    f32(array(c(NaN, Inf, -Inf, -0)))$print()
  })
})

test_that("huge numbers print in all their digits", {
  skip_under_valgrind("R parses 1e300 to another double under valgrind (no 80-bit long double)")
  expect_output(f64(array(1e300))$print(), paste0("[1", strrep("0", 300), "]"), fixed = TRUE)
})

test_that("numbers are shortest round-trip digits of their own type, never exponents", {
  expect_output(f32(array(1 / 3))$print(), "[0.33333334]", fixed = TRUE)
  expect_output(f64(array(1 / 3))$print(), "[0.3333333333333333]", fixed = TRUE)
  expect_output(f32(array(0.1))$print(), "[0.1]", fixed = TRUE)
  expect_output(f64(array(0.1))$print(), "[0.1]", fixed = TRUE)
  expect_output(f64(array(1e10))$print(), "[10000000000]", fixed = TRUE)
  expect_output(f64(array(1e-7))$print(), "[0.0000001]", fixed = TRUE)
  expect_output(f32(array(2097152.25))$print(), "[2097152.3]", fixed = TRUE)
  expect_snapshot({
    f32(array(c(0.1, 1 / 3, 2 / 3, 1e-7, 1e10, 123.456, 3.4028234663852886e38)))$print()
    f64(array(c(0.1, 1 / 3, 2 / 3, 1e-7, 1e10, 123.456, 0.1 + 0.2)))$print()
  })
})

test_that("arrays of 500 elements or more are elided", {
  expect_output(f64(array(as.double(0:498)))$print(), "497, 498]", fixed = TRUE)
  expect_snapshot({
    f64(array(as.double(0:499)))$print()
    f64(array(as.double(0:899), c(30, 30)))$print()
    f64(array(as.double(0:999), c(10, 10, 10)))$print()
  })
})

test_that("printing a large array costs what is printed", {
  skip_under_valgrind("a timing bound")
  h <- f64(array(0.5, c(1000, 1000, 10)))
  elapsed <- system.time(out <- capture.output(h$print()))[["elapsed"]]
  expect_lt(elapsed, 1)
  expect_lt(sum(nchar(out)), 4000)
})

# ---- collect ---------------------------------------------------------------------------------

test_that("collect() materialises strided views compactly", {
  h <- f64(doc_array())
  s <- h$slice(list(c(NA, NA, 2L), c(NA, NA, -1L)))  # rows 0, 2 reversed
  out <- s$collect()
  expect_identical(dim(out), c(3L, 2L))
  expect_identical(out, matrix(c(3, 2, 1, 9, 8, 7), 3, 2))
  f <- f32(doc_array())$slice(list(c(NA, NA, 2L), c(NA, NA, -1L)))
  expect_identical(f$collect(), matrix(c(3, 2, 1, 9, 8, 7), 3, 2))
  expect_type(f$collect(), "double")
  z <- HArray$new_from_values(array(complex(real = 1:4, imaginary = 4:1)), HDataType$Complex32)
  expect_identical(z$slice(list(c(NA, NA, -2L)))$collect(), array(complex(real = c(4, 2),
                                                                        imaginary = c(1, 3))))
})

test_that("collect() of a 0-d HArray is a plain length-1 vector", {
  s <- f64(doc_array())$slice(list(3L, 2L))
  expect_identical(s$collect(), 12)
  expect_null(dim(s$collect()))
  z <- HArray$new_from_values(array(c(1 + 1i, 2 - 2i)), HDataType$Complex64)$slice(list(1L))
  expect_identical(z$collect(), 2 - 2i)
})

test_that("collect() returns a fresh vector", {
  arr <- doc_array()
  h <- f64(arr)
  out <- h$collect()
  out[1] <- 42
  expect_identical(h$collect(), arr)
})

# ---- sharing, clone, invalidate --------------------------------------------------------------

test_that("is_unique() counts live clones and slices", {
  h <- f64(doc_array())
  expect_true(h$is_unique())
  c1 <- h$clone()
  expect_false(h$is_unique())
  expect_false(c1$is_unique())
  rm(c1)
  gc()
  expect_true(h$is_unique())
  s <- h$slice(list(1L, ALL))
  expect_false(h$is_unique())
  expect_false(s$is_unique())
  ss <- s$slice(list(0L))
  rm(s)
  gc()
  expect_false(h$is_unique())  # the slice of the slice is still alive
  rm(ss)
  gc()
  expect_true(h$is_unique())
  # Separate HArrays over the same buffer share memory too; buffers are not HArrays.
  b <- pjrt_buffer(doc_array(), dtype = "f64")
  x <- HArray$new_from_buffer(b)
  expect_true(x$is_unique())
  y <- HArray$new_from_buffer(b)
  expect_false(x$is_unique())
  rm(y)
  gc()
  expect_true(x$is_unique())
  b2 <- pjrt_buffer(x)
  expect_true(x$is_unique())
})

test_that("invalidate() releases the share and later calls error", {
  h <- f64(doc_array())
  c1 <- h$clone()
  expect_false(h$is_unique())
  expect_null(c1$invalidate())
  expect_true(h$is_unique())
  expect_snapshot(error = TRUE, c1$len())
  expect_error(c1$print(), "This external pointer is already consumed or deleted")
  expect_error(c1$invalidate(), "This external pointer is already consumed or deleted")
  expect_error(c1 == h, "This external pointer is already consumed or deleted")
  expect_error(h == c1, "This external pointer is already consumed or deleted")
  expect_error(pjrt_buffer(c1), "This external pointer is already consumed or deleted")
  gc()  # the finalizer of an invalidated HArray has nothing left to free
  expect_identical(h$collect(), doc_array())
  # The memory lives on in the others.
  s <- h$slice(list(0L, ALL))
  h$invalidate()
  gc()
  expect_identical(s$collect(), array(c(1, 2, 3)))
  expect_true(s$is_unique())
})

test_that("assignment into an HArray or HDataType is an error", {
  h <- f64(doc_array())
  expect_snapshot(error = TRUE, {
    h$x <- 1
    h[["len"]] <- function() 1
  })
  expect_identical(h$len(), 12L)
  dt <- HDataType$Float32
  expect_error(dt$x <- 1, "Cannot assign")
  expect_error(assign("len", function() 1, envir = HArray), "locked")
  expect_error(assign("Float32", 1, envir = HDataType), "locked")
  expect_error(assign("extra", 1, envir = HArray), "locked")
})

test_that("unknown methods are errors; [[ works like $", {
  h <- f64(doc_array())
  expect_error(h$no_such_method(), "HArray has no method")
  expect_identical(h[["shape"]](), c(4L, 3L))
  expect_true("slice" %in% utils::.DollarNames(h, ""))
})

# ---- HDataType -------------------------------------------------------------------------------

test_that("HDataType values print as their names and compare", {
  expect_output(print(HDataType$Float32), "^Float32$")
  expect_output(HDataType$Complex64$print(), "^Complex64$")
  expect_snapshot({
    HDataType$Float32
    HDataType$Float64
    HDataType$Complex32
    HDataType$Complex64
  })
  expect_true(HDataType$Float32 == HDataType$Float32)
  expect_false(HDataType$Float32 == HDataType$Float64)
  expect_true(HDataType$Float32 != HDataType$Complex32)
  expect_true(HDataType$Complex32$eq(HDataType$Complex32))
  expect_true(HDataType$Complex32$ne(HDataType$Complex64))
  expect_identical(f64(doc_array())$dtype(), HDataType$Float64)
  expect_identical(HArray$new_from_values(array(1i), HDataType$Complex32)$dtype(),
                   HDataType$Complex32)
  expect_error(HDataType$Float32 == "Float32", "Expected HDataType, got character")
  expect_setequal(ls(HDataType),
                  c("Complex32", "Complex64", "Float32", "Float64", "eq", "ne", "print"))
})

# ---- interop with buffers (SPEC 5) -----------------------------------------------------------

test_that("pjrt_buffer(harray) shares the memory of a dense HArray", {
  arr <- doc_array()
  h <- f64(arr)
  b <- pjrt_buffer(h)
  expect_s3_class(b, "PJRTBuffer")
  expect_identical(shape(b), dim(arr))
  expect_identical(pjrt:::ffi_buffer_address(b), h$mem_adress())
  expect_identical(as_array(b), arr)
  f <- f32(arr)
  bf <- pjrt_buffer(f)
  expect_identical(as.character(elt_type(bf)), "f32")
  expect_identical(pjrt:::ffi_buffer_address(bf), f$mem_adress())
  # A contiguous view (whole R columns) is shared at its offset.
  rows <- h$slice(list(c(1L, 3L, NA), ALL))
  expect_true(rows$is_standard_layout())
  br <- pjrt_buffer(rows)
  expect_identical(pjrt:::ffi_buffer_address(br), rows$mem_adress())
  expect_identical(as_array(br), arr[, 2:3])
})

test_that("HArray$new_from_buffer(buffer) shares the buffer's memory", {
  b <- pjrt_buffer(doc_array(), dtype = "f32")
  h <- HArray$new_from_buffer(b)
  expect_identical(h$shape(), c(4L, 3L))
  expect_identical(h$mem_adress(), pjrt:::ffi_buffer_address(b))
  expect_identical(h$dtype(), HDataType$Float32)
  expect_identical(h$collect(), doc_array())
  bz <- pjrt_buffer(array(c(1i, 2, 3)), dtype = "c64")
  expect_identical(HArray$new_from_buffer(bz)$dtype(), HDataType$Complex32)
  expect_identical(HArray$new_from_buffer(pjrt_buffer(1i, dtype = "c128"))$dtype(),
                   HDataType$Complex64)
})

test_that("round trips between the two APIs never copy dense data", {
  arr <- array(rnorm(24), c(2, 3, 4))
  h <- f64(arr)
  b <- pjrt_buffer(h)
  h2 <- HArray$new_from_buffer(b)
  b2 <- pjrt_buffer(h2)
  addresses <- c(h$mem_adress(), pjrt:::ffi_buffer_address(b), h2$mem_adress(),
                 pjrt:::ffi_buffer_address(b2))
  expect_length(unique(addresses), 1)
  expect_true(h2 == h)
  expect_identical(as_array(b2), arr)
  expect_identical(shape(b2), dim(arr))
})

test_that("a strided view becomes a buffer by one copy", {
  h <- f64(doc_array())
  s <- h$slice(list(c(NA, NA, -1L), c(0L, 2L, NA)))
  b <- pjrt_buffer(s)
  expect_false(pjrt:::ffi_buffer_address(b) == s$mem_adress())
  expect_identical(shape(b), c(2L, 4L))
  expect_identical(as_array(b), s$collect())
  expect_identical(as_array(b), doc_array()[1:2, 4:1])
  back <- HArray$new_from_buffer(b)
  expect_true(back == s)
  expect_true(back$is_standard_layout())
})

test_that("pjrt_buffer(harray) checks its other arguments", {
  h <- f64(doc_array())
  expect_snapshot(error = TRUE, {
    pjrt_buffer(h, dtype = "f32")
    pjrt_buffer(h, shape = c(4, 3))
    pjrt_buffer(h, foo = 1)
  })
  expect_identical(shape(pjrt_buffer(h, dtype = "f64", shape = c(3, 4))), c(3L, 4L))
  expect_identical(shape(pjrt_buffer(h, dtype = HDataType$Float64)), c(3L, 4L))
  expect_identical(pjrt:::ffi_buffer_address(pjrt_buffer(h, device = "cpu")), h$mem_adress())
})

test_that("new_from_buffer() accepts float and complex buffers only", {
  expect_snapshot(error = TRUE, {
    HArray$new_from_buffer(pjrt_buffer(1:3))
    HArray$new_from_buffer(doc_array())
  })
})
