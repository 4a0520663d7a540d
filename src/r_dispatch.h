// The dispatcher behind dispatcher() / dispatch() (R/dispatch.R): an executable cache keyed on
// a call's argument structure (an RTree), each dynamic leaf's abstract value (dtype, shape,
// ambiguous flag), each static leaf's value, the call's device and an optional context value.
// r_dispatch.cpp classifies a call's leaves and builds its key; r_dispatch_run.cpp holds the
// two engines: "pjrt" runs a compiled executable natively, any other backend runs an R closure.
#pragma once

#include <cpp11.hpp>
#include <cstdint>
#include <list>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "ndbuf/base/dtype.hpp"
#include "ndbuf/base/shape.hpp"
#include "ndbuf/memory/device.hpp"
#include "ndbuf/program/program.hpp"
#include "r_tree.h"

namespace pjrt {

enum class LeafKind : uint8_t { kStatic, kArray, kRData };

// What one dispatch() call derived from its arguments: the key material and the inputs.
struct DispatchCall {
  Tree tree;
  std::vector<SEXP> leaves;     // in flatten order; rooted by the call's `args`
  std::vector<LeafKind> kinds;  // per leaf
  std::vector<int64_t> avals;   // per leaf: -1 for a static one, else dtype, ambiguous, rank, dims
  std::vector<size_t> aval_at;  // per leaf: where its aval starts in `avals`
  std::vector<SEXP> statics;    // the static leaves, in order
  std::vector<SEXP> inputs;     // per dynamic leaf: an array's $data, or the bare R value
  std::vector<size_t> input_leaf;  // per dynamic leaf: its leaf index
  uint64_t device = 0;             // the call's device token (0: none, under move_inputs)
  cpp11::sexp device_object;       // the resolved default device, when no array named one
  cpp11::sexp context;             // the context resolver's value
  uint64_t hash = 0;
};

// A cache entry: its key, and what its engine needs to run a call.
struct DispatchEntry {
  Tree tree;
  std::vector<int64_t> avals;
  std::vector<cpp11::sexp> statics;
  uint64_t device = 0;
  cpp11::sexp context;
  uint64_t hash = 0;
  // "pjrt" engine
  std::shared_ptr<const ndbuf::program::Executable> program;
  ndbuf::Device target;
  cpp11::sexp out_tree;      // an RTree
  cpp11::sexp templates;     // one AnvlArray per output, $data first
  cpp11::sexp const_arrays;  // a list of PJRTBuffers
  std::vector<ndbuf::DType> phantom_dtypes;
  std::vector<ndbuf::Shape> phantom_shapes;
  std::vector<int> input_dtypes;  // per dynamic input: a dtype to upload bare R data at, or -1
  std::vector<int64_t> kept_arguments;  // aliased const_arrays: never donated (run options)
  // other engines
  cpp11::sexp r_fun;
};

struct Dispatcher {
  size_t capacity = 1;
  bool native = true;  // the "pjrt" engine
  std::string backend;
  bool move_inputs = false;
  std::unordered_set<std::string> static_names;
  cpp11::sexp compile;               // function(info)
  cpp11::sexp finish;                // function(result): the compile result checked and normalised
  cpp11::sexp default_device;        // NULL or function()
  cpp11::sexp extractor;             // NULL or function(leaf)
  cpp11::sexp context;               // NULL or function()
  std::list<DispatchEntry> entries;  // most recently used first
  std::unordered_multimap<uint64_t, std::list<DispatchEntry>::iterator> index;
  std::vector<cpp11::sexp> devices;  // canonical device objects (other engines)
};

// "input `a$b`": the subject of an error about leaf `leaf` (0-based).
std::string leaf_subject(const DispatchCall& call, size_t leaf);

// The named element of a list, or R_NilValue.
SEXP list_field(SEXP x, const char* name);

// The dtype of an aval (a dtype code of ndbuf::DType) as the compile callback sees it.
const char* aval_dtype_name(int64_t code);

// The engines: the entry made from the normalised compile result, and a call run on it.
void build_pjrt_entry(const Dispatcher& d, SEXP finished, size_t dynamic_inputs,
                      DispatchEntry* entry);
SEXP run_pjrt_entry(const Dispatcher& d, const DispatchEntry& entry, const DispatchCall& call);
SEXP run_closure_entry(const DispatchEntry& entry, const DispatchCall& call);

}  // namespace pjrt
