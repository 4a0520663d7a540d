// libFuzzer target for the safetensors reader. Any input must either load or raise an
// ndbuf::Error of kind kFormat; anything else (a crash, a sanitizer report, another exception,
// a large allocation) is a finding. Accepted files are read in full and their header is
// written back out, which exercises the writer's JSON too.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/io/safetensors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // An allocation of exactly `size` bytes, so that AddressSanitizer sees any overread.
  auto file = ndbuf::allocate_host(size);
  if (size > 0) std::memcpy(file->data(), data, size);
  try {
    const ndbuf::SafetensorsContents contents = ndbuf::load_safetensors(file);
    volatile uint8_t sink = 0;
    std::vector<ndbuf::NamedTensor> tensors;
    for (const auto& named : contents.tensors) {
      const auto* p = static_cast<const uint8_t*>(named.tensor.data());
      for (int64_t k = 0; k < named.tensor.nbytes(); ++k) sink = sink ^ p[k];
      tensors.push_back(named);
    }
    ndbuf::SafetensorsSaveOptions options;
    options.allow_c128 = true;
    const std::string header = ndbuf::safetensors_header(tensors, contents.metadata, options);
    if (header.empty()) std::abort();
  } catch (const ndbuf::Error& e) {
    if (e.kind() != ndbuf::ErrorKind::kFormat && e.kind() != ndbuf::ErrorKind::kInvalidArgument) {
      std::abort();
    }
  }
  return 0;
}
