// Reading safetensors files: the header, the chosen tensors as views of the mapped file or copies.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>

#include "io/safetensors_internal.hpp"
#include "ndbuf/base/error.hpp"
#include "ndbuf/convert/buffer.hpp"
#include "ndbuf/io/mapped_file.hpp"
#include "ndbuf/io/safetensors.hpp"
#include "ndbuf/memory/copy.hpp"

namespace ndbuf {
namespace {

size_t element_alignment(DType dtype) {
  return dispatch(dtype, [](auto tag) { return alignof(typename decltype(tag)::type); });
}

std::string list_names(const std::vector<SafetensorsEntry>& entries) {
  constexpr size_t kShown = 20;
  std::string out;
  for (size_t k = 0; k < entries.size() && k < kShown; ++k) {
    out += (k == 0 ? "\"" : ", \"") + entries[k].name + "\"";
  }
  if (entries.size() > kShown) out += " and " + std::to_string(entries.size() - kShown) + " more";
  return out;
}

std::vector<const SafetensorsEntry*> select_entries(const SafetensorsHeader& header,
                                                    const SafetensorsLoadOptions& options) {
  std::vector<const SafetensorsEntry*> chosen;
  if (!options.names) {
    for (const auto& entry : header.tensors) chosen.push_back(&entry);
    return chosen;
  }
  std::unordered_map<std::string, const SafetensorsEntry*> by_name;
  for (const auto& entry : header.tensors) by_name.emplace(entry.name, &entry);
  std::unordered_set<std::string> seen;
  for (const auto& name : *options.names) {
    if (!seen.insert(name).second) {
      fail(ErrorKind::kInvalidArgument, "The tensor name \"" + name + "\" is requested twice.");
    }
    const auto found = by_name.find(name);
    if (found == by_name.end()) {
      fail(ErrorKind::kInvalidArgument,
           "The file has no tensor named \"" + name + "\"" +
               (header.tensors.empty() ? std::string(" (it holds no tensors).")
                                       : "; it holds " + list_names(header.tensors) + "."));
    }
    chosen.push_back(found->second);
  }
  return chosen;
}

void check_bool_bytes(const SafetensorsEntry& entry, const unsigned char* bytes, size_t n) {
  const int64_t k = first_invalid_pred_byte(bytes, static_cast<int64_t>(n));
  if (k >= 0) {
    safetensors_format_error("tensor " + in_quotes(entry.name) + " (BOOL) holds the byte " +
                             std::to_string(bytes[k]) + " at position " + std::to_string(k + 1) +
                             ", but BOOL bytes must be 0 or 1");
  }
}

// The file's row-major tensor with R's dims (the file's [a, b] is dims c(a, b)): a view of the
// file's own pages with row-major strides wherever the data is aligned for its element type
// (no copy at load; as_array() and other readers transpose as they read), else a dense
// column-major copy.
Tensor load_entry(const std::shared_ptr<Storage>& file, uint64_t data_start,
                  const SafetensorsEntry& entry, Device device, const CopyTick& tick) {
  const auto offset = static_cast<size_t>(data_start + entry.begin);
  const auto nbytes = static_cast<size_t>(entry.end - entry.begin);
  const char* src = static_cast<const char*>(file->data()) + offset;
  if (entry.dtype == DType::kPred) {
    check_bool_bytes(entry, reinterpret_cast<const unsigned char*>(src), nbytes);
  }
  const bool aligned = reinterpret_cast<uintptr_t>(src) % element_alignment(entry.dtype) == 0;
  if (nbytes > 0 && aligned) {
    const Order order = orders_coincide(entry.shape) ? Order::kColumnMajor : Order::kRowMajor;
    return Tensor::dense(slice_storage(file, offset, nbytes, device), entry.dtype, entry.shape,
                         order);
  }
  Tensor out = Tensor::allocate(entry.dtype, entry.shape, Order::kColumnMajor, device);
  copy_elements_in_slabs(src, contiguous_strides(entry.shape, Order::kRowMajor), out.data(),
                         out.strides(), entry.shape, itemsize(entry.dtype), tick);
  return out;
}

}  // namespace

SafetensorsContents load_safetensors(const std::shared_ptr<Storage>& file,
                                     const SafetensorsLoadOptions& options) {
  if (!is_host(file->device())) {
    fail(ErrorKind::kInvalidArgument, "A safetensors file must be read from host memory.");
  }
  SafetensorsHeader header = parse_safetensors(file->data(), file->nbytes());
  const auto chosen = select_entries(header, options);
  for (const auto* entry : chosen) {
    if (!entry->unsupported.empty()) {
      fail(ErrorKind::kInvalidArgument, "Tensor \"" + entry->name +
                                            "\" has the unsupported dtype " + entry->unsupported +
                                            "; select the other tensors by name to load them.");
    }
    for (const int64_t dim : entry->shape) {
      if (dim > options.max_dim) {
        fail(ErrorKind::kInvalidArgument,
             "Tensor \"" + entry->name + "\" has shape " + shape_to_tuple(entry->shape) +
                 ", but dimensions here must not exceed " + std::to_string(options.max_dim) + ".");
      }
    }
  }
  uint64_t total = 0;
  for (const auto* entry : chosen) total += entry->end - entry->begin;
  // Host devices take the tensors as loaded; others take a copy of each, one at a time.
  const bool on_host = is_host(options.device);
  const Device host = on_host ? options.device : Device{};
  SafetensorsContents out;
  out.tensors.reserve(chosen.size());
  uint64_t done = 0;
  for (const auto* entry : chosen) {
    CopyTick tick;
    if (options.progress) {
      tick = [&](int64_t bytes) { options.progress(done + static_cast<uint64_t>(bytes), total); };
    }
    Tensor tensor = load_entry(file, header.data_start, *entry, host, tick);
    if (!on_host) tensor = buffer_copy_to(tensor, options.device);
    out.tensors.push_back({entry->name, std::move(tensor)});
    done += entry->end - entry->begin;
    if (options.progress) options.progress(done, total);
  }
  out.metadata = std::move(header.metadata);
  return out;
}

SafetensorsContents load_safetensors(const std::string& path,
                                     const SafetensorsLoadOptions& options) {
  const uint64_t faults_before = mapping_fault_count();
  const std::shared_ptr<Storage> file = open_file(path, options.copy);
  try {
    SafetensorsContents contents = load_safetensors(file, options);
    check_no_mapping_faults(faults_before);
    check_mapping_intact(file->data());
    return contents;
  } catch (const Error& e) {
    // A file truncated under the reader reads as zeros, which may look malformed.
    check_no_mapping_faults(faults_before);
    check_mapping_intact(file->data());
    if (e.kind() != ErrorKind::kFormat) throw;
    // "Invalid safetensors file: ..." -> "Invalid safetensors file '<path>': ..."
    std::string message = e.what();
    const std::string prefix = kSafetensorsInvalid;
    if (message.compare(0, prefix.size(), prefix) == 0) {
      message.insert(prefix.size(), " '" + path + "'");
    }
    fail(ErrorKind::kFormat, message);
  }
}

}  // namespace ndbuf
