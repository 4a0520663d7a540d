// Objects R's collector frees in batches (see r_anchor.h).
#include "r_anchor.h"

#include <R_ext/Rallocators.h>

#include <cstdlib>
#include <cstring>
#include <utility>

namespace pjrt {
namespace {

// Anchors the collector freed since the last release_collected_objects(), newest first.
Anchored* g_collected = nullptr;

// The collection hook is a sentinel: an external pointer whose finalizer releases the queued
// objects, referenced by nothing, so the next collection finds it dead. Sentinels are made
// ahead, each kept reachable in a slot of `g_reserve` until its turn, because a finalizer must
// not register another: R's finalizer loop unlinks a finalized entry by resetting the list's
// head when no live entry precedes it, which drops any entry registered in the meantime (it
// dropped the hook in the package's tests). A finalizer only lets the next reserved one go.
constexpr R_xlen_t kReservedSentinels = 8;
SEXP g_reserve = R_NilValue;  // a preserved list of reserved sentinels (NULL where used)
R_xlen_t g_reserved = 0;      // sentinels in the reserve
bool g_hook_armed = false;    // whether a released sentinel waits for the next collection

void* anchor_alloc(R_allocator_t* /*allocator*/, size_t nbytes) { return std::malloc(nbytes); }

// Called in the collector's sweep, where no R API may be used (an object may release R
// objects it holds): the object is only queued. The allocator R passes is its copy of the one
// the anchor was made with, so `data` is that anchor's Anchored.
void anchor_free(R_allocator_t* allocator, void* block) {
  auto* anchored = static_cast<Anchored*>(allocator->data);
  anchored->next = g_collected;
  g_collected = anchored;
  std::free(block);
}

// Lets the first reserved sentinel go (it is then referenced by nothing); false when none is
// left. Allocates nothing, so a finalizer may call it.
bool release_reserved_sentinel() {
  for (R_xlen_t k = 0; k < kReservedSentinels; ++k) {
    if (VECTOR_ELT(g_reserve, k) != R_NilValue) {
      SET_VECTOR_ELT(g_reserve, k, R_NilValue);
      --g_reserved;
      return true;
    }
  }
  return false;
}

void on_collection(SEXP /*sentinel*/) {
  release_collected_objects();
  g_hook_armed = release_reserved_sentinel();
}

// Fills the empty slots of the reserve and arms the hook where it is not (R allocation errors
// longjmp). Registered to run at exit too, so that what the last collection queued is deleted
// as a finalizer would have deleted it.
void arm_collection_hook() {
  if (g_reserve == R_NilValue) {
    g_reserve = Rf_allocVector(VECSXP, kReservedSentinels);
    R_PreserveObject(g_reserve);
  }
  for (R_xlen_t k = 0; k < kReservedSentinels; ++k) {
    if (VECTOR_ELT(g_reserve, k) != R_NilValue) continue;
    const SEXP sentinel = PROTECT(R_MakeExternalPtr(nullptr, R_NilValue, R_NilValue));
    R_RegisterCFinalizerEx(sentinel, &on_collection, TRUE);
    SET_VECTOR_ELT(g_reserve, k, sentinel);
    ++g_reserved;
    UNPROTECT(1);
  }
  if (!g_hook_armed) g_hook_armed = release_reserved_sentinel();
}

Anchored* anchored_of(SEXP anchor) {
  Anchored* anchored = nullptr;
  std::memcpy(&anchored, RAW(anchor), sizeof anchored);
  return anchored;
}

}  // namespace

void AnchoredDeleter::operator()(Anchored* anchored) const {
  if (anchored->object != nullptr) anchored->destroy(anchored->object);
  delete anchored;
}

SEXP new_anchor(AnchoredPtr& anchored) {
  // Whatever a collection queued without a hook (an object made inside a finalizer can make
  // sentinels there, which R may drop) goes here at the latest.
  if (g_collected != nullptr) release_collected_objects();
  // Refilled at half, so that collections without new objects in between stay covered.
  if (!g_hook_armed || g_reserved <= kReservedSentinels / 2) arm_collection_hook();
  R_allocator_t allocator{&anchor_alloc, &anchor_free, nullptr, anchored.get()};
  const SEXP anchor = Rf_allocVector3(RAWSXP, sizeof(Anchored*), &allocator);
  Anchored* owned = anchored.release();
  std::memcpy(RAW(anchor), &owned, sizeof owned);
  return anchor;
}

void release_anchored(SEXP anchor) {
  Anchored* anchored = anchored_of(anchor);
  if (anchored->object == nullptr) return;
  anchored->destroy(std::exchange(anchored->object, nullptr));
}

void release_collected_objects() {
  // Deleting an object may allocate, and a collection then may queue more.
  while (g_collected != nullptr) {
    Anchored* batch = std::exchange(g_collected, nullptr);
    while (batch != nullptr) {
      AnchoredPtr owned(std::exchange(batch, batch->next));
    }
  }
}

}  // namespace pjrt
