// Buffers made from host data: R vectors (converted or aliased) and raw bytes.
#include "ndbuf/convert/buffer.hpp"

#include <cstring>
#include <string>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/copy.hpp"
#include "ndbuf/memory/device_api.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/transfer.hpp"

namespace ndbuf {
namespace {

// "2x3" as pjrt words shapes in this message; beyond kMessageDims dims an elided tuple.
std::string shape_text(const Shape& shape) {
  if (shape.empty()) return "()";
  return shape.size() > kMessageDims ? shape_to_tuple(shape) : shape_to_string(shape);
}

void check_length_matches(int64_t length, int64_t numel, const Shape& shape) {
  if (length == numel || length == 1) return;
  fail(ErrorKind::kInvalidArgument, "Data has length " + std::to_string(length) +
                                        ", but specified shape is " + shape_text(shape));
}

void check_pred_bytes(const uint8_t* bytes, int64_t count) {
  const int64_t i = first_invalid_pred_byte(bytes, count);
  if (i >= 0) {
    throw ConversionError("Byte " + std::to_string(bytes[i]) + " at position " +
                              std::to_string(i + 1) + " is not a valid pred value (0 or 1)",
                          i);
  }
}

}  // namespace

BufferFromR buffer_from_r(const RVectorView& source, DType dtype, const Shape& shape,
                          MissingCheck check, Device device, const AliasStorage& alias) {
  if (!is_host(device)) {
    // Converted (or aliased) on the host exactly as for a CPU device, then uploaded once.
    BufferFromR host = buffer_from_r(source, dtype, shape, check, Device{}, alias);
    host.tensor = copy_to(host.tensor, device, Order::kColumnMajor);
    return host;
  }
  const int64_t numel = checked_numel(shape);
  check_length_matches(source.length, numel, shape);
  check_convertible(source.type, dtype);
  if (is_zero_copy(source.type, dtype) && source.length == numel && alias) {
    const int64_t missing = check_zero_copy_missing(source, dtype, check);
    std::shared_ptr<Storage> storage = alias();
    if (!is_host(storage->device())) {
      fail(ErrorKind::kInvalidArgument, "An R vector can only be aliased by host memory.");
    }
    return {Tensor::dense(std::move(storage), dtype, shape, Order::kColumnMajor), missing};
  }
  Tensor tensor = Tensor::allocate(dtype, shape, Order::kColumnMajor, device);
  convert_from_r(source, dtype, tensor.data(), numel);
  return {std::move(tensor), 0};
}

Tensor buffer_from_bytes(const void* bytes, int64_t nbytes, DType dtype, const Shape& shape,
                         Order order, Device device) {
  const int64_t numel = checked_numel(shape);
  const int64_t needed = checked_nbytes(numel, itemsize(dtype));
  if (nbytes != needed) {
    fail(ErrorKind::kInvalidArgument,
         "Raw data has " + std::to_string(nbytes) + " bytes, but dtype \"" +
             std::string(dtype_name(dtype)) + "\" with shape " + shape_to_tuple(shape) +
             " requires " + std::to_string(needed) + (needed == 1 ? " byte." : " bytes."));
  }
  if (dtype == DType::kPred) check_pred_bytes(static_cast<const uint8_t*>(bytes), numel);
  if (!is_host(device) && order == Order::kColumnMajor) {
    // Already in the buffer's layout: one upload straight from the caller's bytes.
    Tensor tensor = Tensor::allocate(dtype, shape, Order::kColumnMajor, device);
    device_api(device.platform)
        .copy_host_to_device(device.index, tensor.data(), bytes, static_cast<size_t>(nbytes));
    return tensor;
  }
  if (!is_host(device)) {
    return copy_to(buffer_from_bytes(bytes, nbytes, dtype, shape, order, Device{}), device,
                   Order::kColumnMajor);
  }
  Tensor tensor = Tensor::allocate(dtype, shape, Order::kColumnMajor, device);
  copy_elements(bytes, contiguous_strides(shape, order), tensor.data(), tensor.strides(), shape,
                itemsize(dtype));
  return tensor;
}

Tensor buffer_empty(DType dtype, const Shape& shape, Device device) {
  return Tensor::allocate(dtype, shape, Order::kColumnMajor, device);
}

Tensor buffer_copy_to(const Tensor& buffer, Device device) {
  return copy_to(buffer, device, Order::kColumnMajor);
}

}  // namespace ndbuf
