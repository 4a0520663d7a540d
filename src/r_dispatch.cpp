// dispatcher() and dispatch(): classifying a call's leaves, its cache key, the LRU cache and the
// compile callback on a miss (see r_dispatch.h; the engines are in r_dispatch_run.cpp).
#include "r_dispatch.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "r_object.h"
#include "r_tensor.h"

namespace pjrt {
namespace {

// identical() with num.eq = FALSE (numbers compared bit for bit, so bit64's NA, whose bits
// read as -0, is not 0) and closure environments compared (R's default).
constexpr int kIdenticalFlags = 1 | 16;

const ObjectClass kDispatcher{
    "Dispatcher", "Not a Dispatcher: expected a `Dispatcher` (made by `dispatcher()`).", [](SEXP) {
      return "This Dispatcher is no longer valid (it was saved and "
             "restored); create it again.";
    }};

[[noreturn]] void fail_input(const DispatchCall& call, size_t leaf, const std::string& what) {
  ndbuf::fail(ndbuf::ErrorKind::kInvalidArgument,
              "invalid " + leaf_subject(call, leaf) + ": " + what);
}

uint64_t mix(uint64_t h, uint64_t v) {
  return h ^ (v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2));
}

// A hash of a static value that agrees with identical(kIdenticalFlags): its type, length and
// (for atomic vectors) its first elements; anything else is left to identical().
uint64_t value_hash(SEXP x) {
  uint64_t h = mix(static_cast<uint64_t>(TYPEOF(x)), static_cast<uint64_t>(Rf_xlength(x)));
  const R_xlen_t n = std::min<R_xlen_t>(Rf_xlength(x), 16);
  for (R_xlen_t k = 0; k < n; ++k) {
    uint64_t v = 0;
    switch (TYPEOF(x)) {
      case LGLSXP:
        v = static_cast<uint32_t>(LOGICAL_ELT(x, k));
        break;
      case INTSXP:
        v = static_cast<uint32_t>(INTEGER_ELT(x, k));
        break;
      case REALSXP: {
        const double d = REAL_ELT(x, k);
        std::memcpy(&v, &d, sizeof v);
        break;
      }
      case STRSXP: {
        const SEXP s = STRING_ELT(x, k);
        if (s == NA_STRING) {
          v = 1;
        } else {
          for (const char* c = Rf_translateCharUTF8(s); *c != 0; ++c)
            v = (v ^ static_cast<unsigned char>(*c)) * 1099511628211ULL;
        }
        break;
      }
      case RAWSXP:
        v = RAW_ELT(x, k);
        break;
      default:
        return h;
    }
    h = mix(h, v);
  }
  return h;
}

bool same_value(SEXP a, SEXP b) { return a == b || R_compute_identical(a, b, kIdenticalFlags); }

// The bare R data dispatch uploads: a logical, integer or double array of any rank, or one
// such value that is not NA. Its aval: the default dtype (pred, i32, f32), ambiguous.
bool classify_rdata(SEXP leaf, std::vector<int64_t>* avals) {
  if (OBJECT(leaf)) return false;
  ndbuf::DType dtype;
  switch (TYPEOF(leaf)) {
    case LGLSXP:
      dtype = ndbuf::DType::kPred;
      break;
    case INTSXP:
      dtype = ndbuf::DType::kI32;
      break;
    case REALSXP:
      dtype = ndbuf::DType::kF32;
      break;
    default:
      return false;
  }
  const SEXP dims = Rf_getAttrib(leaf, R_DimSymbol);
  if (dims == R_NilValue) {
    if (Rf_xlength(leaf) != 1) return false;
    const bool missing = TYPEOF(leaf) == REALSXP  ? R_IsNA(REAL_ELT(leaf, 0))
                         : TYPEOF(leaf) == INTSXP ? INTEGER_ELT(leaf, 0) == NA_INTEGER
                                                  : LOGICAL_ELT(leaf, 0) == NA_LOGICAL;
    if (missing) return false;
  } else if (TYPEOF(dims) != INTSXP) {
    return false;
  }
  avals->push_back(static_cast<int64_t>(dtype));
  avals->push_back(1);
  avals->push_back(Rf_xlength(dims));
  for (R_xlen_t k = 0; k < Rf_xlength(dims); ++k) avals->push_back(INTEGER(dims)[k]);
  return true;
}

std::string r_class_name(SEXP x) {
  const SEXP cls = Rf_getAttrib(x, R_ClassSymbol);
  if (TYPEOF(cls) == STRSXP && Rf_xlength(cls) > 0) return CHAR(STRING_ELT(cls, 0));
  switch (TYPEOF(x)) {
    case REALSXP:
      return "numeric";
    case CLOSXP:
    case BUILTINSXP:
    case SPECIALSXP:
      return "function";
    default:
      return Rf_type2char(TYPEOF(x));
  }
}

bool is_true(SEXP x) { return TYPEOF(x) == LGLSXP && Rf_xlength(x) == 1 && LOGICAL(x)[0] == TRUE; }

std::string string_field(SEXP x) {
  return TYPEOF(x) == STRSXP && Rf_xlength(x) > 0 && STRING_ELT(x, 0) != NA_STRING
             ? CHAR(STRING_ELT(x, 0))
             : "";
}

uint64_t device_token(const ndbuf::Device& device) {
  return (static_cast<uint64_t>(device.platform) << 32) + static_cast<uint64_t>(device.index) + 1;
}

// The canonical object of a device of another backend: the same object, else an identical()
// one seen before, else this one (kept for the dispatcher's life). Its address is the token.
uint64_t canonical_device(Dispatcher& d, SEXP device) {
  for (const cpp11::sexp& known : d.devices) {
    if (static_cast<SEXP>(known) == device)
      return reinterpret_cast<uintptr_t>(static_cast<SEXP>(known));
  }
  for (const cpp11::sexp& known : d.devices) {
    if (same_value(known, device)) return reinterpret_cast<uintptr_t>(static_cast<SEXP>(known));
  }
  d.devices.emplace_back(device);
  return reinterpret_cast<uintptr_t>(device);
}

// A PJRTDevice (an environment holding `platform` and `id`) as the core's device.
ndbuf::Device device_of_object(SEXP device) {
  if (TYPEOF(device) != ENVSXP || !Rf_inherits(device, "PJRTDevice")) {
    fail_argument("the `default_device` resolver must return a PJRTDevice");
  }
  const SEXP platform = Rf_findVarInFrame(device, Rf_install("platform"));
  const SEXP id = Rf_findVarInFrame(device, Rf_install("id"));
  return ndbuf::resolve_device(string_field(platform) + ":" + std::to_string(Rf_asInteger(id)));
}

// Reads an AnvlArray leaf of the dispatcher's backend: its aval, input and device token.
void read_array(Dispatcher& d, DispatchCall& call, size_t leaf, bool* have_device) {
  const SEXP x = call.leaves[leaf];
  SEXP data = list_field(x, "data");
  SEXP device = R_NilValue;
  std::string backend;
  cpp11::sexp meta;
  if (d.native) {
    backend = string_field(list_field(x, "backend"));
  } else {
    meta = cpp11::function(d.extractor)(x);
    backend = string_field(list_field(meta, "backend"));
    device = list_field(meta, "device");
  }
  if (backend == "plain") {
    fail_input(call, leaf,
               "an AnvlArray of the \"plain\" backend captures a trace-time constant and is not a "
               "call argument");
  }
  if (backend != d.backend) {
    fail_input(call, leaf,
               "expected an AnvlArray of backend \"" + d.backend + "\"; got \"" +
                   (backend.empty() ? "<none>" : backend) + "\"");
  }
  uint64_t token = 0;
  call.aval_at[leaf] = call.avals.size();
  if (d.native) {
    const ndbuf::Tensor* tensor = find_buffer(data);
    if (tensor == nullptr) {
      fail_input(
          call, leaf,
          "an AnvlArray of backend \"" + d.backend + "\" must hold a live PJRTBuffer in $data");
    }
    call.avals.push_back(static_cast<int64_t>(tensor->dtype()));
    call.avals.push_back(is_true(list_field(x, "ambiguous")) ? 1 : 0);
    call.avals.push_back(static_cast<int64_t>(tensor->shape().size()));
    for (int64_t extent : tensor->shape()) call.avals.push_back(extent);
    token = device_token(tensor->device());
  } else {
    const SEXP aval = list_field(meta, "aval");
    const SEXP shape = list_field(aval, "shape");
    const SEXP dtype = list_field(aval, "dtype");
    std::optional<ndbuf::DType> type;
    if (TYPEOF(dtype) == STRSXP && Rf_xlength(dtype) == 1)
      type = ndbuf::parse_dtype(string_field(dtype));
    if (!type || TYPEOF(shape) != INTSXP) {
      fail_input(
          call, leaf,
          "the backend extractor must return an aval with a known dtype and an integer shape");
    }
    call.avals.push_back(static_cast<int64_t>(*type));
    call.avals.push_back(is_true(list_field(aval, "ambiguous")) ? 1 : 0);
    call.avals.push_back(Rf_xlength(shape));
    for (R_xlen_t k = 0; k < Rf_xlength(shape); ++k) call.avals.push_back(INTEGER(shape)[k]);
    if (device == R_NilValue) fail_input(call, leaf, "an AnvlArray must carry $device");
    if (!d.move_inputs) token = canonical_device(d, device);
  }
  if (!d.move_inputs) {
    if (!*have_device) {
      call.device = token;
      *have_device = true;
    } else if (token != call.device) {
      fail_input(call, leaf,
                 "it lives on a different device than an earlier input; all inputs must share a "
                 "device unless a target device is fixed");
    }
  }
  call.kinds[leaf] = LeafKind::kArray;
  call.inputs.push_back(data);
  call.input_leaf.push_back(leaf);
}

// Flattens `args`, classifies every leaf (an error names the first invalid one) and hashes the key.
void classify_call(Dispatcher& d, SEXP args, DispatchCall& call) {
  build_tree(args, &call.tree, &call.leaves);
  const size_t n = call.leaves.size();
  call.kinds.assign(n, LeafKind::kRData);
  call.aval_at.assign(n, 0);
  // Static leaves: every leaf under a top-level argument named in `static`.
  std::vector<bool> is_static(n, false);
  const TreeNode& root = call.tree.nodes[0];
  if (!d.static_names.empty() && root.names >= 0) {
    size_t leaf = 0;
    size_t node = 1;
    for (int32_t k = 0; k < root.children; ++k) {
      const int32_t inside = call.tree.nodes[node].leaves;
      if (d.static_names.count(call.tree.names[root.names + k]) > 0) {
        for (int32_t j = 0; j < inside; ++j) is_static[leaf + j] = true;
      }
      leaf += inside;
      node += call.tree.nodes[node].span;
    }
  }
  bool have_device = false;
  for (size_t k = 0; k < n; ++k) {
    const SEXP leaf = call.leaves[k];
    const bool array = TYPEOF(leaf) == VECSXP && Rf_inherits(leaf, "AnvlArray");
    if (is_static[k]) {
      if (array) {
        ndbuf::fail(ndbuf::ErrorKind::kInvalidArgument,
                    "invalid static " + leaf_subject(call, k) +
                        ": a static argument must not be an AnvlArray");
      }
      call.kinds[k] = LeafKind::kStatic;
      call.aval_at[k] = call.avals.size();
      call.avals.push_back(-1);
      call.statics.push_back(leaf);
    } else if (array) {
      read_array(d, call, k, &have_device);
    } else {
      call.aval_at[k] = call.avals.size();
      if (!classify_rdata(leaf, &call.avals)) {
        fail_input(
            call, k,
            "expected an AnvlArray, a length-1 atomic scalar, or an is.array() value; got <" +
                r_class_name(leaf) + "> of length " + std::to_string(Rf_xlength(leaf)));
      }
      call.inputs.push_back(leaf);
      call.input_leaf.push_back(k);
    }
  }
  if (!d.move_inputs && !have_device) {
    if (d.default_device == R_NilValue) {
      fail_argument(
          "this dispatcher cannot dispatch a call with no array inputs: it was created without a "
          "`default_device` resolver");
    }
    call.device_object = cpp11::function(d.default_device)();
    call.device = d.native ? device_token(device_of_object(call.device_object))
                           : canonical_device(d, call.device_object);
  }
  if (d.context != R_NilValue) call.context = cpp11::function(d.context)();
  uint64_t h = mix(tree_hash(call.tree), call.device);
  for (int64_t v : call.avals) h = mix(h, static_cast<uint64_t>(v));
  for (SEXP s : call.statics) h = mix(h, value_hash(s));
  if (d.context != R_NilValue) h = mix(h, value_hash(call.context));
  call.hash = h;
}

bool key_matches(const DispatchEntry& e, const DispatchCall& call) {
  if (e.hash != call.hash || e.device != call.device || e.avals != call.avals) return false;
  if (!trees_equal(e.tree, call.tree)) return false;
  for (size_t k = 0; k < call.statics.size(); ++k) {
    if (!same_value(e.statics[k], call.statics[k])) return false;
  }
  const SEXP mine = e.context;
  const SEXP theirs = call.context;
  return mine == theirs || (mine != R_NilValue && theirs != R_NilValue && same_value(mine, theirs));
}

DispatchEntry* find_entry(Dispatcher& d, const DispatchCall& call) {
  auto range = d.index.equal_range(call.hash);
  for (auto it = range.first; it != range.second; ++it) {
    if (key_matches(*it->second, call)) {
      d.entries.splice(d.entries.begin(), d.entries, it->second);  // iterators stay valid
      return &*it->second;
    }
  }
  return nullptr;
}

// The compile callback's `info`: what this call derived, so the callback classifies nothing.
SEXP call_info(const DispatchCall& call, SEXP args) {
  const R_xlen_t n = static_cast<R_xlen_t>(call.leaves.size());
  cpp11::writable::list leaves(n);
  cpp11::writable::logicals is_static(n);
  cpp11::writable::list avals(n);
  for (R_xlen_t k = 0; k < n; ++k) {
    SET_VECTOR_ELT(leaves, k, call.leaves[k]);
    const LeafKind kind = call.kinds[k];
    LOGICAL(is_static)[k] = kind == LeafKind::kStatic;
    if (kind == LeafKind::kStatic) continue;
    const int64_t* a = call.avals.data() + call.aval_at[k];
    cpp11::writable::integers shape(static_cast<R_xlen_t>(a[2]));
    for (int64_t j = 0; j < a[2]; ++j) shape[j] = static_cast<int>(a[3 + j]);
    cpp11::writable::list aval({cpp11::as_sexp(aval_dtype_name(a[0])), shape,
                                cpp11::as_sexp(a[1] == 1),
                                cpp11::as_sexp(kind == LeafKind::kArray ? "array" : "rdata")});
    aval.names() = {"dtype", "shape", "ambiguous", "kind"};
    SET_VECTOR_ELT(avals, k, aval);
  }
  cpp11::writable::list info(
      {args, wrap_tree(call.tree), leaves, is_static, avals, call.device_object, call.context});
  info.names() = {"args", "in_tree", "leaves", "is_static", "avals", "default_device", "context"};
  return info;
}

// A miss: the callback compiles, the engine's entry is built, and the least recently used
// entry beyond the capacity is dropped.
DispatchEntry* compile_entry(Dispatcher& d, DispatchCall& call, SEXP args) {
  cpp11::sexp result = cpp11::function(d.compile)(call_info(call, args));
  cpp11::sexp finished = cpp11::function(d.finish)(result);
  DispatchEntry entry;
  if (d.native) {
    build_pjrt_entry(d, finished, call.inputs.size(), &entry);
  } else {
    entry.r_fun = finished;
  }
  entry.tree = call.tree;
  entry.avals = call.avals;
  for (SEXP s : call.statics) entry.statics.emplace_back(s);
  entry.device = call.device;
  entry.context = call.context;
  entry.hash = call.hash;
  d.entries.push_front(std::move(entry));
  d.index.emplace(call.hash, d.entries.begin());
  while (d.entries.size() > d.capacity) {
    auto last = std::prev(d.entries.end());
    auto range = d.index.equal_range(last->hash);
    for (auto it = range.first; it != range.second; ++it) {
      if (it->second == last) {
        d.index.erase(it);
        break;
      }
    }
    d.entries.erase(last);
  }
  return &d.entries.front();
}

}  // namespace

std::string leaf_subject(const DispatchCall& call, size_t leaf) {
  return "input `" + tree_path(call.tree, static_cast<int64_t>(leaf)) + "`";
}

SEXP list_field(SEXP x, const char* name) {
  if (TYPEOF(x) != VECSXP) return R_NilValue;
  const SEXP names = Rf_getAttrib(x, R_NamesSymbol);
  if (TYPEOF(names) != STRSXP) return R_NilValue;
  for (R_xlen_t k = 0; k < Rf_xlength(names); ++k) {
    if (std::strcmp(CHAR(STRING_ELT(names, k)), name) == 0) return VECTOR_ELT(x, k);
  }
  return R_NilValue;
}

const char* aval_dtype_name(int64_t code) {
  const auto dtype = static_cast<ndbuf::DType>(code);
  return dtype == ndbuf::DType::kPred ? "bool" : ndbuf::dtype_name(dtype).data();
}

}  // namespace pjrt

// Arguments checked in R (R/dispatch.R).
[[cpp11::register]] SEXP ffi_dispatcher_new(double capacity, SEXP compile, SEXP finish,
                                            cpp11::strings static_names, std::string backend,
                                            bool move_inputs, SEXP default_device, SEXP extractor,
                                            SEXP context) {
  return pjrt::call_core([&] {
    pjrt::Dispatcher d;
    d.capacity = static_cast<size_t>(capacity);
    d.native = backend == "pjrt";
    d.backend = backend;
    d.move_inputs = move_inputs;
    for (R_xlen_t k = 0; k < static_names.size(); ++k)
      d.static_names.insert(std::string(static_names[k]));
    d.compile = compile;
    d.finish = finish;
    d.default_device = default_device;
    d.extractor = extractor;
    d.context = context;
    return pjrt::wrap_object(pjrt::kDispatcher, std::move(d));
  });
}

[[cpp11::register]] SEXP ffi_dispatcher_size(SEXP dispatcher) {
  return pjrt::call_core([&] {
    return static_cast<int>(
        pjrt::unwrap_object<pjrt::Dispatcher>(dispatcher, pjrt::kDispatcher).entries.size());
  });
}

[[cpp11::register]] SEXP ffi_dispatch_run(SEXP dispatcher, SEXP args) {
  return pjrt::call_core([&] {
    pjrt::Dispatcher& d = pjrt::unwrap_object<pjrt::Dispatcher>(dispatcher, pjrt::kDispatcher);
    if (TYPEOF(args) != VECSXP || OBJECT(args))
      pjrt::fail_argument("`args` must be a list of the call's arguments.");
    pjrt::DispatchCall call;
    pjrt::classify_call(d, args, call);
    pjrt::DispatchEntry* entry = pjrt::find_entry(d, call);
    if (entry == nullptr) entry = pjrt::compile_entry(d, call, args);
    return d.native ? pjrt::run_pjrt_entry(d, *entry, call) : pjrt::run_closure_entry(*entry, call);
  });
}
