// PJRTBuffer external pointers, and host memory that R's garbage collector can see.
#include "r_tensor.h"

#include <R_ext/Utils.h>

#include <memory>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/device_api.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/storage.hpp"
#include "r_memory.h"

namespace pjrt {
namespace {

// Host memory for buffers comes from the core's allocator, outside R's heap, and is counted in
// buffer_memory() so that R collects before dead buffers pile up (r_memory.h). On R's heap (a
// raw vector held until the buffer's finalizer ran) a dead buffer's memory outlived the
// collection that found it dead and R grew its heap limit for it: 30 creations of 100 MB held
// +2.2 GB. Only R's main thread asks R to collect; other threads (the processes of a
// many-device run) allocate and count. The deleter may run on any thread.
std::shared_ptr<ndbuf::Storage> r_host_allocator(size_t nbytes, ndbuf::Device device) {
  if (on_r_thread()) {
    buffer_memory().make_room(nbytes);
    collect_before_fresh_pages(nbytes);
  }
  const ndbuf::HostBlock block = ndbuf::acquire_host_block(nbytes);
  // The block's address is what the deleter is called with: two sizes captured fit
  // std::function's inline storage, so the deleter allocates nothing.
  const auto release = [capacity = block.capacity, nbytes](void* data) {
    ndbuf::release_host_block({data, capacity});
    buffer_memory().remove(nbytes);
  };
  buffer_memory().add(nbytes);
  try {
    return std::make_shared<ndbuf::Storage>(block.data, nbytes, device, release, false);
  } catch (...) {
    release(block.data);
    throw;
  }
}

// Called by the core once when a device (GPU) allocation runs out of memory, before its one
// retry: a full collection runs the finalizers of unreachable buffers, which frees their device
// memory. Device allocations happen in bindings, on the main thread.
void r_reclaim_memory() { collect_garbage(); }

// Stored in a released buffer's protected field: it was donated to a program.
const char* kDonatedMark = "donated";

const char* buffer_cleared_message(SEXP mark) {
  if (pjrt::has_mark(mark, kDonatedMark)) {
    return "This PJRTBuffer was donated to a program's result and can no longer be used "
           "(called on deleted or donated buffer).";
  }
  return "This PJRTBuffer is no longer valid (it was saved and restored, or released).";
}

const ObjectClass kBuffer{"PJRTBuffer", "Expected a PJRTBuffer.", buffer_cleared_message};

void check_user_interrupt(void*) { R_CheckUserInterrupt(); }

// True when the user pressed Ctrl-C: R_ToplevelExec contains the longjmp R_CheckUserInterrupt
// makes, so C++ frames are never jumped over; the core then throws its Interrupted error,
// which unwinds normally and which with_core() (R/conditions.R) turns into a real interrupt.
bool r_interrupt_pending() { return R_ToplevelExec(check_user_interrupt, nullptr) == FALSE; }

// What a pending result's holder has in place of its tensor until it is read: a tensor of the
// result's type and device over no memory (a storage whose address is null), so that its dtype,
// shape and device are known without waiting. Every read of the values resolves it first.
ndbuf::Tensor placeholder_tensor(const ndbuf::program::TensorType& type, ndbuf::Device device) {
  const size_t nbytes =
      static_cast<size_t>(ndbuf::checked_numel(type.shape)) * ndbuf::itemsize(type.dtype);
  auto nothing = std::make_shared<ndbuf::Storage>(
      nullptr, nbytes, device, [](void*) {}, true);
  return ndbuf::Tensor::dense(std::move(nothing), type.dtype, type.shape, ndbuf::Order::kRowMajor);
}

// Waits for a pending result (rethrowing its run's error) and takes it into the holder.
void resolve(BufferHolder& holder) {
  if (!holder.pending) return;
  holder.tensor = holder.pending->take(holder.pending_index);
  holder.pending.reset();
}

}  // namespace

CountedBytes::CountedBytes(size_t nbytes) : nbytes_(nbytes) {
  if (nbytes_ > 0) buffer_memory().add(nbytes_);
}

CountedBytes& CountedBytes::operator=(CountedBytes&& other) noexcept {
  if (this != &other) {
    if (nbytes_ > 0) buffer_memory().remove(nbytes_);
    nbytes_ = other.nbytes_;
    other.nbytes_ = 0;
  }
  return *this;
}

CountedBytes::~CountedBytes() {
  if (nbytes_ > 0) buffer_memory().remove(nbytes_);
}

SEXP wrap_buffer(ndbuf::Tensor tensor) {
  return wrap_object(kBuffer, BufferHolder{std::move(tensor), 0, nullptr, 0, CountedBytes()});
}

SEXP wrap_buffers(std::vector<ndbuf::Tensor> tensors) {
  std::vector<std::unique_ptr<BufferHolder>> holders;
  holders.reserve(tensors.size());
  for (ndbuf::Tensor& tensor : tensors) {
    holders.push_back(std::make_unique<BufferHolder>(
        BufferHolder{std::move(tensor), 0, nullptr, 0, CountedBytes()}));
  }
  return wrap_objects(kBuffer, std::move(holders));
}

SEXP wrap_pending_buffers(std::shared_ptr<ndbuf::PendingTensors> pending,
                          const std::vector<ndbuf::program::TensorType>& types,
                          ndbuf::Device device) {
  std::vector<ndbuf::Tensor> placeholders;
  for (const auto& type : types) placeholders.push_back(placeholder_tensor(type, device));
  std::vector<std::unique_ptr<BufferHolder>> holders;
  holders.reserve(types.size());
  for (size_t k = 0; k < types.size(); ++k) {
    const size_t nbytes = placeholders[k].storage()->nbytes();
    holders.push_back(std::make_unique<BufferHolder>(
        BufferHolder{std::move(placeholders[k]), 0, pending, k, CountedBytes(nbytes)}));
  }
  return wrap_objects(kBuffer, std::move(holders));
}

void make_room_for_results(const std::vector<ndbuf::program::TensorType>& types) {
  size_t total = 0;
  for (const auto& type : types) {
    total += static_cast<size_t>(ndbuf::checked_numel(type.shape)) * ndbuf::itemsize(type.dtype);
  }
  buffer_memory().make_room(total);
  for (const auto& type : types) {
    collect_before_queued_results(static_cast<size_t>(ndbuf::checked_numel(type.shape)) *
                                  ndbuf::itemsize(type.dtype));
  }
}

const ndbuf::Tensor& buffer_metadata(SEXP x) {
  const BufferHolder& holder = unwrap_object<BufferHolder>(x, kBuffer);
  if (!holder.pending) ndbuf::check_mapping_intact(holder.tensor.storage()->data());
  return holder.tensor;
}

bool buffer_ready(SEXP x) {
  const BufferHolder& holder = unwrap_object<BufferHolder>(x, kBuffer);
  return !holder.pending || holder.pending->ready();
}

BufferHolder& unwrap_buffer_holder(SEXP x) {
  BufferHolder& holder = unwrap_object<BufferHolder>(x, kBuffer);
  resolve(holder);
  ndbuf::check_mapping_intact(holder.tensor.storage()->data());
  return holder;
}

const ndbuf::Tensor& unwrap_buffer(SEXP x) { return unwrap_buffer_holder(x).tensor; }

// A pending result whose wait fails (its run's error, an interrupt) is left to
// unwrap_buffer_holder() to report: this never throws.
BufferHolder* find_buffer_holder(SEXP x) {
  BufferHolder* holder = find_object<BufferHolder>(x, kBuffer);
  if (holder == nullptr || !holder->pending) return holder;
  try {
    resolve(*holder);
  } catch (...) {
    return nullptr;
  }
  return holder;
}

const ndbuf::Tensor* find_buffer(SEXP x) {
  const BufferHolder* holder = find_buffer_holder(x);
  return holder == nullptr ? nullptr : &holder->tensor;
}

bool is_buffer(SEXP x) { return is_object(x, kBuffer); }

void release_donated_buffer(SEXP x) { invalidate_object<BufferHolder>(x, kBuffer, kDonatedMark); }

}  // namespace pjrt

[[cpp11::init]] void pjrt_install_host_allocator(DllInfo* dll) {
  (void)dll;
  pjrt::mark_r_thread();
  ndbuf::set_host_allocator(&pjrt::r_host_allocator);
  ndbuf::set_interrupt_poll(&pjrt::r_interrupt_pending);
  ndbuf::set_memory_reclaimer(&pjrt::r_reclaim_memory);
}
