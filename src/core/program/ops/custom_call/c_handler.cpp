// Custom-call targets that call a C handler (inst/include/pjrt_custom_call.h): operands are
// copied into the layouts the op declares (unless already laid out so), results allocated in
// theirs, and the handler called with a frame describing both.
#include <cstring>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/copy.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "ndbuf/program/custom_call.hpp"
#include "pjrt_custom_call.h"

namespace ndbuf::program {
namespace {

int32_t dtype_code(DType dtype) {
  static constexpr std::pair<DType, int32_t> kCodes[] = {
      {DType::kPred, PJRT_CC_PRED},     {DType::kI8, PJRT_CC_I8},
      {DType::kI16, PJRT_CC_I16},       {DType::kI32, PJRT_CC_I32},
      {DType::kI64, PJRT_CC_I64},       {DType::kU8, PJRT_CC_U8},
      {DType::kU16, PJRT_CC_U16},       {DType::kU32, PJRT_CC_U32},
      {DType::kU64, PJRT_CC_U64},       {DType::kF16, PJRT_CC_F16},
      {DType::kBF16, PJRT_CC_BF16},     {DType::kF32, PJRT_CC_F32},
      {DType::kF64, PJRT_CC_F64},       {DType::kC64, PJRT_CC_C64},
      {DType::kC128, PJRT_CC_C128},     {DType::kF8E4M3FN, PJRT_CC_F8E4M3FN},
      {DType::kF8E5M2, PJRT_CC_F8E5M2},
  };
  for (const auto& [d, code] : kCodes) {
    if (d == dtype) return code;
  }
  return 0;
}

// Strides (in elements) of a dense array of `shape` in the minor-to-major `layout`.
Strides layout_strides(const Shape& shape, const std::vector<int64_t>& layout) {
  Strides strides(shape.size(), 1);
  int64_t step = 1;
  for (int64_t axis : layout) {
    strides[static_cast<size_t>(axis)] = step;
    step *= shape[static_cast<size_t>(axis)] > 0 ? shape[static_cast<size_t>(axis)] : 1;
  }
  return strides;
}

Tensor allocate_in_layout(DType dtype, const Shape& shape, const std::vector<int64_t>& layout) {
  const Tensor dense = Tensor::allocate(dtype, shape, Order::kRowMajor);
  return Tensor(dense.storage(), dtype, shape, layout_strides(shape, layout));
}

Tensor in_layout(const Tensor& t, const std::vector<int64_t>& layout) {
  const Strides want = layout_strides(t.shape(), layout);
  if (t.numel() == 0 || t.strides() == want) return t;
  Tensor out = allocate_in_layout(t.dtype(), t.shape(), layout);
  copy_elements(t.data(), t.strides(), out.data(), want, t.shape(), itemsize(t.dtype()));
  return out;
}

// The frame's strings and arrays, kept alive for the duration of one call.
struct FrameData {
  std::vector<pjrt_custom_call_attribute> attributes;
  std::vector<pjrt_custom_call_buffer> operands, results;
};

pjrt_custom_call_buffer describe(const Tensor& t, const std::vector<int64_t>& layout) {
  return {t.numel() == 0 ? nullptr : t.data(), dtype_code(t.dtype()),
          static_cast<int32_t>(t.rank()), t.shape().data(), layout.data()};
}

std::vector<pjrt_custom_call_attribute> frame_attributes(const CustomCallSite& site) {
  std::vector<pjrt_custom_call_attribute> out;
  for (const CustomCallAttribute& a : site.attributes) {
    pjrt_custom_call_attribute c{a.name.c_str(), 0, a.integer, a.number, ""};
    switch (a.kind) {
      case CustomCallAttribute::Kind::kInt:
        c.kind = PJRT_CC_ATTR_INT;
        break;
      case CustomCallAttribute::Kind::kFloat:
        c.kind = PJRT_CC_ATTR_FLOAT;
        break;
      case CustomCallAttribute::Kind::kBool:
        c.kind = PJRT_CC_ATTR_BOOL;
        break;
      case CustomCallAttribute::Kind::kString:
        c.kind = PJRT_CC_ATTR_STRING;
        c.string = a.text.c_str();
        break;
    }
    out.push_back(c);
  }
  return out;
}

void check_pred_results(const CustomCallSite& site, const std::vector<Tensor>& results) {
  for (size_t k = 0; k < results.size(); ++k) {
    const Tensor& t = results[k];
    if (t.dtype() != DType::kPred || t.numel() == 0) continue;
    // Dense in some layout: the storage's bytes are the elements in some order.
    const auto* bytes = static_cast<const uint8_t*>(t.data());
    if (first_invalid_pred_byte(bytes, t.numel()) >= 0) {
      fail(ErrorKind::kInvalidArgument, "custom call @" + site.target + " wrote a pred result " +
                                            std::to_string(k + 1) +
                                            " with bytes other than 0 and 1");
    }
  }
}

std::vector<Tensor> call_handler(void* address, const std::shared_ptr<const CustomCallSite>& site,
                                 const std::vector<Tensor>& args) {
  if (!is_loaded_code_address(address)) {
    fail(ErrorKind::kInvalidArgument, "custom call @" + site->target +
                                          ": the handler's code is no longer loaded (was its "
                                          "library unloaded?); register it again");
  }
  const auto handler = reinterpret_cast<pjrt_custom_call_handler>(address);
  FrameData data;
  data.attributes = frame_attributes(*site);
  std::vector<Tensor> operands, results;
  for (size_t k = 0; k < args.size(); ++k) {
    operands.push_back(in_layout(to_host(args[k]), site->operand_layouts[k]));
    data.operands.push_back(describe(operands.back(), site->operand_layouts[k]));
  }
  for (size_t k = 0; k < site->results.size(); ++k) {
    const TensorType& type = site->results[k];
    results.push_back(allocate_in_layout(type.dtype, type.shape, site->result_layouts[k]));
    data.results.push_back(describe(results.back(), site->result_layouts[k]));
  }
  char error[PJRT_CC_ERROR_CAPACITY] = {0};
  const pjrt_custom_call_frame frame{PJRT_CUSTOM_CALL_ABI_VERSION,
                                     site->target.c_str(),
                                     site->api_version,
                                     site->has_side_effect ? 1 : 0,
                                     static_cast<int32_t>(args.size()),
                                     data.operands.data(),
                                     static_cast<int32_t>(results.size()),
                                     data.results.data(),
                                     static_cast<int32_t>(data.attributes.size()),
                                     data.attributes.data(),
                                     site->backend_config.c_str(),
                                     error};
  if (handler(&frame) != 0) {
    error[PJRT_CC_ERROR_CAPACITY - 1] = '\0';
    const std::string message = error[0] != '\0' ? error : "(no message)";
    fail(ErrorKind::kInvalidArgument, "custom call @" + site->target + " failed: " + message);
  }
  check_pred_results(*site, results);
  for (Tensor& t : results) {
    if (!t.is_contiguous(Order::kRowMajor)) t = make_dense(t, Order::kRowMajor);
  }
  return results;
}

}  // namespace

CustomCallTarget c_handler_target(void* handler) {
  if (handler == nullptr) fail(ErrorKind::kInvalidArgument, "the handler is a null pointer");
  if (!is_loaded_code_address(handler)) {
    fail(ErrorKind::kInvalidArgument,
         "the handler is not the address of a function in a loaded shared library");
  }
  return [handler](const CustomCallSite& site) -> CustomCallKernel {
    auto shared = std::make_shared<const CustomCallSite>(site);
    for (const auto* list : {&site.operands, &site.results}) {
      for (const TensorType& t : *list) {
        if (dtype_code(t.dtype) == 0) {
          fail(ErrorKind::kInvalidArgument, "element type " + std::string(dtype_name(t.dtype)) +
                                                " cannot be passed to a C handler");
        }
      }
    }
    return [handler, shared](const std::vector<Tensor>& args) {
      return call_handler(handler, shared, args);
    };
  };
}

}  // namespace ndbuf::program
