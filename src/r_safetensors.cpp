// Bindings for safetensors files: each unwraps its arguments, calls the core's reader or
// writer and wraps the result. Progress goes to an R callback (a cli progress bar) at most
// ten times a second, and user interrupts are checked at the same moments.
#include <chrono>
#include <cpp11.hpp>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "ndbuf/io/safetensors.hpp"
#include "ndbuf/memory/device.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "r_tensor.h"

namespace {

class ProgressRelay {
 public:
  explicit ProgressRelay(SEXP callback) : callback_(callback) {}

  ndbuf::SafetensorsProgress get() {
    return [this](uint64_t done, uint64_t total) {
      const auto now = Clock::now();
      if (done < total && now - last_ < std::chrono::milliseconds(100)) return;
      last_ = now;
      ndbuf::check_interrupt();  // the core's interrupt path, as in every long loop
      if (callback_ != R_NilValue) {
        const cpp11::function callback(callback_);
        callback(static_cast<double>(done), static_cast<double>(total));
      }
    };
  }

 private:
  using Clock = std::chrono::steady_clock;
  cpp11::sexp callback_;
  Clock::time_point last_ = Clock::now();
};

// R strings cannot hold NUL, which JSON strings may.
cpp11::r_string r_string_of(const std::string& s, const char* what) {
  if (s.find('\0') != std::string::npos) {
    ndbuf::fail(ndbuf::ErrorKind::kFormat,
                std::string("The file has a ") + what +
                    " with a NUL character, which R strings cannot hold.");
  }
  return cpp11::r_string(s);
}

SEXP metadata_to_r(const std::optional<ndbuf::SafetensorsMetadata>& metadata) {
  if (!metadata) return R_NilValue;
  cpp11::writable::list out(static_cast<R_xlen_t>(metadata->size()));
  cpp11::writable::strings keys(static_cast<R_xlen_t>(metadata->size()));
  for (size_t k = 0; k < metadata->size(); ++k) {
    keys[k] = r_string_of((*metadata)[k].first, "metadata key");
    out[k] = cpp11::writable::strings({r_string_of((*metadata)[k].second, "metadata value")});
  }
  out.names() = keys;
  return out;
}

// A named list of buffers, with the file's __metadata__ (a named list of strings, or NULL) as
// attribute "metadata".
SEXP load_file(const std::string& path, SEXP names, const std::string& device, bool copy,
               SEXP progress) {
  ndbuf::SafetensorsLoadOptions options;
  options.copy = copy;
  if (names != R_NilValue) options.names = cpp11::as_cpp<std::vector<std::string>>(names);
  options.device = ndbuf::resolve_device(device);
  options.max_dim = std::numeric_limits<int>::max();  // R dims are int
  ProgressRelay relay(progress);
  options.progress = relay.get();
  ndbuf::SafetensorsContents contents = ndbuf::load_safetensors(path, options);
  const auto n = static_cast<R_xlen_t>(contents.tensors.size());
  cpp11::writable::list out(n);
  cpp11::writable::strings labels(n);
  for (R_xlen_t k = 0; k < n; ++k) {
    if (contents.tensors[k].name.empty()) {
      ndbuf::fail(ndbuf::ErrorKind::kFormat,
                  "Tensor " + std::to_string(k + 1) +
                      " of the file has an empty name, which a named list cannot hold (and "
                      "pjrt_save_safetensors() refuses); load the others with `names =`.");
    }
    labels[k] = r_string_of(contents.tensors[k].name, "tensor name");
    out[k] = pjrt::wrap_buffer(std::move(contents.tensors[k].tensor));
  }
  out.names() = labels;
  out.attr("metadata") = metadata_to_r(contents.metadata);
  return out;
}

// `metadata` is NULL or a named character vector.
void save_file(cpp11::list tensors, const std::string& path, SEXP metadata, bool allow_c128,
               SEXP progress) {
  std::vector<ndbuf::NamedTensor> named;
  const cpp11::strings labels(tensors.names());
  for (R_xlen_t k = 0; k < tensors.size(); ++k) {
    named.push_back({std::string(labels[k]), pjrt::unwrap_buffer(tensors[k])});
  }
  std::optional<ndbuf::SafetensorsMetadata> meta;
  if (metadata != R_NilValue) {
    const cpp11::strings values(metadata);
    const cpp11::strings keys(values.names());
    meta.emplace();
    for (R_xlen_t k = 0; k < values.size(); ++k) meta->emplace_back(keys[k], values[k]);
  }
  ProgressRelay relay(progress);
  ndbuf::SafetensorsSaveOptions options;
  options.allow_c128 = allow_c128;
  options.progress = relay.get();
  ndbuf::save_safetensors(path, named, meta, options);
}

}  // namespace

[[cpp11::register]] SEXP ffi_safetensors_load(std::string path, SEXP names, std::string device,
                                              bool copy, SEXP progress) {
  return pjrt::call_core([&] { return load_file(path, names, device, copy, progress); });
}

[[cpp11::register]] SEXP ffi_safetensors_save(cpp11::list tensors, std::string path, SEXP metadata,
                                              bool allow_c128, SEXP progress) {
  return pjrt::call_core([&] { save_file(tensors, path, metadata, allow_c128, progress); });
}

// The dtype name and platform of each element of `tensors`, in one call (R-level calls per
// tensor made saving many small tensors slow); NA for an element that is not a valid buffer
// (the save reports it).
[[cpp11::register]] cpp11::list ffi_buffers_describe(cpp11::list tensors) {
  const R_xlen_t n = tensors.size();
  cpp11::writable::strings dtypes(n);
  cpp11::writable::strings platforms(n);
  for (R_xlen_t k = 0; k < n; ++k) {
    const ndbuf::Tensor* tensor = pjrt::find_buffer(tensors[k]);
    dtypes[k] = tensor ? cpp11::r_string(std::string(ndbuf::dtype_name(tensor->dtype())))
                       : cpp11::r_string(NA_STRING);
    platforms[k] =
        tensor ? cpp11::r_string(ndbuf::device_spec(tensor->device())) : cpp11::r_string(NA_STRING);
  }
  return cpp11::writable::list(
      {cpp11::named_arg("dtype") = dtypes, cpp11::named_arg("device") = platforms});
}

// The safetensors dtype tag of each dtype, named by dtype.
[[cpp11::register]] cpp11::strings ffi_safetensors_tags() {
  cpp11::writable::strings out(static_cast<R_xlen_t>(ndbuf::kNumDTypes));
  cpp11::writable::strings names(static_cast<R_xlen_t>(ndbuf::kNumDTypes));
  for (size_t k = 0; k < ndbuf::kNumDTypes; ++k) {
    out[k] = std::string(ndbuf::kDTypeTable[k].safetensors);
    names[k] = std::string(ndbuf::kDTypeTable[k].name);
  }
  out.names() = names;
  return out;
}
