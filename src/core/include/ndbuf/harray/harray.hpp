// The object behind harmonium's HArray: a tensor whose axes are the R dims reversed (a
// row-major view of R's column-major memory), plus membership in a share group that counts the
// live HArrays over the same storage, so that is_unique() can answer without a registry of R
// objects. Slices and clones are O(rank): they share the storage and join the group.
//
// HArray element types are f32 (Float32), f64 (Float64), c64 (Complex32) and c128 (Complex64).
#pragma once

#include <memory>
#include <string>

#include "ndbuf/harray/slice.hpp"
#include "ndbuf/memory/tensor.hpp"

namespace ndbuf {

class ShareGroup;

class HArray {
 public:
  // An HArray over `tensor` (axes already in HArray order). Throws kInvalidArgument for a dtype
  // HArray does not support. Joins the share group of the tensor's storage, so HArrays made
  // separately over the same storage (new_from_buffer twice on one buffer) see each other.
  explicit HArray(Tensor tensor);

  // The HArray of a buffer: the same memory with the buffer's (R) axes reversed. Throws
  // kDevice for a buffer outside host memory.
  static HArray from_buffer(const Tensor& buffer);

  const Tensor& tensor() const noexcept { return tensor_; }

  HArray clone() const { return *this; }
  HArray slice(const SliceSpec& spec) const;

  // True when no other live HArray shares this one's storage.
  bool is_unique() const noexcept;
  // C-contiguous, ignoring length-1 axes; an empty array is standard.
  bool is_standard_layout() const { return tensor_.is_contiguous(Order::kRowMajor); }
  // "0x" and the lowercase hex address of the first element.
  std::string mem_address() const;

  // The buffer view of this HArray: R dims (axes reversed), dense column-major. Shares the
  // memory when the HArray is C-contiguous (any offset), else copies the elements once.
  Tensor to_buffer() const;

 private:
  Tensor tensor_;
  std::shared_ptr<ShareGroup> group_;
};

// True for the dtypes an HArray can hold.
bool is_harray_dtype(DType dtype) noexcept;

// Writes the elements of `tensor` in row-major (C) order as R stores them
// (r_vector_type_for(dtype): double for the real float types, re/im double pairs for complex)
// at `out`, which holds numel() of them. For an HArray this is collect(): R's column-major
// array of dim rev(shape) holds exactly the HArray's C-order elements. One pass over the data
// for f64 and c128, however the view is strided.
void copy_to_r_row_major(const Tensor& tensor, void* out);

}  // namespace ndbuf
