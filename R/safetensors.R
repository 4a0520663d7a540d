# pjrt_save_safetensors() and pjrt_load_safetensors(), and the safetensors framework hooks.
#' Save and load safetensors files
#'
#' `pjrt_save_safetensors()` writes a named list of buffers to a
#' [safetensors](https://github.com/huggingface/safetensors) file and
#' `pjrt_load_safetensors()` reads one back as a named list of buffers. Both run in the C++
#' core, show a progress bar (cli) when they take more than a couple of seconds, and can be
#' interrupted.
#'
#' @section Layout:
#' safetensors stores each tensor in row-major (C) order; buffers are column-major with R's
#' dims. A tensor keeps its shape across the boundary: a file's shape `[a, b, c]` becomes a
#' buffer of shape `c(a, b, c)` whose element `[i, j, k]` is the file's element `(i, j, k)`,
#' as with torch, Python and the safetensors R package. The bytes of tensors with at most one
#' dimension longer than 1 (scalars, vectors, `1 x n` ...) are laid out identically in both
#' orders; other tensors are transposed, once, while reading and writing.
#'
#' @section Reading without copying:
#' The file is mapped into memory, so only the tensors asked for (`names`) are read, and the
#' header is validated in full before anything is returned: a malformed file is an error that
#' says which rule it breaks, never a crash. Tensors whose bytes need no transposing (see
#' Layout) and are aligned for their element type are not copied at all: on CPU devices the
#' buffers reference the file's pages, which stay mapped while any of them is alive. Other
#' tensors, and tensors for other devices, are copied. Beyond what the format requires, BOOL
#' tensors must hold only bytes 0 and 1 (as for raw data in [pjrt_buffer()]), and each
#' dimension must be below 2^31 (R's dims are integers); only the tensors loaded are checked.
#'
#' Files under 1 MiB, and any file when `copy = TRUE`, are read into memory instead: their
#' buffers never depend on the file again.
#'
#' @section Files that change after loading:
#' Replacing a file with `pjrt_save_safetensors()` is safe even while buffers loaded from it
#' are alive: the new file is written beside the old one and renamed over it, so the old
#' buffers keep their values and a failed or interrupted write leaves the old file as it was.
#' Deleting the file is safe too. Changing a mapped file *in place* (as
#' `safetensors::safe_save_file()` does, truncating it first, or any program that writes
#' into it) pulls the pages from under its buffers. pjrt detects this: any later use of
#' those buffers is an error saying the file changed on disk after loading (its size or
#' modification time differ, or pages the buffers need are gone), never a crash and never
#' silently changed values; load the file again. A change caught in the middle of a read
#' (for example a conversion running while another process truncates the file) fails that
#' read. Use `copy = TRUE` for buffers that must outlive any change to their file, at the
#' cost of reading the whole file at load.
#'
#' @section Files written:
#' The header lists `__metadata__` first and then the tensors in the order of `tensors`; it
#' is padded with spaces to a multiple of 8 bytes. The data is laid out by decreasing element
#' size (otherwise in the order of `tensors`), so that every tensor is aligned for its element
#' type and can be read without a copy. dtypes map to safetensors tags as `pred` BOOL, `i8`
#' to `i64` I8 to I64, `ui8` to `ui64` U8 to U64, `f16` F16, `bf16` BF16, `f32` F32, `f64`
#' F64, `c64` C64, `c128` C128, `f8e4m3fn` F8_E4M3 and `f8e5m2` F8_E5M2 (the reference
#' implementation's tags for these two formats). C128 is not a tag of the reference
#' implementation, so other readers reject it: it is only written when `allow_c128 = TRUE`.
#'
#' @section The safetensors package:
#' pjrt registers itself with the safetensors package as framework `"pjrt"`, so
#' `safetensors::safe_load_file(path, framework = "pjrt")` returns buffers (pass `device = `
#' to place them) and `safetensors::safe_save_file()` accepts buffers. That package copies
#' each tensor through an R raw vector; the functions here are much faster. The option
#' `pjrt.safetensors_allow_c128` plays the role of `allow_c128` for
#' `safetensors::safe_save_file()`.
#'
#' @param tensors A named list of PJRTBuffers (distinct, non-empty names; buffers on other
#'   devices are copied to the host first).
#' @param path The file's path.
#' @param metadata `NULL`, or a named list (or named character vector) of strings: the file's
#'   `__metadata__`.
#' @param allow_c128 Whether `c128` buffers may be written (as C128).
#' @param device Where to place the buffers: `NULL` (the default device), a PJRTDevice or a
#'   device spec such as `"cpu"` (see [pjrt_device()]).
#' @param names `NULL` to load every tensor, in file order, or a character vector of tensor
#'   names to load only those, in that order. Only the tensors loaded need dtypes pjrt
#'   holds: a file with, say, an F8_E8M0 tensor loads with `names` naming the others.
#' @param copy Whether to read the whole file into memory rather than map it (files under
#'   1 MiB are always read), so that later changes to the file cannot affect the buffers.
#' @return `pjrt_save_safetensors()` returns `path` invisibly. `pjrt_load_safetensors()`
#'   returns a named list of PJRTBuffers with attribute `metadata`: the file's
#'   `__metadata__` as a named list of strings, or `NULL` when the file has none.
#' @seealso [pjrt_buffer()], [as_array()], [HArray] (the safetensors package reads these
#'   files too).
#' @examples
#' path <- tempfile(fileext = ".safetensors")
#' x <- list(w = pjrt_buffer(matrix(1:6, 2), dtype = "f32"), b = pjrt_buffer(1:3, dtype = "i8"))
#' pjrt_save_safetensors(x, path, metadata = list(format = "pt"))
#' y <- pjrt_load_safetensors(path)
#' y$w
#' attr(y, "metadata")
#' names(pjrt_load_safetensors(path, names = "b"))
#' @export
pjrt_save_safetensors <- function(tensors, path, metadata = NULL, allow_c128 = FALSE) {
  tensors <- check_tensor_list(tensors)
  path <- check_path(path)
  metadata <- check_safetensors_metadata(metadata)
  allow_c128 <- check_bool(allow_c128, "allow_c128")
  if (!allow_c128) check_no_c128(tensors)
  tensors <- copy_to_host(tensors)
  progress <- progress_reporter("Writing", path, environment())
  with_core(ffi_safetensors_save(tensors, path, metadata, allow_c128, progress))
  invisible(path)
}

#' @rdname pjrt_save_safetensors
#' @export
pjrt_load_safetensors <- function(path, device = NULL, names = NULL, copy = FALSE) {
  path <- check_path(path)
  if (!is.null(names) && (!is.character(names) || anyNA(names))) {
    cli::cli_abort("{.arg names} must be NULL or a character vector without missing values.")
  }
  check_not_bytes(names, "names")
  copy <- check_bool(copy, "copy")
  if (anyDuplicated(names)) {
    cli::cli_abort("{.arg names} lists {.val {names[anyDuplicated(names)]}} more than once.")
  }
  progress <- progress_reporter("Reading", path, environment())
  with_core(ffi_safetensors_load(path, names, device_spec(device), copy, progress))
}

check_path <- function(path, call = caller_env()) {
  check_string(path, "path", what = "a single file path", allow_empty = FALSE, call = call)
  check_not_bytes(path, "path", call)
  enc2utf8(path.expand(path))
}

check_tensor_list <- function(tensors, call = caller_env()) {
  if (!is.list(tensors) || inherits(tensors, "PJRTBuffer")) {
    cli::cli_abort(
      "{.arg tensors} must be a named list of PJRTBuffers, not {.obj_type_friendly {tensors}}.",
      call = call
    )
  }
  labels <- names(tensors) %||% rep("", length(tensors))
  unnamed <- which(is.na(labels) | labels == "")
  if (length(unnamed) > 0) {
    cli::cli_abort("Every element of {.arg tensors} must be named; element {unnamed[[1]]} is not.",
                   call = call)
  }
  if (anyDuplicated(labels)) {
    cli::cli_abort("{.arg tensors} has the name {.val {labels[anyDuplicated(labels)]}} more than once.",
                   call = call)
  }
  check_not_bytes(labels, "tensors", call, what = "name")
  not_buffer <- which(!vapply(tensors, inherits, TRUE, what = "PJRTBuffer"))
  if (length(not_buffer) > 0) {
    k <- not_buffer[[1]]
    cli::cli_abort(c(
      "Every element of {.arg tensors} must be a PJRTBuffer.",
      x = "Element {.val {labels[[k]]}} is {.obj_type_friendly {tensors[[k]]}}.",
      i = "Make buffers with {.fn pjrt_buffer}."
    ), call = call)
  }
  names(tensors) <- enc2utf8(labels)
  tensors
}

# Buffers on other devices, copied to the host (one call describes them all: a call per
# tensor made saving many small tensors slow).
copy_to_host <- function(tensors) {
  devices <- ffi_buffers_describe(tensors)$device
  for (k in which(!is.na(devices) & !startsWith(devices, "cpu"))) {
    tensors[[k]] <- copy_buffer(tensors[[k]], "cpu")
  }
  tensors
}

# One call for all dtypes: a lookup by name in a loop made saving quadratic in the tensor
# count, and a call per tensor slow.
check_no_c128 <- function(tensors, call = caller_env()) {
  c128 <- which(ffi_buffers_describe(tensors)$dtype == "c128")
  if (length(c128) == 0) return(invisible())
  name <- names(tensors)[[c128[[1]]]]
  cli::cli_abort(c(
    "Buffer {.val {name}} is {.val c128}, which would be written as C128, a dtype safetensors readers other than pjrt reject.",
    i = "Use {.code allow_c128 = TRUE} to write it anyway, or convert it to {.val c64}."
  ), call = call)
}

check_safetensors_metadata <- function(metadata, call = caller_env()) {
  if (is.null(metadata)) return(NULL)
  labels <- names(metadata)
  valid <- (is.list(metadata) || is.character(metadata)) && !is.null(labels) &&
    !anyNA(labels) && all(nzchar(labels)) &&
    all(vapply(metadata, is_string, TRUE))
  if (!valid) {
    cli::cli_abort(c(
      "{.arg metadata} must be NULL or a named list of single strings.",
      i = "For example {.code list(format = \"pt\")}."
    ), call = call)
  }
  if (anyDuplicated(labels)) {
    cli::cli_abort("{.arg metadata} has the key {.val {labels[anyDuplicated(labels)]}} more than once.",
                   call = call)
  }
  check_not_bytes(labels, "metadata", call, what = "key")
  check_not_bytes(unlist(metadata, use.names = FALSE), "metadata", call, what = "value")
  values <- enc2utf8(vapply(metadata, identity, ""))
  names(values) <- enc2utf8(labels)
  values
}

# Strings marked as "bytes" have no known encoding, so they cannot become the UTF-8 text a
# path, tensor name or metadata string must be.
check_not_bytes <- function(x, arg, call = caller_env(), what = "element") {
  if (!is.character(x)) return(invisible())
  bytes <- which(Encoding(x) == "bytes")
  if (length(bytes) > 0) {
    cli::cli_abort(c(
      "{.arg {arg}} must be text, but {what} {bytes[[1]]} is marked as {.val bytes} (no known encoding).",
      i = "Mark its encoding with {.fn Encoding} or convert it with {.fn iconv}."
    ), call = call)
  }
  invisible()
}

# A callback for the core's progress reports (bytes done of total): a cli progress bar, made
# on first use in `env` (the caller's frame, which ends it). cli shows it only once the
# operation has lasted a couple of seconds.
progress_reporter <- function(verb, path, env) {
  bar <- NULL
  finished <- FALSE
  label <- paste(verb, basename(path))
  function(done, total) {
    if (finished) return(invisible())  # cli ended the bar when it reached its total
    finished <<- done >= total
    if (is.null(bar)) {
      bar <<- cli::cli_progress_bar(
        name = label, total = total, .envir = env,
        format = "{cli::pb_name} {cli::pb_bar} {cli::pb_current_bytes}/{cli::pb_total_bytes} {cli::pb_eta}"
      )
    }
    cli::cli_progress_update(id = bar, set = done, .envir = env)
  }
}

# ---- the safetensors package ------------------------------------------------------------

safetensors_tag <- function(dtype) ffi_safetensors_tags()[[dtype]]

pjrt_dtype_from_tag <- function(tag, call = caller_env()) {
  tags <- ffi_safetensors_tags()
  found <- match(tag, tags)
  if (is.na(found)) {
    cli::cli_abort(c(
      "pjrt cannot load safetensors dtype {.val {tag}}.",
      i = "Supported dtypes are {.val {unname(tags)}}."
    ), call = call)
  }
  names(tags)[[found]]
}

# The framework constructor: `raw` holds the tensor's row-major bytes, `meta` its header
# entry as parsed by jsonlite (a shape of `[]` arrives as an empty list).
pjrt_tensor_from_raw <- function(raw, meta, device = NULL) {
  pjrt_buffer(
    raw,
    dtype = pjrt_dtype_from_tag(meta$dtype),
    shape = as.numeric(unlist(meta$shape)),
    row_major = TRUE,
    device = device
  )
}

#' @exportS3Method safetensors::safe_tensor_buffer
safe_tensor_buffer.PJRTBuffer <- function(x) {
  as_raw(x, row_major = TRUE)
}

#' @exportS3Method safetensors::safe_tensor_meta
safe_tensor_meta.PJRTBuffer <- function(x) {
  dtype <- as.character(elt_type(x))
  if (dtype == "c128" && !isTRUE(getOption("pjrt.safetensors_allow_c128", FALSE))) {
    cli::cli_abort(c(
      "A {.val c128} buffer would be written as C128, which safetensors readers other than pjrt reject.",
      i = "Set {.code options(pjrt.safetensors_allow_c128 = TRUE)} to write it anyway, or convert it to {.val c64}."
    ))
  }
  list(shape = as.list(shape(x)), dtype = safetensors_tag(dtype))
}

# Registers framework "pjrt" with the safetensors package: now if it is loaded, and from a
# hook when it is loaded later.
register_safetensors_framework <- function(...) {
  frameworks <- get("safetensors_frameworks", envir = asNamespace("safetensors"))
  assign("pjrt", list(constructor = pjrt_tensor_from_raw, packages = "pjrt"), envir = frameworks)
  invisible()
}

hook_safetensors <- function() when_package_loads("safetensors", register_safetensors_framework)

unhook_safetensors <- function() {
  unhook_package("safetensors")
  if (isNamespaceLoaded("safetensors")) {
    frameworks <- get("safetensors_frameworks", envir = asNamespace("safetensors"))
    if (exists("pjrt", envir = frameworks, inherits = FALSE)) rm("pjrt", envir = frameworks)
  }
}
