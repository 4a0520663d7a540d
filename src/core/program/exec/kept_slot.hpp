// One object a plan keeps between its runs, so a run repeated many times (a fused loop in a
// while body, a small program called from R in a loop) reuses the object's memory instead of
// allocating it again. Runs may overlap (one executable run from two threads): a run that
// finds the slot empty makes its own object, and only one object is kept.
#pragma once

#include <atomic>
#include <memory>

namespace ndbuf::program {

template <class T>
class KeptSlot {
 public:
  KeptSlot() = default;
  KeptSlot(const KeptSlot&) = delete;
  KeptSlot& operator=(const KeptSlot&) = delete;
  ~KeptSlot() { delete slot_.load(); }

  // The kept object, or a new one when none is kept.
  std::unique_ptr<T> take() {
    std::unique_ptr<T> kept(slot_.exchange(nullptr));
    return kept ? std::move(kept) : std::make_unique<T>();
  }
  // Keeps `object` for the next run, unless another run has already put one back.
  void keep(std::unique_ptr<T> object) {
    T* empty = nullptr;
    if (slot_.compare_exchange_strong(empty, object.get())) object.release();
  }

 private:
  std::atomic<T*> slot_{nullptr};
};

}  // namespace ndbuf::program
