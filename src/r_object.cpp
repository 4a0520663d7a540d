// The binding kit's non-template half: type checks, shapes, counts and error kinds.
#include "r_object.h"

#include <R_ext/Rallocators.h>

#include <bitset>
#include <new>
#include <stdexcept>
#include <string>
#include <vector>

#include "ndbuf/memory/block_recycler.hpp"
#include "ndbuf/memory/huge_pages.hpp"
#include "r_memory.h"

namespace pjrt {
namespace {

size_t vector_item_bytes(SEXPTYPE type) {
  switch (type) {
    case RAWSXP:
      return 1;
    case REALSXP:
      return sizeof(double);
    case CPLXSXP:
      return sizeof(Rcomplex);
    default:
      return sizeof(int);  // logical and integer
  }
}

// Large output vectors take their memory from the core's block recycler through R's custom
// allocator interface, so that the pages of a collected result serve the next one. The block's
// capacity is kept in front of what R sees (64 bytes keep R's alignment).
constexpr size_t kRecycledHeaderBytes = 64;

// R leaves memory from custom allocators out of the heap size that triggers its collections,
// so dead results would pile up uncollected: their bytes are counted in result_memory(), which
// asks for a collection when they pass its budget (r_memory.h).
void* recycled_vector_alloc(R_allocator_t* /*allocator*/, size_t nbytes) {
  const ndbuf::LargeBlock block = ndbuf::acquire_large_block(nbytes + kRecycledHeaderBytes);
  if (block.data == nullptr) return nullptr;  // R reports it as an allocation error
  *static_cast<size_t*>(block.data) = block.capacity;
  result_memory().add(block.capacity);
  return static_cast<char*>(block.data) + kRecycledHeaderBytes;
}

void recycled_vector_free(R_allocator_t* /*allocator*/, void* data) {
  char* start = static_cast<char*>(data) - kRecycledHeaderBytes;
  const size_t capacity = *reinterpret_cast<size_t*>(start);
  result_memory().remove(capacity);
  ndbuf::release_large_block({start, capacity});
}

R_allocator_t g_recycled_vectors{&recycled_vector_alloc, &recycled_vector_free, nullptr, nullptr};

// The message, kind and detail of the last failed binding; taken once by the R layer.
std::string g_failure_message;
std::string g_failure_kind;
std::string g_failure_detail;
// The symbol `pjrt_core_failure`, made when the package loads (making it in an exception
// handler could fail).
SEXP g_failure_marker = R_NilValue;

const char* error_kind_name(ndbuf::ErrorKind kind) {
  switch (kind) {
    case ndbuf::ErrorKind::kInvalidArgument:
      return "argument";
    case ndbuf::ErrorKind::kConversion:
      return "conversion";
    case ndbuf::ErrorKind::kIndex:
      return "index";
    case ndbuf::ErrorKind::kFormat:
      return "format";
    case ndbuf::ErrorKind::kIo:
      return "io";
    case ndbuf::ErrorKind::kDevice:
      return "device";
    case ndbuf::ErrorKind::kOutOfMemory:
      return "memory";
    case ndbuf::ErrorKind::kInterrupted:
      return "interrupted";
  }
  return "";
}

}  // namespace

void fail_argument(const char* message) {
  ndbuf::fail(ndbuf::ErrorKind::kInvalidArgument, message);
}

namespace {

// What every object of a class shares: its class attribute and its pointers' tag.
struct ClassSexps {
  SEXP classes;
  SEXP tag;
};

// Made once per class: the class vector preserved and immutable, the tag a symbol (symbols
// are never collected).
ClassSexps class_sexps(const ObjectClass& cls) {
  static std::vector<std::pair<const ObjectClass*, ClassSexps>> made;
  for (const auto& [known, sexps] : made) {
    if (known == &cls) return sexps;
  }
  const SEXP classes = cpp11::safe[Rf_mkString](cls.name);
  R_PreserveObject(classes);
  MARK_NOT_MUTABLE(classes);
  const ClassSexps sexps{classes, cpp11::safe[Rf_install](cls.name)};
  made.emplace_back(&cls, sexps);
  return sexps;
}

}  // namespace

SEXP class_vector(const ObjectClass& cls) { return class_sexps(cls).classes; }

SEXP class_tag(const ObjectClass& cls) { return class_sexps(cls).tag; }

// The class attribute is compared by address first: objects keep the shared class vector unless
// R code replaced it, and a name search per check cost each argument of a call three of them.
bool is_object(SEXP x, const ObjectClass& cls) {
  if (TYPEOF(x) != EXTPTRSXP) return false;
  const ClassSexps sexps = class_sexps(cls);
  return R_ExternalPtrTag(x) == sexps.tag &&
         (Rf_getAttrib(x, R_ClassSymbol) == sexps.classes || Rf_inherits(x, cls.name));
}

void fail_unwrap(SEXP x, const ObjectClass& cls) {
  if (TYPEOF(x) != EXTPTRSXP || !Rf_inherits(x, cls.name)) fail_argument(cls.expected);
  if (R_ExternalPtrAddr(x) == nullptr) fail_argument(cls.cleared(R_ExternalPtrProtected(x)));
  fail_argument(cls.expected);  // a live pointer of another kind given the class
}

bool has_mark(SEXP mark, const char* name) { return mark == Rf_install(name); }

ndbuf::Shape shape_from_r(SEXP dims) {
  const int* values = cpp11::safe[INTEGER_RO](dims);
  return ndbuf::Shape(values, values + Rf_xlength(dims));
}

cpp11::writable::integers shape_to_r(const ndbuf::Shape& shape) {
  cpp11::writable::integers out(static_cast<R_xlen_t>(shape.size()));
  int* values = INTEGER(out);
  for (size_t k = 0; k < shape.size(); ++k) values[k] = static_cast<int>(shape[k]);
  return out;
}

SEXP with_na_count(SEXP value, int64_t count) {
  if (count > 0) {
    const cpp11::sexp held(value);
    // Through cpp11::safe: an allocation error must not jump over C++ destructors.
    cpp11::safe[Rf_setAttrib](value, cpp11::safe[Rf_install]("pjrt_na_count"),
                              cpp11::safe[Rf_ScalarReal](static_cast<double>(count)));
  }
  return value;
}

void* vector_data(SEXP vector) {
  switch (TYPEOF(vector)) {
    case LGLSXP:
      return LOGICAL(vector);
    case INTSXP:
      return INTEGER(vector);
    case REALSXP:
      return REAL(vector);
    case CPLXSXP:
      return COMPLEX(vector);
    case RAWSXP:
      return RAW(vector);
    default:
      fail_argument("Expected a logical, integer, double, complex or raw vector.");
  }
}

SEXP allocate_output_vector(SEXPTYPE type, R_xlen_t length) {
  const size_t nbytes = static_cast<size_t>(length) * vector_item_bytes(type);
  if (nbytes >= ndbuf::kRecycleMinBytes) {
    result_memory().make_room(nbytes);
    return cpp11::safe[Rf_allocVector3](type, length, &g_recycled_vectors);
  }
  return allocate_heap_vector(type, length);
}

SEXP allocate_heap_vector(SEXPTYPE type, R_xlen_t length) {
  const SEXP out = cpp11::safe[Rf_allocVector](type, length);
  const size_t nbytes = static_cast<size_t>(length) * vector_item_bytes(type);
  if (length > 0) ndbuf::advise_huge_pages(vector_data(out), nbytes);
  return out;
}

SEXP core_failure(const char* message, const char* kind, const char* detail) {
  g_failure_message = message;
  g_failure_kind = kind;
  g_failure_detail = detail;
  return g_failure_marker;
}

SEXP core_failure(const ndbuf::Error& error) {
  return core_failure(error.what(), error_kind_name(error.kind()));
}

namespace {

// What a standard exception that escaped the core means to an R user. The core words every
// failure it expects as an ndbuf::Error, so these are allocations the standard library made
// (std::vector growth: std::bad_alloc, or std::length_error past its maximum size) and checks
// of its own (std::stoll, std::vector::at) that pjrt should have worded: the message says
// what kind of failure it was without the library's text, which is kept as the detail.
constexpr const char* kReportSuffix = " This error was not worded by pjrt: please report the call.";

std::string detail_of(const char* type, const std::exception& error) {
  return std::string(type) + ": " + error.what();
}

SEXP failure_of(const char* kind, const std::string& sentence, const std::string& detail) {
  return core_failure(sentence.c_str(), kind, detail.c_str());
}

}  // namespace

SEXP core_failure_of_current_exception() {
  try {
    throw;
  } catch (const std::bad_alloc& error) {
    return failure_of("memory",
                      "Not enough memory to complete this call: an allocation of host memory "
                      "failed.",
                      detail_of("std::bad_alloc", error));
  } catch (const std::length_error& error) {
    return failure_of("memory",
                      "Not enough memory to complete this call: it needs an array larger than "
                      "the largest one that can be allocated.",
                      detail_of("std::length_error", error));
  } catch (const std::out_of_range& error) {
    return failure_of(
        "index", std::string("A position or size in this call is out of range.") + kReportSuffix,
        detail_of("std::out_of_range", error));
  } catch (const std::invalid_argument& error) {
    return failure_of("argument", std::string("A value in this call is not valid.") + kReportSuffix,
                      detail_of("std::invalid_argument", error));
  } catch (const std::overflow_error& error) {
    return failure_of("argument",
                      std::string("A size or value in this call overflows the type that holds "
                                  "it.") +
                          kReportSuffix,
                      detail_of("std::overflow_error", error));
  } catch (const std::exception& error) {
    return failure_of("internal",
                      std::string("An internal error stopped this call.") + kReportSuffix,
                      detail_of("std::exception", error));
  } catch (...) {
    return failure_of("internal",
                      std::string("An internal error stopped this call.") + kReportSuffix,
                      "an exception of unknown type");
  }
}

}  // namespace pjrt

[[cpp11::init]] void pjrt_install_failure_marker(DllInfo* dll) {
  (void)dll;
  pjrt::g_failure_marker = Rf_install("pjrt_core_failure");
}

// The kind ("argument", "index", ..., "interrupted", "internal"; "" for none), the message and
// the detail ("" for none) of the last failed binding, in the native encoding as R's own
// errors carry them; forgotten once read.
[[cpp11::register]] SEXP ffi_take_core_failure() {
  cpp11::sexp out = cpp11::safe[Rf_allocVector](STRSXP, 3);
  SET_STRING_ELT(out, 0, cpp11::safe[Rf_mkChar](pjrt::g_failure_kind.c_str()));
  SET_STRING_ELT(out, 1, cpp11::safe[Rf_mkChar](pjrt::g_failure_message.c_str()));
  SET_STRING_ELT(out, 2, cpp11::safe[Rf_mkChar](pjrt::g_failure_detail.c_str()));
  pjrt::g_failure_kind.clear();
  pjrt::g_failure_message.clear();
  pjrt::g_failure_detail.clear();
  return out;
}

// Test hook: fails the way a binding fails when the standard library throws `type` inside the
// core ("bad_alloc", "length_error", "out_of_range", "invalid_argument", "overflow_error",
// "runtime_error", anything else: an exception that is no std::exception), mostly by calling
// the library functions that throw them, with their own what() texts.
[[cpp11::register]] SEXP ffi_test_throw(std::string type) {
  return pjrt::call_core([&] {
    std::vector<char> bytes;
    // Thrown as operator new throws it: a real failed allocation would abort under valgrind,
    // whose allocator cannot throw.
    if (type == "bad_alloc") throw std::bad_alloc();
    if (type == "length_error") bytes.resize(bytes.max_size() + 1);
    if (type == "out_of_range") return static_cast<int>(bytes.at(5));
    if (type == "invalid_argument") return static_cast<int>(std::stoll("five"));
    if (type == "overflow_error") return static_cast<int>(std::bitset<80>().set().to_ulong());
    if (type == "runtime_error") throw std::runtime_error("basic_string::_M_create");
    throw 42;
  });
}

// Bytes of collected large result vectors kept for reuse, and of live ones (tests check that
// R hands them back, and that dead ones do not pile up).
[[cpp11::register]] SEXP ffi_recycled_bytes() {
  const SEXP out = cpp11::safe[Rf_allocVector](REALSXP, 2);
  REAL(out)[0] = static_cast<double>(ndbuf::recycled_bytes());
  REAL(out)[1] = static_cast<double>(pjrt::result_memory().live_bytes());
  return out;
}
