// The dispatcher's engines: "pjrt" runs a compiled executable on the call's buffers (bare R
// data uploaded, inputs moved, phantom buffers allocated) and wraps the results as AnvlArrays;
// any other backend calls the R closure its compile callback returned.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/convert/buffer.hpp"
#include "r_dispatch.h"
#include "r_object.h"
#include "r_program.h"
#include "r_tensor.h"

namespace pjrt {
namespace {

[[noreturn]] void fail_entry(const std::string& message) {
  ndbuf::fail(ndbuf::ErrorKind::kInvalidArgument, message);
}

ndbuf::DType dtype_named(SEXP names, R_xlen_t k) {
  const std::optional<ndbuf::DType> dtype = ndbuf::parse_dtype(CHAR(STRING_ELT(names, k)));
  if (!dtype) fail_entry(std::string("Unsupported type \"") + CHAR(STRING_ELT(names, k)) + "\".");
  return *dtype;
}

// The buffer a dynamic input is run with: an array's buffer (copied to the entry's device under
// move_inputs), or bare R data uploaded at the entry's declared dtype (else pred, i32, f32).
SEXP input_buffer(const Dispatcher& d, const DispatchEntry& entry, const DispatchCall& call,
                  size_t k) {
  const SEXP value = call.inputs[k];
  const size_t leaf = call.input_leaf[k];
  if (call.kinds[leaf] == LeafKind::kArray) {
    if (d.move_inputs) {
      const ndbuf::Tensor& tensor = unwrap_buffer(value);
      if (tensor.device() != entry.target) {
        const MappedReadCheck reads;
        ndbuf::Tensor moved = ndbuf::buffer_copy_to(tensor, entry.target);
        reads.done();
        return wrap_buffer(std::move(moved));
      }
    }
    return value;
  }
  const int64_t* aval = call.avals.data() + call.aval_at[leaf];
  ndbuf::Shape shape(aval + 3, aval + 3 + aval[2]);
  const int declared = k < entry.input_dtypes.size() ? entry.input_dtypes[k] : -1;
  const auto dtype = static_cast<ndbuf::DType>(declared >= 0 ? declared : aval[0]);
  ndbuf::BufferFromR made =
      buffer_from_vector(value, false, dtype, shape, ndbuf::MissingCheck::kIgnore, entry.target);
  return wrap_buffer(std::move(made.tensor));
}

}  // namespace

void build_pjrt_entry(const Dispatcher& /*d*/, SEXP finished, size_t dynamic_inputs,
                      DispatchEntry* entry) {
  entry->program = find_executable(list_field(finished, "exec"));
  if (entry->program == nullptr)
    fail_entry("compile callback must return `exec` (a PJRTLoadedExecutable)");
  entry->target = ndbuf::resolve_device(CHAR(STRING_ELT(list_field(finished, "device_spec"), 0)));
  entry->out_tree = list_field(finished, "out_tree");
  entry->templates = list_field(finished, "templates");
  entry->const_arrays = list_field(finished, "const_arrays");
  const ndbuf::program::Signature& signature = ndbuf::program::signature(*entry->program);
  const int64_t outputs = tree_size(unwrap_tree(entry->out_tree));
  if (outputs != static_cast<int64_t>(signature.outputs.size())) {
    fail_entry("out_tree has " + std::to_string(outputs) + (outputs == 1 ? " leaf" : " leaves") +
               " but the executable returned " + std::to_string(signature.outputs.size()) +
               (signature.outputs.size() == 1 ? " output" : " outputs"));
  }
  const SEXP phantom_dtypes = list_field(finished, "phantom_dtypes");
  const SEXP phantom_shapes = list_field(finished, "phantom_shapes");
  for (R_xlen_t k = 0; k < Rf_xlength(phantom_dtypes); ++k) {
    entry->phantom_dtypes.push_back(dtype_named(phantom_dtypes, k));
    entry->phantom_shapes.push_back(shape_from_r(VECTOR_ELT(phantom_shapes, k)));
  }
  const SEXP input_dtypes = list_field(finished, "input_dtypes");
  if (input_dtypes != R_NilValue) {
    if (static_cast<size_t>(Rf_xlength(input_dtypes)) != dynamic_inputs) {
      fail_entry("`input_dtypes` has " + std::to_string(Rf_xlength(input_dtypes)) +
                 " elements, but the call has " + std::to_string(dynamic_inputs) + " inputs");
    }
    for (R_xlen_t k = 0; k < Rf_xlength(input_dtypes); ++k) {
      entry->input_dtypes.push_back(STRING_ELT(input_dtypes, k) == NA_STRING
                                        ? -1
                                        : static_cast<int>(dtype_named(input_dtypes, k)));
    }
  }
  const size_t supplied = static_cast<size_t>(Rf_xlength(entry->const_arrays)) + dynamic_inputs +
                          entry->phantom_dtypes.size();
  if (supplied != signature.inputs.size()) {
    fail_entry("The executable takes " + std::to_string(signature.inputs.size()) +
               (signature.inputs.size() == 1 ? " argument" : " arguments") +
               ", but a call supplies " + std::to_string(supplied) + " (" +
               std::to_string(Rf_xlength(entry->const_arrays)) + " const_arrays, " +
               std::to_string(dynamic_inputs) + " inputs, " +
               std::to_string(entry->phantom_dtypes.size()) + " phantom_specs)");
  }
  // Arguments marked tf.aliasing_output are donated, except const_arrays: the entry keeps them
  // for every call.
  const auto constants = static_cast<size_t>(Rf_xlength(entry->const_arrays));
  for (size_t k = 0; k < constants && k < signature.aliasing_output.size(); ++k) {
    if (signature.aliasing_output[k].has_value())
      entry->kept_arguments.push_back(static_cast<int64_t>(k));
  }
}

SEXP run_pjrt_entry(const Dispatcher& d, const DispatchEntry& entry, const DispatchCall& call) {
  const R_xlen_t constants = Rf_xlength(entry.const_arrays);
  const R_xlen_t count = constants + static_cast<R_xlen_t>(call.inputs.size()) +
                         static_cast<R_xlen_t>(entry.phantom_dtypes.size());
  cpp11::writable::list buffers(count);
  R_xlen_t at = 0;
  for (R_xlen_t k = 0; k < constants; ++k)
    SET_VECTOR_ELT(buffers, at++, VECTOR_ELT(entry.const_arrays, k));
  for (size_t k = 0; k < call.inputs.size(); ++k) {
    SET_VECTOR_ELT(buffers, at++, input_buffer(d, entry, call, k));
  }
  for (size_t k = 0; k < entry.phantom_dtypes.size(); ++k) {
    SET_VECTOR_ELT(buffers, at++,
                   wrap_buffer(ndbuf::buffer_empty(entry.phantom_dtypes[k], entry.phantom_shapes[k],
                                                   entry.target)));
  }
  ndbuf::program::ExecuteOptions options;
  options.non_donatable_input_indices = entry.kept_arguments;
  cpp11::sexp results = execute_program(*entry.program, buffers, std::move(options));
  const R_xlen_t n = Rf_xlength(results);
  cpp11::writable::list wrapped(n);
  std::vector<SEXP> leaves(static_cast<size_t>(n));
  for (R_xlen_t k = 0; k < n; ++k) {
    const SEXP array = cpp11::safe[Rf_shallow_duplicate](VECTOR_ELT(entry.templates, k));
    SET_VECTOR_ELT(wrapped, k, array);  // rooted before the next allocation
    SET_VECTOR_ELT(array, 0, VECTOR_ELT(results, k));
    leaves[static_cast<size_t>(k)] = array;
  }
  return unflatten_tree(unwrap_tree(entry.out_tree), leaves.data());
}

SEXP run_closure_entry(const DispatchEntry& entry, const DispatchCall& call) {
  cpp11::writable::list inputs(static_cast<R_xlen_t>(call.inputs.size()));
  for (size_t k = 0; k < call.inputs.size(); ++k) SET_VECTOR_ELT(inputs, k, call.inputs[k]);
  return cpp11::function(entry.r_fun)(inputs);
}

}  // namespace pjrt
