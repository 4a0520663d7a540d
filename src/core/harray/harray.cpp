// HArray: views with R's axes reversed and the share groups behind is_unique().
#include "ndbuf/harray/harray.hpp"

#include <charconv>
#include <cstdint>
#include <mutex>
#include <unordered_map>

#include "ndbuf/base/error.hpp"
#include "ndbuf/convert/convert.hpp"
#include "ndbuf/memory/transfer.hpp"

namespace ndbuf {

// One per block of memory with live HArrays, found by the block's address: every HArray over it
// holds a shared_ptr to the group, so its use count is the number of live HArrays. The registry
// finds the group for HArrays made separately over the block, through one Storage or through
// several that share it (the results of a many-device all_reduce, Storage::shared_result()).
// The block cannot be freed (and its address reused) while a group for it lives, since each
// member holds a storage that keeps it.
class ShareGroup {
 public:
  explicit ShareGroup(const void* block) : block_(block) {}
  ~ShareGroup();
  ShareGroup(const ShareGroup&) = delete;
  ShareGroup& operator=(const ShareGroup&) = delete;

  static std::shared_ptr<ShareGroup> of(const void* block);

 private:
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static std::unordered_map<const void*, std::weak_ptr<ShareGroup>>& registry() {
    static auto* map = new std::unordered_map<const void*, std::weak_ptr<ShareGroup>>();
    return *map;  // never destroyed: groups may die during static destruction
  }

  const void* block_;
};

ShareGroup::~ShareGroup() {
  std::lock_guard<std::mutex> lock(mutex());
  auto& map = registry();
  const auto it = map.find(block_);
  // A new group may already have replaced this one after it expired.
  if (it != map.end() && it->second.expired()) map.erase(it);
}

std::shared_ptr<ShareGroup> ShareGroup::of(const void* block) {
  std::lock_guard<std::mutex> lock(mutex());
  std::weak_ptr<ShareGroup>& slot = registry()[block];
  std::shared_ptr<ShareGroup> group = slot.lock();
  if (!group) {
    group = std::make_shared<ShareGroup>(block);
    slot = group;
  }
  return group;
}

bool is_harray_dtype(DType dtype) noexcept {
  return dtype == DType::kF32 || dtype == DType::kF64 || dtype == DType::kC64 ||
         dtype == DType::kC128;
}

HArray::HArray(Tensor tensor) : tensor_(std::move(tensor)) {
  if (!is_harray_dtype(tensor_.dtype())) {
    fail(ErrorKind::kInvalidArgument,
         "An HArray holds Float32 (f32), Float64 (f64), Complex32 (c64) or Complex64 (c128) "
         "elements, not " +
             std::string(dtype_name(tensor_.dtype())) + ".");
  }
  // An empty block has no address of its own (R gives every empty vector the same one).
  const Storage& storage = *tensor_.storage();
  group_ = ShareGroup::of(storage.nbytes() > 0 ? storage.data() : &storage);
}

HArray HArray::from_buffer(const Tensor& buffer) {
  if (!is_host(buffer.device())) {
    fail(ErrorKind::kDevice, "An HArray lives in host memory, but the buffer is on " +
                                 device_label(buffer.device()) +
                                 "; copy it to the CPU first (copy_buffer(x, \"cpu\")).");
  }
  return HArray(buffer.reversed_axes());
}

HArray HArray::slice(const SliceSpec& spec) const {
  HArray view = *this;
  view.tensor_ = ::ndbuf::slice(tensor_, spec);
  return view;
}

bool HArray::is_unique() const noexcept { return group_.use_count() == 1; }

std::string HArray::mem_address() const {
  char buf[2 + 2 * sizeof(uintptr_t)];
  const auto address = reinterpret_cast<uintptr_t>(tensor_.data());
  const auto result = std::to_chars(buf, buf + sizeof buf, address, 16);
  return "0x" + std::string(buf, result.ptr);
}

Tensor HArray::to_buffer() const {
  const Tensor reversed = tensor_.reversed_axes();
  if (reversed.is_contiguous(Order::kColumnMajor)) {
    // Canonical strides: a view may carry any stride (or sign) on its length-1 axes.
    return Tensor(reversed.storage(), reversed.dtype(), reversed.shape(),
                  contiguous_strides(reversed.shape(), Order::kColumnMajor), reversed.offset());
  }
  Tensor dense =
      Tensor::allocate(reversed.dtype(), reversed.shape(), Order::kColumnMajor, reversed.device());
  copy_to_dense(reversed, dense.data(), Order::kColumnMajor);
  return dense;
}

void copy_to_r_row_major(const Tensor& tensor, void* out) {
  tensor_to_r(tensor, out, Order::kRowMajor);
}

}  // namespace ndbuf
