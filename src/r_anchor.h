// Objects R's collector frees in batches, without a finalizer each.
//
// A finalizer is a weak reference, which R allocates and walks at every collection, young ones
// included: a session holding many buffers paid for each of them at every collection (200,000
// live pointers: a young collection 49-56 ms against 4-5 ms). An anchored object is instead
// owned by its external pointer's protected field, a small raw vector from a custom allocator
// (its "anchor"). When the collector frees the anchor it calls that allocator, which queues
// the object; one finalizer per collection (a sentinel from a reserve, r_anchor.cpp) then
// deletes the queued objects, where R's API may be used again, so they go at the same point of
// a collection as a finalizer's would.
#pragma once

#include <cpp11.hpp>
#include <memory>

namespace pjrt {

// What an anchor owns: an object, how to delete it, and the link of the queue of anchors the
// collector freed.
struct Anchored {
  void (*destroy)(void* object);
  void* object;  // nullptr once deleted early (release_anchored())
  Anchored* next;
};

template <typename T>
void destroy_as(void* object) {
  delete static_cast<T*>(object);
}

struct AnchoredDeleter {
  void operator()(Anchored* anchored) const;
};

// Owns an Anchored (and its object) until an anchor takes it.
using AnchoredPtr = std::unique_ptr<Anchored, AnchoredDeleter>;

template <typename T>
AnchoredPtr make_anchored(std::unique_ptr<T> object) {
  AnchoredPtr anchored(new Anchored{&destroy_as<T>, nullptr, nullptr});
  anchored->object = object.release();
  return anchored;
}

// A new anchor (an unprotected raw vector) that owns `*anchored` from now on; R allocation
// errors longjmp, so call it inside an unwind_protect, where `anchored` is released only once
// this returned. Arms the collection hook and refills its reserve where needed.
SEXP new_anchor(AnchoredPtr& anchored);

// Deletes the object an anchor owns now (its anchor is then freed with nothing to delete).
void release_anchored(SEXP anchor);

// Deletes the objects whose anchors the collector freed; the collection hook calls it after
// every collection, and so may anyone who needs their memory back at once.
void release_collected_objects();

}  // namespace pjrt
