# Helpers for the safetensors tests.

# The shared fixtures folder (PJRT_FIXTURES_DIR, else ../shared/fixtures beside the
# repository root).
fixtures_dir <- function() {
  dir <- Sys.getenv("PJRT_FIXTURES_DIR")
  if (!nzchar(dir)) dir <- test_path("..", "..", "..", "shared", "fixtures")
  dir
}

skip_without_fixture <- function(name) {
  path <- file.path(fixtures_dir(), name)
  if (!file.exists(path)) {
    skip(paste0("fixture ", name, " not found in ", fixtures_dir(), " (set PJRT_FIXTURES_DIR)"))
  }
  path
}

# The 8-byte little-endian header length.
le64 <- function(n) {
  out <- raw(8)
  for (k in 1:8) {
    out[k] <- as.raw(n %% 256)
    n <- n %/% 256
  }
  out
}

# A safetensors file's bytes from a header string and data bytes.
st_bytes <- function(header, data = raw()) {
  header <- charToRaw(enc2utf8(header))
  c(le64(length(header)), header, data)
}

st_entry <- function(name, dtype, shape, offsets) {
  sprintf('"%s":{"dtype":"%s","shape":[%s],"data_offsets":[%s]}', name, dtype,
          paste(shape, collapse = ","), paste(format(offsets, scientific = FALSE), collapse = ","))
}

write_raw <- function(bytes, path = tempfile(fileext = ".safetensors")) {
  writeBin(bytes, path)
  path
}

# Random bytes for `n` elements of `dtype` (pred: 0 or 1).
random_bytes <- function(dtype, n) {
  size <- c(pred = 1, i8 = 1, i16 = 2, i32 = 4, i64 = 8, ui8 = 1, ui16 = 2, ui32 = 4, ui64 = 8,
            f16 = 2, bf16 = 2, f32 = 4, f64 = 8, c64 = 8, c128 = 16)[[dtype]]
  if (dtype == "pred") return(as.raw(sample(0:1, n, replace = TRUE)))
  as.raw(sample(0:255, n * size, replace = TRUE))
}

all_dtypes <- c("pred", "i8", "i16", "i32", "i64", "ui8", "ui16", "ui32", "ui64",
                "f16", "bf16", "f32", "f64", "c64", "c128")

scrub_tempdir <- function(lines) {
  gsub(normalizePath(tempdir(), mustWork = FALSE), "<tempdir>", lines, fixed = TRUE)
}
