// How ndbuf tensors cross into R: a PJRTBuffer is an external pointer to a heap-allocated
// BufferHolder, whose ndbuf::Tensor shares its storage through std::shared_ptr, with class
// "PJRTBuffer".
#pragma once

#include <cpp11.hpp>
#include <vector>

#include "ndbuf/convert/buffer.hpp"
#include "ndbuf/io/mapped_file.hpp"
#include "ndbuf/memory/device_queue.hpp"
#include "ndbuf/memory/tensor.hpp"
#include "ndbuf/program/program.hpp"
#include "r_object.h"

namespace pjrt {

// What a PJRTBuffer owns: its tensor, and the dense row-major copy of it that runs of
// programs reading it by rows use once it was asked for twice (r_layout_copy.cpp).
// Bytes counted in buffer_memory() for as long as it lives (moving it moves the count): the
// results of an asynchronous run, whose memory the run's thread allocates where R's allocator
// (which counts what it hands out) is not asked.
class CountedBytes {
 public:
  explicit CountedBytes(size_t nbytes = 0);
  CountedBytes(CountedBytes&& other) noexcept : nbytes_(other.nbytes_) { other.nbytes_ = 0; }
  CountedBytes& operator=(CountedBytes&& other) noexcept;
  CountedBytes(const CountedBytes&) = delete;
  CountedBytes& operator=(const CountedBytes&) = delete;
  ~CountedBytes();

 private:
  size_t nbytes_;
};

// A result of an asynchronous run holds its run's PendingTensors until first read: every
// accessor below waits for it (or throws the run's error) and moves the result into `tensor`.
struct BufferHolder {
  ndbuf::Tensor tensor;
  int row_major_requests;  // runs that read it by rows while it was stored in another layout
  std::shared_ptr<ndbuf::PendingTensors> pending;
  size_t pending_index;
  CountedBytes counted;
};

// Wraps a tensor as a PJRTBuffer; the finalizer frees the tensor when R collects it.
SEXP wrap_buffer(ndbuf::Tensor tensor);
// Wraps tensors as an unnamed list of PJRTBuffers.
SEXP wrap_buffers(std::vector<ndbuf::Tensor> tensors);
// The results of an asynchronous run (of `types`, on `device`) as an unnamed list of
// PJRTBuffers, not yet ready.
SEXP wrap_pending_buffers(std::shared_ptr<ndbuf::PendingTensors> pending,
                          const std::vector<ndbuf::program::TensorType>& types,
                          ndbuf::Device device);
// Before an asynchronous run of results of `types` is queued: R collects as its allocator
// would before handing that memory out (r_host_allocator()), on R's thread, since the run's
// thread allocates it where R is not asked. wrap_pending_buffers() then counts it.
void make_room_for_results(const std::vector<ndbuf::program::TensorType>& types);
// The dtype, shape and device of a PJRTBuffer without waiting for a pending result (its values
// are not there: read them through unwrap_buffer()); an R error for anything else.
const ndbuf::Tensor& buffer_metadata(SEXP x);
// Whether a live PJRTBuffer's value is there (never waits); an R error for anything else.
bool buffer_ready(SEXP x);
// The tensor behind a PJRTBuffer; an R error for anything else, a cleared pointer, or a
// buffer whose mapped file changed on disk since it was loaded.
const ndbuf::Tensor& unwrap_buffer(SEXP x);
// Frees a PJRTBuffer's tensor now and marks it donated: every later use is the error "called
// on deleted or donated buffer". Releasing an already released buffer does nothing.
void release_donated_buffer(SEXP x);

// A buffer over (or converted from) the logical, integer, double or complex vector `data`.
ndbuf::BufferFromR buffer_from_vector(SEXP data, bool integer64, ndbuf::DType type,
                                      const ndbuf::Shape& shape, ndbuf::MissingCheck check,
                                      const ndbuf::Device& target);
// R's default shape of `data`: its dims, else its length; false when that length does not fit
// one dimension (the R layer words that error).
bool default_shape_of(SEXP data, ndbuf::Shape* shape);

// The tensor behind a live PJRTBuffer, or nullptr for anything else; never an error.
const ndbuf::Tensor* find_buffer(SEXP x);
// Whether `x` is a PJRTBuffer made here (live, pending or cleared); never an error, never waits.
bool is_buffer(SEXP x);
// The holder behind a live PJRTBuffer, or nullptr for anything else; never an error.
BufferHolder* find_buffer_holder(SEXP x);
// The holder behind a PJRTBuffer, with unwrap_buffer()'s errors.
BufferHolder& unwrap_buffer_holder(SEXP x);

// Made before a binding reads buffers and checked after: a file truncated under a mapped
// buffer reads as zeros, and this turns that read into an error instead of a wrong result.
class MappedReadCheck {
 public:
  void done() const { ndbuf::check_no_mapping_faults(before_); }

 private:
  uint64_t before_ = ndbuf::mapping_fault_count();
};

}  // namespace pjrt
