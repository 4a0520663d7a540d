// The cache behind Tensor::dense_geometry(): a direct-mapped table of recent dense geometries,
// one slot per hash of (shape, order), replaced on a miss. A hit costs a lock, a hash and a
// reference count; the table never grows, and a geometry evicted while tensors hold it lives on
// with them (it is shared and immutable).
#include <array>
#include <cstdint>
#include <mutex>

#include "ndbuf/memory/tensor.hpp"

namespace ndbuf {

namespace {

constexpr size_t kSlots = 64;
// Shapes of more axes are rare and made fresh (their hash and compare would cost more).
constexpr size_t kMaxCachedRank = 8;

}  // namespace

struct DenseGeometryCache {
  struct Slot {
    Order order = Order::kRowMajor;
    std::shared_ptr<const Tensor::Geometry> geometry;
  };
  std::mutex mutex;
  std::array<Slot, kSlots> slots;
};

namespace {

DenseGeometryCache& geometry_cache() {
  static auto* cache = new DenseGeometryCache();  // never destroyed: tensors outlive teardown
  return *cache;
}

size_t slot_of(const Shape& shape, Order order) {
  uint64_t hash = 1469598103934665603ULL ^ static_cast<uint64_t>(order);
  for (int64_t extent : shape) {
    hash = (hash ^ static_cast<uint64_t>(extent)) * 1099511628211ULL;
  }
  hash ^= hash >> 29;
  return static_cast<size_t>(hash % kSlots);
}

}  // namespace

std::shared_ptr<const Tensor::Geometry> Tensor::dense_geometry(const Shape& shape, Order order) {
  if (shape.size() > kMaxCachedRank) {
    return std::make_shared<const Geometry>(Geometry{shape, contiguous_strides(shape, order)});
  }
  DenseGeometryCache& cache = geometry_cache();
  DenseGeometryCache::Slot& slot = cache.slots[slot_of(shape, order)];
  {
    std::lock_guard<std::mutex> lock(cache.mutex);
    if (slot.geometry && slot.order == order && slot.geometry->shape == shape) return slot.geometry;
  }
  auto made = std::make_shared<const Geometry>(Geometry{shape, contiguous_strides(shape, order)});
  std::lock_guard<std::mutex> lock(cache.mutex);
  slot.order = order;
  slot.geometry = made;
  return made;
}

}  // namespace ndbuf
