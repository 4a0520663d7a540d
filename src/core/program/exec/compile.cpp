// The compile pipeline and the public API of ndbuf/program.hpp.
#include "program/exec/compile.hpp"

#include <atomic>
#include <chrono>

#include "ndbuf/memory/transfer.hpp"
#include "ndbuf/program/program.hpp"
#include "program/exec/builders.hpp"
#include "program/exec/donation.hpp"
#include "program/exec/executable.hpp"
#include "program/exec/loop_layout.hpp"
#include "program/passes/mask_factors.hpp"
#include "program/passes/sink_transposes.hpp"
#include "program/text/parser.hpp"
#include "program/verify/verifier.hpp"

namespace ndbuf::program {

PlannedModule compile_module(std::string_view text, bool require_main,
                             const CompileOptions& options) {
  PlannedModule out;
  Module module = parse_program(text);
  verify_module(module, require_main);
  if (options.canonicalise) {
    out.canonicalised = canonicalise(module);
    if (options.sink_transposes) {
      // The moved transposes meet each other and shared operands: canonicalise what they left.
      const int sunk = sink_transposes(module);
      if (sunk > 0) out.canonicalised += canonicalise(module);
      out.canonicalised.sunk += sunk;
    }
    if (options.mask_factors) {
      // The masks' iotas, comparisons and zeros are dead now.
      const int masks = mask_factors(module);
      if (masks > 0) out.canonicalised += canonicalise(module);
      out.canonicalised.masks += masks;
    }
  }
  out.module = std::make_unique<const Module>(std::move(module));
  std::unique_ptr<Plan> plan =
      plan_module(*out.module,
                  {options.fuse_elementwise, options.fuse_elementwise && options.fuse_reductions,
                   options.compile_region_bodies, options.result_layouts,
                   options.fuse_elementwise && options.fuse_matvec_pairs},
                  options.backend);
  if (const Function* main = out.module->find("main"); main != nullptr && main->has_body) {
    plan_in_place_writes(*main, plan->mutable_region(main->body));
  }
  out.plan = std::move(plan);
  return out;
}

namespace {

std::atomic<int64_t> g_result_copies{0};

// FNV-1a of the program text: ranks that compiled the same text agree on it.
uint64_t text_fingerprint(std::string_view text) {
  uint64_t h = 14695981039346656037ULL;
  for (const char c : text) {
    h ^= static_cast<unsigned char>(c);
    h *= 1099511628211ULL;
  }
  return h;
}

TensorType tensor_type(const Type& t) { return TensorType{t.dtype, t.shape}; }

// The module's process grid: mhlo.num_replicas x mhlo.num_partitions, each 1 when absent.
ProcessGrid declared_grid(const Module& module) {
  const auto count = [&](const char* key) {
    const Attribute* attr = find_attr(module.attrs, key);
    if (attr == nullptr) return 1;
    if (attr->kind != Attribute::Kind::kInt || attr->integer < 1 || attr->integer > 4096) {
      fail(ErrorKind::kInvalidArgument,
           std::string("module attribute ") + key + " must be an integer from 1 to 4096");
    }
    return static_cast<int>(attr->integer);
  };
  return ProcessGrid{count("mhlo.num_replicas"), count("mhlo.num_partitions")};
}

// Whether any function of the module holds a custom_call, in any region.
bool has_op(const Module& module, OpId id) {
  std::vector<const Region*> pending;
  for (const Function& fn : module.functions) pending.push_back(&fn.body);
  while (!pending.empty()) {
    const Region* region = pending.back();
    pending.pop_back();
    for (const Op& op : region->ops) {
      if (op.id == id) return true;
      for (const Region& inner : op.regions) pending.push_back(&inner);
    }
  }
  return false;
}

std::string nth(size_t k) { return "argument " + std::to_string(k + 1); }

}  // namespace

std::string tensor_type_to_string(const TensorType& type) {
  return type_to_string(Type::tensor(type.dtype, type.shape));
}

std::string signature_to_string(const Signature& signature) {
  auto list = [](const std::vector<TensorType>& types) {
    std::string text;
    for (size_t k = 0; k < types.size(); ++k)
      text += (k ? ", " : "") + tensor_type_to_string(types[k]);
    return "(" + text + ")";
  };
  return list(signature.inputs) + " -> " + list(signature.outputs);
}

std::shared_ptr<const Executable> compile(std::string_view text, Device device,
                                          const CompileOptions& options) {
  if (!is_host(device)) {
    fail(ErrorKind::kDevice,
         "programs run only on CPU devices in this version, not on " + device_spec(device));
  }
  const DeviceScope on_device(device);  // the program's constants live on its device
  auto e = std::make_shared<Executable>();
  e->program = compile_module(text, true, options);
  e->main = e->program.module->find("main");
  e->main_plan = &e->program.plan->function(*e->main);
  e->device = device;
  e->grid = declared_grid(*e->program.module);
  e->calls_out = has_op(*e->program.module, OpId::kCustomCall);
  e->loops = has_op(*e->program.module, OpId::kWhile);
  e->fingerprint = text_fingerprint(text);
  if (options.loop_layouts) {
    e->loop_read_args = args_read_in_loops(*e->program.plan, *e->main);
  }
  e->row_major_args = args_read_by_rows(*e->program.plan, *e->main);
  for (size_t k = 0; k < e->loop_read_args.size(); ++k) {
    if (e->loop_read_args[k]) e->row_major_args[k] = true;
  }
  for (size_t k = 0; k < e->main->body.arg_types.size(); ++k) {
    e->signature.inputs.push_back(tensor_type(e->main->body.arg_types[k]));
    const auto& alias = e->main->aliasing_output[k];
    e->signature.aliasing_output.push_back(alias ? std::optional<int>(static_cast<int>(*alias))
                                                 : std::nullopt);
  }
  for (const Type& t : e->main->result_types) e->signature.outputs.push_back(tensor_type(t));
  return e;
}

std::string plan_text(const Executable& executable) { return plan_text(executable.program); }

const Signature& signature(const Executable& executable) { return executable.signature; }
const Device& device(const Executable& executable) { return executable.device; }
const std::vector<bool>& row_major_arguments(const Executable& executable) {
  return executable.row_major_args;
}

std::vector<bool> donated_arguments(const Executable& e, const ExecuteOptions& options) {
  const size_t count = e.signature.inputs.size();
  std::vector<bool> donated(count);
  for (size_t k = 0; k < count; ++k) donated[k] = e.signature.aliasing_output[k].has_value();
  for (int64_t index : options.non_donatable_input_indices) {
    if (index < 0 || static_cast<uint64_t>(index) >= count) {
      fail(ErrorKind::kInvalidArgument, "non_donatable_input_indices names argument " +
                                            std::to_string(index) + " (0-based), but @main has " +
                                            std::to_string(count) + " arguments");
    }
    donated[static_cast<size_t>(index)] = false;
  }
  return donated;
}

int64_t result_copy_count() { return g_result_copies.load(std::memory_order_relaxed); }

void check_input(const Executable& e, size_t k, const Tensor& input, const Device& device) {
  const TensorType& want = e.signature.inputs[k];
  if (input.device() != device) {
    fail(ErrorKind::kInvalidArgument, nth(k) + " is on device " + device_spec(input.device()) +
                                          ", but the program was compiled for device " +
                                          device_spec(device));
  }
  if (input.dtype() != want.dtype) {
    fail(ErrorKind::kInvalidArgument, nth(k) + " of @main must have element type " +
                                          element_type_name(want.dtype) + ", not " +
                                          element_type_name(input.dtype()));
  }
  if (input.shape() != want.shape) {
    fail(ErrorKind::kInvalidArgument, nth(k) + " of @main must have shape " +
                                          shape_to_tuple(want.shape) + ", not shape " +
                                          shape_to_tuple(input.shape()));
  }
}

// Results are handed out as they are when nothing else holds their memory and it is dense on
// the executable's device, row-major or column-major (a row gather of an R matrix: R reads it
// back without a transpose); otherwise (a constant, an input the caller holds, a value
// returned twice, a strided view such as an iota or a reshape of a strided value) they are
// copied.
std::vector<Tensor> hand_out(Values results, const Device& device) {
  std::vector<Tensor> out;
  out.reserve(results.size());
  for (Value& v : results) {
    const Tensor& t = v.get();
    const bool dense = t.is_contiguous(Order::kRowMajor) || t.is_contiguous(Order::kColumnMajor);
    const Storage& memory = *t.storage();
    const bool owned = t.storage().use_count() == 1 && !memory.read_only();
    const bool sole =
        dense && t.offset() == 0 && t.device() == device && (owned || memory.shared_result());
    if (sole) {
      out.push_back(std::move(*v.tensor));
      continue;
    }
    Tensor fresh = Tensor::allocate(t.dtype(), t.shape(), Order::kRowMajor, device);
    copy_to_dense(t, fresh.data(), Order::kRowMajor);
    g_result_copies.fetch_add(1, std::memory_order_relaxed);
    out.push_back(fresh);
  }
  return out;
}

void check_inputs(const Executable& e, const std::vector<Tensor>& inputs) {
  if (inputs.size() != e.signature.inputs.size()) {
    fail(ErrorKind::kInvalidArgument, "@main takes " + std::to_string(e.signature.inputs.size()) +
                                          " arguments but " + std::to_string(inputs.size()) +
                                          " were given");
  }
  for (size_t k = 0; k < inputs.size(); ++k) check_input(e, k, inputs[k], e.device);
}

std::vector<Tensor> execute(const Executable& e, std::vector<Tensor> inputs,
                            const ExecuteOptions& options) {
  if (e.grid.size() > 1) {
    fail(ErrorKind::kInvalidArgument, "the program declares " + std::to_string(e.grid.size()) +
                                          " processes (" + std::to_string(e.grid.replicas) +
                                          " replica(s) x " + std::to_string(e.grid.partitions) +
                                          " partition(s)): run it on as many devices at once");
  }
  check_inputs(e, inputs);
  for (size_t k = 0; k < e.loop_read_args.size(); ++k) {
    if (e.loop_read_args[k]) inputs[k] = loop_layout(inputs[k]);
  }
  const std::vector<bool> donated = donated_arguments(e, options);
  std::vector<bool> released(donated.size(), false);
  const auto release = [&](size_t k) {
    if (!donated[k] || released[k]) return;
    released[k] = true;
    if (options.on_donated) options.on_donated(k);
  };
  Interpreter interpreter(*e.program.plan, e.device);
  std::vector<InPlaceWrite> writes;
  for (size_t k = 0; k < donated.size(); ++k) {
    if (donated[k]) {
      writes.push_back({static_cast<int>(k), e.main->body.args[k], [&release, k] { release(k); }});
    }
  }
  interpreter.allow_in_place(std::move(writes));
  Values args;
  args.reserve(inputs.size());
  for (Tensor& input : inputs) args.emplace_back(std::move(input));
  inputs.clear();
  // The tensors the run's kernels make live on the run's device (its context's), in the
  // storages of the run before where one of the size is free.
  interpreter.context().threads = options.threads;
  const ContextScopes scopes(interpreter.context());
  interpreter.context().pool = e.kept_pool.take();
  StoragePool& pool = *interpreter.context().pool;
  const auto start = std::chrono::steady_clock::now();
  Values results;
  {
    const PoolScope pooled(pool);
    results = interpreter.call(*e.main_plan, std::move(args));
  }
  e.last_run_ns.store(
      std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now() - start)
          .count(),
      std::memory_order_relaxed);
  // The results are then held by themselves; every other storage the pool keeps is free.
  for (const Value& result : results) pool.forget(result.get().storage().get());
  e.kept_pool.keep(std::move(interpreter.context().pool));
  for (size_t k = 0; k < donated.size(); ++k) release(k);
  return hand_out(std::move(results), e.device);
}

}  // namespace ndbuf::program
