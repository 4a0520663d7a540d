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

# The R type of a value from as_array(), with integer64 told apart from double.
r_type <- function(x) if (inherits(x, "integer64")) "integer64" else typeof(x)

# Values of an integer-typed buffer as exact decimal strings (integer64 prints exactly).
values_text <- function(b) {
  v <- as_array(b, check = "ignore")
  dim(v) <- NULL
  as.character(v)
}
