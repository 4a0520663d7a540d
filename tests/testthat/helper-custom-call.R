# Custom-call test handlers: a C file compiled with R CMD SHLIB against pjrt's installed
# header, once per session (skipped where no compiler works).

custom_call_handler_source <- '
#include <R.h>
#include <Rinternals.h>
#include <R_ext/Rdynload.h>
#include <stdio.h>
#include <string.h>
#include "pjrt_custom_call.h"

/* result = operand * factor (f64 or f32, any shape; same layout on both sides). */
static int scale(const pjrt_custom_call_frame* f) {
  double factor = 1;
  for (int k = 0; k < f->num_attributes; k++) {
    if (strcmp(f->attributes[k].name, "factor") == 0) factor = f->attributes[k].number;
  }
  if (f->num_operands != 1 || f->num_results != 1) {
    snprintf(f->error, PJRT_CC_ERROR_CAPACITY, "scale takes one operand and one result");
    return 1;
  }
  const pjrt_custom_call_buffer* in = &f->operands[0];
  int64_t n = 1;
  for (int d = 0; d < in->rank; d++) n *= in->dims[d];
  if (in->dtype == PJRT_CC_F64) {
    const double* x = in->data;
    double* y = f->results[0].data;
    for (int64_t k = 0; k < n; k++) y[k] = x[k] * factor;
  } else if (in->dtype == PJRT_CC_F32) {
    const float* x = in->data;
    float* y = f->results[0].data;
    for (int64_t k = 0; k < n; k++) y[k] = (float)(x[k] * factor);
  } else {
    snprintf(f->error, PJRT_CC_ERROR_CAPACITY, "scale takes f32 or f64, not dtype code %d",
             (int)in->dtype);
    return 1;
  }
  return 0;
}

/* Writes the first element of its operand (column-major layout asked) into a 1-element result
   and the layout it saw into the second result (i64[rank]). */
static int first_and_layout(const pjrt_custom_call_frame* f) {
  const pjrt_custom_call_buffer* in = &f->operands[0];
  ((double*)f->results[0].data)[0] = ((const double*)in->data)[1];
  for (int d = 0; d < in->rank; d++) ((int64_t*)f->results[1].data)[d] = in->layout[d];
  return 0;
}

SEXP scale_handler(void) { return R_MakeExternalPtrFn((DL_FUNC)scale, R_NilValue, R_NilValue); }
SEXP layout_handler(void) {
  return R_MakeExternalPtrFn((DL_FUNC)first_and_layout, R_NilValue, R_NilValue);
}
'

custom_call_handlers_env <- new.env(parent = emptyenv())

# The compiled test library (its path), or a skip.
custom_call_test_library <- function() {
  if (!is.null(custom_call_handlers_env$path)) return(custom_call_handlers_env$path)
  include <- system.file("include", package = "pjrt")
  skip_if(!file.exists(file.path(include, "pjrt_custom_call.h")), "pjrt's header is not installed")
  dir <- tempfile("pjrt-handlers")
  dir.create(dir)
  src <- file.path(dir, "handlers.c")
  writeLines(custom_call_handler_source, src)
  withr::local_envvar(PKG_CPPFLAGS = paste0("-I", shQuote(include)))
  output <- suppressWarnings(system2(
    file.path(R.home("bin"), "R"), c("CMD", "SHLIB", shQuote(src)), stdout = TRUE, stderr = TRUE
  ))
  lib <- file.path(dir, paste0("handlers", .Platform$dynlib.ext))
  skip_if(!file.exists(lib), paste("no C compiler works here:", paste(output, collapse = " ")))
  dyn.load(lib)
  custom_call_handlers_env$path <- lib
  lib
}

custom_call_test_handler <- function(name) {
  custom_call_test_library()
  .Call(name, PACKAGE = "handlers")
}
