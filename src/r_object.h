// The binding kit: C++ objects as R external pointers, shapes and counts across the boundary,
// and core errors that keep their kind on the way to R. Every r_*.cpp binding uses these.
#pragma once

#include <cpp11.hpp>
#include <exception>
#include <memory>
#include <type_traits>
#include <utility>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/base/shape.hpp"

namespace pjrt {

// An R class backed by a heap object: `name` is both the class attribute and the pointer's
// tag (which R code cannot change, so a pointer of another kind given the class is refused).
struct ObjectClass {
  const char* name;
  // The message for anything that is not a live object of this class.
  const char* expected;
  // The message for a cleared pointer, given its protected value (a mark set when it was
  // invalidated, or R_NilValue for one restored by readRDS()).
  const char* (*cleared)(SEXP mark);
};

// Refuses an argument of the wrong kind as a core error, so it reaches R classed like any
// invalid argument.
[[noreturn]] void fail_argument(const char* message);

// The class attribute of `cls`'s objects: one preserved, immutable vector per class, which
// every object shares (an object made per call would cost an allocation and a string lookup
// each; a result list of many buffers paid that many times).
SEXP class_vector(const ObjectClass& cls);

// The tag of `cls`'s pointers: the symbol `name`, looked up once per class.
SEXP class_tag(const ObjectClass& cls);

// R's finalizer of an object made by wrap_object() (a cleared pointer holds nothing).
template <typename T>
void delete_object(SEXP x) {
  delete static_cast<T*>(R_ExternalPtrAddr(x));
  R_ClearExternalPtr(x);
}

// The R calls that make an external pointer owning `*value` (taken from it last, so an R error
// leaves it with its owner), with R's finalizer deleting it and `classes` as its class. Run
// them inside one unwind_protect, which turns an R error into a C++ exception.
template <typename T>
SEXP new_object(SEXP tag, SEXP classes, std::unique_ptr<T>& value) {
  const SEXP out = PROTECT(R_MakeExternalPtr(nullptr, tag, R_NilValue));
  R_RegisterCFinalizerEx(out, &delete_object<T>, TRUE);
  Rf_setAttrib(out, R_ClassSymbol, classes);
  R_SetExternalPtrAddr(out, value.release());
  UNPROTECT(1);
  return out;
}

// Makes an external pointer owning `value`; R's finalizer deletes it. Raw R calls rather than
// cpp11::external_pointer, whose protection costs a pairlist cell per object (a result list of
// many buffers paid that many times).
template <typename T>
SEXP wrap_object(const ObjectClass& cls, T value) {
  auto owned = std::make_unique<T>(std::move(value));
  const SEXP tag = class_tag(cls);
  const SEXP classes = class_vector(cls);
  return cpp11::unwind_protect([&] { return new_object(tag, classes, owned); });
}

// An unnamed list of external pointers owning `owned`, in one unwind_protect for the list (not
// one per object: a program's 12 results spent about a third of their wrapping there). The
// objects come already on the heap one by one: a vector of a dozen holders is over a kilobyte,
// and glibc's malloc merges its whole fast-bin cache on every request that large (a fifth of a
// 12-result call went there).
template <typename T>
SEXP wrap_objects(const ObjectClass& cls, std::vector<std::unique_ptr<T>> owned) {
  const SEXP tag = class_tag(cls);
  const SEXP classes = class_vector(cls);
  return cpp11::unwind_protect([&] {
    const auto count = static_cast<R_xlen_t>(owned.size());
    const SEXP out = PROTECT(Rf_allocVector(VECSXP, count));
    for (R_xlen_t k = 0; k < count; ++k) {
      SET_VECTOR_ELT(out, k, new_object(tag, classes, owned[static_cast<size_t>(k)]));
    }
    UNPROTECT(1);
    return out;
  });
}

// Whether `x` is an external pointer of this class (live or cleared); never an error.
bool is_object(SEXP x, const ObjectClass& cls);

// The object behind `x`, or nullptr for anything but a live object of this class.
template <typename T>
T* find_object(SEXP x, const ObjectClass& cls) {
  return is_object(x, cls) ? static_cast<T*>(R_ExternalPtrAddr(x)) : nullptr;
}

// unwrap_object()'s error for `x`, which is not a live object of `cls`: "expected" for another
// kind of value, the cleared message for an empty pointer given the class (one saved and
// restored, released, or restored by a serializer that drops the tag).
[[noreturn]] void fail_unwrap(SEXP x, const ObjectClass& cls);

// The object behind `x`; an error (kind InvalidArgument) for anything else or a cleared one.
template <typename T>
T& unwrap_object(SEXP x, const ObjectClass& cls) {
  if (is_object(x, cls)) {
    auto* object = static_cast<T*>(R_ExternalPtrAddr(x));
    if (object != nullptr) return *object;
  }
  fail_unwrap(x, cls);
}

// Deletes the object now and leaves `mark` for unwrap_object()'s message; every later use of
// `x` is an error. Anything but a live object of this class is left alone.
template <typename T>
void invalidate_object(SEXP x, const ObjectClass& cls, const char* mark) {
  if (find_object<T>(x, cls) == nullptr) return;
  const SEXP symbol = cpp11::safe[Rf_install](mark);
  delete_object<T>(x);
  R_SetExternalPtrProtected(x, symbol);
}

// Whether `x`'s protected value is the symbol `mark`.
bool has_mark(SEXP mark, const char* name);

// A shape from an R integer vector (validated in R: non-negative, not NA).
ndbuf::Shape shape_from_r(SEXP dims);
// A shape as an R integer vector (every extent below 2^31, as R dims are).
cpp11::writable::integers shape_to_r(const ndbuf::Shape& shape);

// Counts of values that were stored or read as something else (missing values stored as a
// sentinel, values R reads as NA) travel as the attribute "pjrt_na_count" of the result,
// absent when zero; the R layer reads it and drops it (na_count() in R/utils.R).
SEXP with_na_count(SEXP value, int64_t count);

// Writable memory of a freshly allocated logical, integer, double, complex or raw vector.
void* vector_data(SEXP vector);

// A new, unprotected logical, integer, double, complex or raw vector about to be filled by
// the core. One of ndbuf::kRecycleMinBytes or more lives in a block from the core's block
// recycler (pages kept from collected results, or fresh ones advised for huge pages when
// PJRT_HUGE_PAGES=1), returned there when R collects it. R allocation errors unwind as R
// errors.
SEXP allocate_output_vector(SEXPTYPE type, R_xlen_t length);

// A new vector from R's own heap (the output vectors below ndbuf::kRecycleMinBytes): a large
// one is advised for huge pages when PJRT_HUGE_PAGES=1. R allocation errors unwind as R
// errors.
SEXP allocate_heap_vector(SEXPTYPE type, R_xlen_t length);

// Notes a failed binding's message and kind (`kind` "" for an exception without one) and a
// diagnostic detail ("" for none) for the R layer, which takes them with
// ffi_take_core_failure(), and returns the marker `pjrt_core_failure` (a symbol, which no
// binding returns otherwise).
SEXP core_failure(const char* message, const char* kind, const char* detail = "");
SEXP core_failure(const ndbuf::Error& error);
// The same for the exception being handled when it is not an ndbuf::Error (call it only from
// a catch block): a standard exception gets its kind and a user-facing sentence instead of
// its what() text, which names library internals ("vector::_M_default_append"); the what()
// text is kept as the detail.
SEXP core_failure_of_current_exception();

// Runs a binding's body and returns its value to R. A failure is not raised from C++: its
// message and kind are noted and the marker symbol is returned, which with_core()
// (R/conditions.R) turns into a classed R error, so the common, successful call needs no R
// condition handler. R errors met through cpp11::safe keep unwinding as R errors; other C++
// exceptions are mapped to kinds by core_failure_of_current_exception().
template <typename Body>
SEXP call_core(Body&& body) {
  try {
    if constexpr (std::is_void_v<decltype(body())>) {
      body();
      return R_NilValue;
    } else {
      return cpp11::as_sexp(body());
    }
  } catch (const cpp11::unwind_exception&) {
    throw;
  } catch (const ndbuf::Error& error) {
    return core_failure(error);
  } catch (...) {
    return core_failure_of_current_exception();
  }
}

}  // namespace pjrt
