// Binding for printing buffers: the core writes every line, R only prints them.
#include <cmath>
#include <cpp11.hpp>

#include "ndbuf/format/format_buffer.hpp"
#include "ndbuf/format/format_literal.hpp"
#include "r_tensor.h"

namespace {

// A row or width limit from R (a whole number, checked in R/print.R): negative and values
// beyond int64 (Inf) mean unlimited. Re-checked here so no double reaches an int64 cast.
int64_t limit_of(double value) {
  if (std::isnan(value)) pjrt::fail_argument("Print limits must not be NA.");
  return value < 0 || value >= 9.2e18 ? -1 : static_cast<int64_t>(value);
}

}  // namespace

[[cpp11::register]] SEXP ffi_buffer_format(SEXP buffer, double max_rows, double max_width,
                                           double max_rows_slice, bool header, SEXP footer) {
  return pjrt::call_core([&]() -> cpp11::strings {
    const pjrt::MappedReadCheck reads;
    ndbuf::BufferPrintOptions options{limit_of(max_rows), limit_of(max_width),
                                      limit_of(max_rows_slice), header, std::nullopt};
    if (footer != R_NilValue) options.footer = cpp11::as_cpp<std::string>(footer);
    const std::vector<std::string> lines =
        ndbuf::format_buffer(pjrt::unwrap_buffer(buffer), options);
    reads.done();
    return cpp11::writable::strings(cpp11::as_sexp(lines));
  });
}

// Each element as StableHLO literal text, in R's order (format_buffer()).
[[cpp11::register]] SEXP ffi_buffer_format_literal(SEXP buffer) {
  return pjrt::call_core([&]() -> cpp11::strings {
    const pjrt::MappedReadCheck reads;
    const std::vector<std::string> elements =
        ndbuf::format_literal_elements(pjrt::unwrap_buffer(buffer));
    reads.done();
    return cpp11::writable::strings(cpp11::as_sexp(elements));
  });
}
