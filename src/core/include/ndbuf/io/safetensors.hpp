// Reading and writing safetensors files (https://github.com/huggingface/safetensors):
//
//   8 bytes      N, the header length, little-endian unsigned 64-bit
//   N bytes      a UTF-8 JSON object: {"name": {"dtype": "F32", "shape": [2, 3],
//                "data_offsets": [begin, end]}, ..., "__metadata__": {"key": "value"}}
//   the rest     the tensors' bytes, each in row-major (C) order, back to back
//
// Layout. safetensors stores each tensor row-major. A tensor keeps its shape across the
// boundary: the file's shape [a, b, c] is the buffer's dims c(a, b, c) and element (i, j, k)
// is the same value on both sides (as with torch). A loaded tensor whose data is aligned for
// its element type is a row-major view of the file's mapped pages, with no copy at load;
// readers (as_array() and the rest) reorder as they read. Unaligned data is copied once, in
// slabs, into a fresh dense column-major tensor. The writer writes row-major tensors as they
// are and transposes others through a bounded buffer. The other choice, reversing the dims so
// every tensor is column-major, would hand R users the transpose of what every other
// safetensors reader sees.
#pragma once

#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ndbuf/base/dtype.hpp"
#include "ndbuf/base/shape.hpp"
#include "ndbuf/memory/storage.hpp"
#include "ndbuf/memory/tensor.hpp"

namespace ndbuf {

// The reference implementation's limit on N.
inline constexpr uint64_t kSafetensorsMaxHeaderBytes = 100'000'000;

// One tensor of a header. Offsets are bytes within the data section (after the header).
// A tensor whose dtype is one the format defines but ndbuf does not hold (F8_E4M3, F4 ...)
// still has its size checked; `unsupported` names that tag, and loading it is an error.
struct SafetensorsEntry {
  std::string name;
  DType dtype;
  Shape shape;
  uint64_t begin;
  uint64_t end;
  std::string unsupported;  // the tag when ndbuf has no such dtype, else empty
  uint32_t element_bits = 8;
};

// The size in bits of an element of a dtype tag the safetensors format defines (including
// those ndbuf cannot load), or 0 for a tag it does not define.
uint32_t safetensors_tag_bits(const std::string& tag);

// `__metadata__`: string keys to string values, in file order.
using SafetensorsMetadata = std::vector<std::pair<std::string, std::string>>;

struct SafetensorsHeader {
  std::vector<SafetensorsEntry> tensors;  // in header order
  std::optional<SafetensorsMetadata> metadata;
  uint64_t data_start = 0;  // 8 + N: where the data section begins in the file
};

// Validates `size` bytes as a whole safetensors file, as the reference implementation does:
// the length prefix, the header's size, UTF-8, JSON, schema, dtypes, duplicate names, offsets
// contiguous from 0, sizes against offsets (with overflow checks) and no trailing bytes.
// Throws Error(kFormat) naming the broken rule. Reads only the first 8 + N bytes and never
// allocates more than a small multiple of N.
SafetensorsHeader parse_safetensors(const void* data, size_t size);

// Progress of a long read or write: bytes done out of total. It is called on the calling
// thread and may throw to abandon the operation (the R bindings check for interrupts there).
using SafetensorsProgress = std::function<void(uint64_t done, uint64_t total)>;

struct NamedTensor {
  std::string name;
  Tensor tensor;
};

struct SafetensorsContents {
  std::vector<NamedTensor> tensors;
  std::optional<SafetensorsMetadata> metadata;
};

struct SafetensorsLoadOptions {
  // Load only these, in this order (each must exist, no repeats); all, in header order, when
  // unset.
  std::optional<std::vector<std::string>> names;
  // Where the tensors go. CPU devices share host memory, so zero-copy works on each of them;
  // other devices get a copy of each tensor, made one tensor at a time.
  Device device;
  // The largest dimension the caller can represent (R: 2^31 - 1); a tensor chosen for loading
  // with a longer axis is an InvalidArgument error before anything is read.
  int64_t max_dim = std::numeric_limits<int64_t>::max();
  // Read the whole file into memory instead of mapping it (see open_file()), so the tensors
  // never depend on the file again. Files under 1 MiB are always read.
  bool copy = false;
  SafetensorsProgress progress;
};

// Validates the file and returns its tensors with the file's shapes: row-major views of `file`
// (read-only, no copy) where the data is aligned for its element type, else fresh dense
// column-major copies; tensors for a device that is not the host are copies. BOOL
// tensors must hold only bytes 0 and 1, and dtypes must be ones ndbuf holds (both checked
// for the tensors loaded only).
SafetensorsContents load_safetensors(const std::shared_ptr<Storage>& file,
                                     const SafetensorsLoadOptions& options = {});
// Maps (or reads) `path` and loads it; errors name the path. A file changed in place while
// it is being loaded is an Error(kIo), never a crash.
SafetensorsContents load_safetensors(const std::string& path,
                                     const SafetensorsLoadOptions& options = {});

struct SafetensorsSaveOptions {
  // C128 is not a dtype of the safetensors format, so other readers reject it.
  bool allow_c128 = false;
  SafetensorsProgress progress;
};

// The header (without padding) for these tensors: `__metadata__` first, then the tensors in
// the order given. Data is laid out by decreasing element size (stable among equals), so that
// with the 8-byte padded header every tensor is aligned to its element size. Validates the
// names (distinct, UTF-8, not "__metadata__"), the dtypes (C128 only when allowed), the
// devices (host only) and the metadata (UTF-8).
std::string safetensors_header(const std::vector<NamedTensor>& tensors,
                               const std::optional<SafetensorsMetadata>& metadata,
                               const SafetensorsSaveOptions& options = {});

// Writes the tensors (host tensors of any layout) to `path`: header padded with spaces to a
// multiple of 8 bytes, then each tensor row-major. Writes a temporary file in the same folder
// and renames it into place, so a failed or interrupted write leaves any previous file as it
// was, and buffers still mapped from that file keep their contents.
void save_safetensors(const std::string& path, const std::vector<NamedTensor>& tensors,
                      const std::optional<SafetensorsMetadata>& metadata,
                      const SafetensorsSaveOptions& options = {});

}  // namespace ndbuf
