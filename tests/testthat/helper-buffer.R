# Helpers shared by the buffer tests.
all_dtypes <- c(
  "pred", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64",
  "f16", "bf16", "f32", "f64", "c64", "c128"
)
integer_dtypes <- c("i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64")
float_dtypes <- c("f16", "bf16", "f32", "f64")
complex_dtypes <- c("c64", "c128")

# The R type as_array() gives for each dtype (SPEC section 1).
r_type_of <- c(
  pred = "logical", i8 = "integer", i16 = "integer", i32 = "integer", i64 = "integer64",
  ui8 = "integer", ui16 = "integer", ui32 = "integer64", ui64 = "integer64",
  f16 = "double", bf16 = "double", f32 = "double", f64 = "double",
  c64 = "complex", c128 = "complex"
)

# Each integer dtype's range as [lo, hi_excl), exact doubles.
integer_range <- list(
  i8 = c(-2^7, 2^7), i16 = c(-2^15, 2^15), i32 = c(-2^31, 2^31), i64 = c(-2^63, 2^63),
  ui8 = c(0, 2^8), ui16 = c(0, 2^16), ui32 = c(0, 2^32), ui64 = c(0, 2^64)
)

i64 <- function(x) bit64::as.integer64(x)

buffer_address <- function(b) pjrt:::ffi_buffer_address(b)

# Values as a plain complex vector, integer64 through double: bit64 before 4.5 has no
# as.complex() method (the default one reads the integers' bits as doubles).
complex_values <- function(x) {
  if (inherits(x, "integer64")) x <- bit64::as.double.integer64(x)
  as.vector(as.complex(x))
}

# The R type of a value from as_array(), with integer64 told apart from double.
r_type <- function(x) if (inherits(x, "integer64")) "integer64" else typeof(x)

# Values of an integer-typed buffer as exact decimal strings (integer64 prints exactly).
values_text <- function(b) {
  v <- as_array(b, check = "ignore")
  dim(v) <- NULL
  as.character(v)
}

# The values of an integer-typed buffer decoded from its bytes as doubles, without going
# through as_array() (so INT_MIN, INT64_MIN and ui64 >= 2^63 come out as numbers). Exact
# whenever the stored values are representable as doubles.
stored_values <- function(b) {
  dtype <- as.character(elt_type(b))
  size <- c(i8 = 1, i16 = 2, i32 = 4, i64 = 8, ui8 = 1, ui16 = 2, ui32 = 4, ui64 = 8)[[dtype]]
  signed <- startsWith(dtype, "i")
  bytes <- matrix(as.integer(as_raw(b, row_major = FALSE)), nrow = size)
  word <- function(rows) colSums(bytes[rows, , drop = FALSE] * 256^(seq_along(rows) - 1))
  if (size <= 4) {
    value <- word(seq_len(size))
    if (signed) value <- ifelse(value >= 2^(8 * size - 1), value - 2^(8 * size), value)
    return(value)
  }
  lo <- word(1:4)
  hi <- word(5:8)
  if (signed) hi <- ifelse(hi >= 2^31, hi - 2^32, hi)
  hi * 2^32 + lo
}
