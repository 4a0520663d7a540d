# The core's dtype table as the R layer reads it, against the spec's list of element types
# (section 1), its zero-copy pairs (section 2.2) and the HArray types (section 3).

spec_dtypes <- data.frame(
  name = c("pred", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64",
           "f16", "bf16", "f32", "f64", "c64", "c128", "f8e4m3fn", "f8e5m2"),
  r_type = c("logical", "integer", "integer", "integer", "integer64", "integer", "integer",
             "integer64", "integer64", "double", "double", "double", "double", "complex",
             "complex", "double", "double"),
  zero_copy = c(FALSE, FALSE, FALSE, TRUE, TRUE, FALSE, FALSE, FALSE, FALSE,
                FALSE, FALSE, FALSE, TRUE, FALSE, TRUE, FALSE, FALSE),
  harray = c(rep(NA, 11), "Float32", "Float64", "Complex32", "Complex64", NA, NA)
)

test_that("the dtype table lists the spec's dtypes, R types, zero-copy pairs and HArray names", {
  table <- pjrt:::dtype_table()
  expect_identical(table$dtypes, spec_dtypes)
})

test_that("a fresh read of the core's table, past the cache, is the same table", {
  core <- pjrt:::ffi_dtype_table()
  expect_identical(data.frame(core[c("name", "r_type", "zero_copy", "harray")]), spec_dtypes)
  expect_identical(core$aliases, pjrt:::dtype_table()$aliases)
})

test_that("the dtype table's aliases are the spec's spellings", {
  aliases <- pjrt:::dtype_table()$aliases
  expected <- c(
    i1 = "pred", bool = "pred", s8 = "i8", s16 = "i16", s32 = "i32", s64 = "i64",
    u8 = "ui8", u16 = "ui16", u32 = "ui32", u64 = "ui64", f8E4M3FN = "f8e4m3fn",
    f8E5M2 = "f8e5m2"
  )
  expect_identical(aliases[order(names(aliases))], expected[order(names(expected))])
})

test_that("as_array() returns each dtype's R type from the table", {
  for (k in seq_len(nrow(spec_dtypes))) {
    values <- as_array(pjrt_empty(spec_dtypes$name[[k]], 0))
    type <- if (inherits(values, "integer64")) "integer64" else typeof(values)
    expect_identical(type, spec_dtypes$r_type[[k]], label = spec_dtypes$name[[k]])
  }
})

test_that("HDataType holds exactly the table's HArray names, each mapped to its dtype", {
  types <- Filter(function(name) !is.function(HDataType[[name]]), ls(HDataType))
  expect_setequal(types, c("Float32", "Float64", "Complex32", "Complex64"))
  buffer_dtype <- function(values, type) {
    as.character(elt_type(pjrt_buffer(HArray$new_from_values(values, type))))
  }
  expect_identical(buffer_dtype(array(1, c(1, 1)), HDataType$Float32), "f32")
  expect_identical(buffer_dtype(array(1, c(1, 1)), HDataType$Float64), "f64")
  expect_identical(buffer_dtype(array(1i, c(1, 1)), HDataType$Complex32), "c64")
  expect_identical(buffer_dtype(array(1i, c(1, 1)), HDataType$Complex64), "c128")
})
