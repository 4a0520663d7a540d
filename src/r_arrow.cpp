// Buffers as Arrow C data interface arrays and back (the nanoarrow interop in R/arrow.R).
#include <cpp11.hpp>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ndbuf/base/dtype.hpp"
#include "ndbuf/base/shape.hpp"
#include "ndbuf/convert/buffer.hpp"
#include "ndbuf/io/mapped_file.hpp"
#include "ndbuf/memory/device.hpp"
#include "ndbuf/memory/storage.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "r_tensor.h"

// The struct of the Arrow C data interface (an ABI fixed by its specification); the guard is
// the one the specification prescribes, so another definition of it is never duplicated.
#ifndef ARROW_C_DATA_INTERFACE
#define ARROW_C_DATA_INTERFACE
struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void** buffers;
  struct ArrowArray** children;
  struct ArrowArray* dictionary;
  void (*release)(struct ArrowArray*);
  void* private_data;
};
#endif

namespace {

// One level of an exported array: a primitive (leaf) array over the storage, or a fixed-size
// list whose one child is the next level. Owns the child's struct and holds the storage.
struct ExportedLevel {
  std::shared_ptr<ndbuf::Storage> storage;
  const void* buffers[2] = {nullptr, nullptr};
  ArrowArray child{};
  ArrowArray* children[1] = {nullptr};
};

// Storage may wrap R memory, which only R's main thread may release: levels released on
// another thread (a consumer's worker) wait here until the next export or import.
const std::thread::id g_main_thread = std::this_thread::get_id();
std::mutex g_released_mutex;
std::vector<ExportedLevel*> g_released_elsewhere;

void release_level(ArrowArray* array) {
  auto* level = static_cast<ExportedLevel*>(array->private_data);
  if (array->n_children > 0 && level->child.release != nullptr) level->child.release(&level->child);
  array->release = nullptr;
  if (std::this_thread::get_id() == g_main_thread) {
    delete level;
    return;
  }
  const std::lock_guard<std::mutex> lock(g_released_mutex);
  g_released_elsewhere.push_back(level);
}

void free_released_elsewhere() {
  std::vector<ExportedLevel*> levels;
  {
    const std::lock_guard<std::mutex> lock(g_released_mutex);
    levels.swap(g_released_elsewhere);
  }
  for (ExportedLevel* level : levels) delete level;
}

// Fills `out` for the dims dims[0..count) (R's order: the last dim is the outermost level),
// `outer` items of the enclosing levels long.
void export_levels(ArrowArray* out, const std::shared_ptr<ndbuf::Storage>& storage,
                   const void* data, const ndbuf::Shape& dims, size_t count, int64_t outer) {
  auto level = std::make_unique<ExportedLevel>();
  level->storage = storage;
  std::memset(out, 0, sizeof *out);
  out->length = count == 0 ? 1 : dims[count - 1] * outer;
  out->n_buffers = count <= 1 ? 2 : 1;
  out->buffers = level->buffers;
  if (count > 1) {
    export_levels(&level->child, storage, data, dims, count - 1, out->length);
    level->children[0] = &level->child;
    out->n_children = 1;
    out->children = level->children;
  } else {
    level->buffers[1] = data;
  }
  out->release = release_level;
  out->private_data = level.release();
}

// pred bytes (0/1) packed into Arrow's bitmap, least significant bit first.
std::shared_ptr<ndbuf::Storage> pack_bits(const uint8_t* bytes, int64_t count) {
  const auto nbytes = static_cast<size_t>((count + 7) / 8);
  auto storage = ndbuf::allocate_host(nbytes == 0 ? 1 : nbytes);
  auto* bits = static_cast<uint8_t*>(storage->data());
  std::memset(bits, 0, nbytes == 0 ? 1 : nbytes);
  for (int64_t i = 0; i < count; ++i) {
    if (bytes[i] != 0) bits[i / 8] = static_cast<uint8_t>(bits[i / 8] | (1u << (i % 8)));
  }
  return storage;
}

void release_holder(SEXP holder) {
  auto* array = static_cast<ArrowArray*>(R_ExternalPtrAddr(holder));
  if (array == nullptr) return;
  if (array->release != nullptr) array->release(array);
  delete array;
  R_ClearExternalPtr(holder);
}

// The tensor in R's column-major order in host memory ndbuf owns: `tensor` itself when it
// already is, else a copy (a mapped file could change underneath the consumer).
ndbuf::Tensor exportable(const ndbuf::Tensor& tensor) {
  const bool viewable = ndbuf::is_host(tensor.device()) &&
                        tensor.is_contiguous(ndbuf::Order::kColumnMajor) &&
                        !ndbuf::lies_in_mapped_file(tensor.storage()->data());
  if (viewable) return tensor;
  return ndbuf::copy_to(tensor, ndbuf::Device{}, ndbuf::Order::kColumnMajor);
}

}  // namespace

// An external pointer to an ArrowArray over the buffer's memory (pred: a packed copy), to be
// moved into a nanoarrow array (its address is ffi_arrow_address()); R/arrow.R checks the
// dtype and builds the schema. Fixed-size lists nest one level per dim after the first.
[[cpp11::register]] SEXP ffi_buffer_to_arrow(SEXP buffer) {
  return pjrt::call_core([&] {
    free_released_elsewhere();
    const pjrt::MappedReadCheck reads;
    const ndbuf::Tensor tensor = exportable(pjrt::unwrap_buffer(buffer));
    reads.done();
    std::shared_ptr<ndbuf::Storage> storage = tensor.storage();
    const void* data = tensor.data();
    if (tensor.dtype() == ndbuf::DType::kPred) {
      storage = pack_bits(static_cast<const uint8_t*>(data), tensor.numel());
      data = storage->data();
    }
    auto array = std::make_unique<ArrowArray>();
    std::memset(array.get(), 0, sizeof(ArrowArray));
    const cpp11::sexp holder = cpp11::safe[R_MakeExternalPtr](array.get(), R_NilValue, R_NilValue);
    cpp11::safe[R_RegisterCFinalizerEx](holder, release_holder, FALSE);
    ArrowArray* out = array.release();
    export_levels(out, storage, data, tensor.shape(), tensor.shape().size(), 1);
    return static_cast<SEXP>(holder);
  });
}

// The address of the ArrowArray behind ffi_buffer_to_arrow()'s pointer, as nanoarrow reads it.
[[cpp11::register]] SEXP ffi_arrow_address(SEXP holder) {
  return pjrt::call_core([&] {
    if (TYPEOF(holder) != EXTPTRSXP || R_ExternalPtrAddr(holder) == nullptr) {
      pjrt::fail_argument("Expected an exported Arrow array.");
    }
    return std::to_string(reinterpret_cast<uintptr_t>(R_ExternalPtrAddr(holder)));
  });
}

namespace {

bool bit_set(const void* bitmap, int64_t i) {
  return (static_cast<const uint8_t*>(bitmap)[i / 8] >> (i % 8)) & 1;
}

// Refuses nulls in [first, first + count) of one level of an imported array.
void check_no_nulls(const ArrowArray* array, int64_t first, int64_t count) {
  if (array->null_count == 0 || array->n_buffers < 1 || array->buffers[0] == nullptr) return;
  for (int64_t i = first; i < first + count; ++i) {
    if (!bit_set(array->buffers[0], i)) {
      pjrt::fail_argument("The Arrow array has null values; a buffer cannot hold them.");
    }
  }
}

// The imported array's values as one run [first, first + count) of its innermost array, after
// checking that no level has nulls in the part the buffer covers.
const ArrowArray* innermost(const ArrowArray* array, const ndbuf::Shape& shape, int64_t* first) {
  int64_t start = 0;  // of this level's part, not counting the level's own offset
  int64_t items = shape.empty() ? 1 : shape.back();
  for (size_t level = shape.size();; --level) {
    if (array->offset < 0 || start + items > array->length) {
      pjrt::fail_argument("The Arrow array is shorter than its type says.");
    }
    check_no_nulls(array, array->offset + start, items);
    if (level <= 1) break;
    if (array->n_children != 1 || array->children[0] == nullptr) {
      pjrt::fail_argument("The Arrow array does not have the nested lists its type declares.");
    }
    const int64_t size = shape[level - 2];
    start = (array->offset + start) * size;
    items *= size;
    array = array->children[0];
  }
  if (items > 0 && (array->n_buffers != 2 || array->buffers[1] == nullptr)) {
    pjrt::fail_argument("The Arrow array has no data buffer.");
  }
  *first = array->offset + start;
  return array;
}

// Storage over an imported array's memory, holding the R object that owns it.
std::shared_ptr<ndbuf::Storage> alias_array(SEXP owner, const void* data, size_t nbytes) {
  auto keep = std::make_unique<cpp11::sexp>(owner);
  cpp11::sexp* held = keep.get();
  auto storage = std::make_shared<ndbuf::Storage>(
      const_cast<void*>(data), nbytes, ndbuf::Device{}, [held](void*) { delete held; }, true);
  keep.release();
  return storage;
}

ndbuf::Tensor unpack_bits(const void* bitmap, int64_t first, const ndbuf::Shape& shape) {
  ndbuf::Tensor out = ndbuf::Tensor::dense(
      ndbuf::allocate_host(static_cast<size_t>(ndbuf::checked_numel(shape)) + 1),
      ndbuf::DType::kPred, shape, ndbuf::Order::kColumnMajor);
  auto* bytes = static_cast<uint8_t*>(out.data());
  for (int64_t i = 0; i < out.numel(); ++i) bytes[i] = bit_set(bitmap, first + i) ? 1 : 0;
  return out;
}

}  // namespace

// A buffer of `dtype` and R `shape` from a nanoarrow array whose type R/arrow.R checked:
// nested fixed-size lists (one level per dim after the first) over a primitive array. Shares
// the array's memory (pred: unpacked from bits); the array object stays alive meanwhile.
[[cpp11::register]] SEXP ffi_buffer_from_arrow(SEXP array, std::string dtype,
                                               cpp11::integers shape) {
  return pjrt::call_core([&] {
    free_released_elsewhere();
    const auto* root = TYPEOF(array) == EXTPTRSXP
                           ? static_cast<const ArrowArray*>(R_ExternalPtrAddr(array))
                           : nullptr;
    if (root == nullptr || root->release == nullptr) {
      pjrt::fail_argument("Expected a valid nanoarrow array.");
    }
    const ndbuf::DType type = ndbuf::parse_dtype_or_throw(dtype);
    const ndbuf::Shape dims = pjrt::shape_from_r(shape);
    int64_t first = 0;
    const ArrowArray* leaf = innermost(root, dims, &first);
    if (type == ndbuf::DType::kPred) {
      return pjrt::wrap_buffer(unpack_bits(leaf->buffers[1], first, dims));
    }
    const size_t itemsize = ndbuf::itemsize(type);
    const auto nbytes = static_cast<size_t>(ndbuf::checked_numel(dims)) * itemsize;
    if (nbytes == 0) return pjrt::wrap_buffer(ndbuf::buffer_empty(type, dims, ndbuf::Device{}));
    const char* base = static_cast<const char*>(leaf->buffers[1]);
    const void* data = base + static_cast<size_t>(first) * itemsize;
    return pjrt::wrap_buffer(ndbuf::Tensor::dense(alias_array(array, data, nbytes), type, dims,
                                                  ndbuf::Order::kColumnMajor));
  });
}
