// StableHLO programs (MLIR text) compiled once and executed on host tensors by ndbuf's own
// runtime: no plugin, no LLVM/MLIR. compile() parses, verifies and plans; execute() never
// re-parses. Every compile error is an InvalidArgument error "line:column: message".
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "ndbuf/base/dtype.hpp"
#include "ndbuf/base/shape.hpp"
#include "ndbuf/memory/device.hpp"
#include "ndbuf/memory/device_queue.hpp"
#include "ndbuf/memory/tensor.hpp"

namespace ndbuf::program {

// A tensor type of @main's signature. Shapes are StableHLO's logical shapes (dimension 0
// first, as written in the program: tensor<2x3xf32> is {2, 3}).
struct TensorType {
  DType dtype = DType::kF32;
  Shape shape;
};

struct Signature {
  std::vector<TensorType> inputs;
  std::vector<TensorType> outputs;
  // Per input: the 0-based result it may be donated to ({tf.aliasing_output = K : i32}).
  std::vector<std::optional<int>> aliasing_output;
};

// "tensor<2x3xf32>", "tensor<i1>" (MLIR spelling of the element type).
std::string tensor_type_to_string(const TensorType& type);
// "(tensor<2xf32>, tensor<f32>) -> (tensor<2xf32>)"; "() -> (tensor<f32>)" without inputs.
std::string signature_to_string(const Signature& signature);

class Executable;
class Backend;

struct CompileOptions {
  // Exact rewrites before planning: identities forwarded, chains of transposes, reshapes and
  // broadcasts shortened, equal pure ops merged, dead ones removed (program/passes/
  // canonicalise.hpp; the same bits either way, tests compare both).
  bool canonicalise = true;
  // With canonicalise: transposes of element-wise results move onto the element-wise ops'
  // operands, so that chains with transposes between their links fuse (program/passes/
  // sink_transposes.hpp; the same bits either way, tests compare both).
  bool sink_transposes = true;
  // With canonicalise: a Cholesky factor's triangle mask (JAX's select of an iota comparison
  // and zeros) is folded into the factor, whose kernel writes those zeros already
  // (program/passes/mask_factors.hpp; the same bits either way, tests compare both).
  bool mask_factors = true;
  // Chains of element-wise ops run as one pass over memory (results are the same either way;
  // tests compare both).
  bool fuse_elementwise = true;
  // Element-wise producers and consumers of reductions over the trailing dims (softmax, layer
  // norm) run with the reduction as one pass over blocks of rows (only with fuse_elementwise;
  // the same bits either way).
  bool fuse_reductions = true;
  // A matrix-vector product, an element-wise chain from it and the product of the same
  // matrix's transpose with the chain's end (a linear model's gradient: X' f(X w)) run as one
  // pass over the matrix in blocks of rows (only with fuse_elementwise). The one pass that
  // changes a summation order: its folds are its own (program/exec/matvec_pairs.hpp states
  // them and their bound), not the BLAS's; results never depend on the thread count.
  bool fuse_matvec_pairs = true;
  // Region bodies made of element-wise ops (reduce, sort, scatter, map, ... bodies) run as
  // compiled element programs; false calls them through the interpreter (same results; tests
  // compare both).
  bool compile_region_bodies = true;
  // Arguments a while loop reads, arriving in another layout than dense row-major, are copied
  // to it once per run instead of read strided every iteration (program/exec/loop_layout.hpp;
  // the same results either way, tests compare both).
  bool loop_layouts = true;
  // A fused loop whose result @main returns (and nothing else reads) writes it in the layout
  // its full-size operands share when that is column-major (R's matrices), reading and writing
  // in memory order, so neither the loop nor the reader of the result transposes; a lone
  // element-wise op of that kind runs as a fused loop for this (exec/fused_run.cpp; the same
  // values either way, tests compare both).
  bool result_layouts = true;
  // What lowers the planned ops to run functions (program/exec/backend.hpp); null: the CPU
  // backend. Other backends are internal to the core for now (its tests plug one in).
  const Backend* backend = nullptr;
};

// Parses, verifies and plans `text`; the result is immutable and may be executed many times
// (also from several threads at once). `device` must be a CPU device: a CUDA device is an
// error (CPU only in this version).
std::shared_ptr<const Executable> compile(std::string_view text, Device device = Device{},
                                          const CompileOptions& options = {});

const Signature& signature(const Executable& executable);
// What the runtime made of @main after its passes: one line per step it runs (a fused step with
// the ops it runs), result types and sizes, program lines.
std::string plan_text(const Executable& executable);
const Device& device(const Executable& executable);

// Per argument of @main: whether the program reads it faster dense row-major than in another
// layout (R's matrices are column-major): an argument a step inside a while loop reads (with
// CompileOptions::loop_layouts), one whose rows a gather takes whole (an embedding table), one
// a cluster fused through its reductions over trailing dims reads (softmax, layer norm), the
// operands of a convolution and of a dot_general of batches of matrices. A
// caller that holds an argument for many runs may keep a dense row-major copy of it and pass
// that; execute() itself copies only the loops' arguments, once per run.
const std::vector<bool>& row_major_arguments(const Executable& executable);

struct ExecuteOptions {
  // 0-based indices of @main arguments that are not donated although the program marks them
  // with tf.aliasing_output. An index that names no argument is an error.
  std::vector<int64_t> non_donatable_input_indices;
  // Called once with the 0-based index of each donated argument when the run gives up the
  // caller's claim to it: just before an op writes its result into that argument's memory, or
  // else once the run has succeeded. The caller then drops its own handle to the input (an R
  // binding invalidates the buffer), so a failed run leaves an argument whose memory it did
  // not write as it was.
  std::function<void(size_t)> on_donated;
  // The threads the run may use (its execution context's thread count, ThreadBudget); 0: the
  // running thread's max_threads(). A run queued for another thread carries its caller's.
  int threads = 0;
};

// Per argument of @main: whether a run under `options` donates it (marked with
// tf.aliasing_output, not excluded). Throws kInvalidArgument for an excluded index that names
// no argument.
std::vector<bool> donated_arguments(const Executable& executable, const ExecuteOptions& options);

// Runs @main. `inputs` are host tensors of @main's argument types, any strides and offsets;
// count, dtype and shape are checked (errors name the 1-based argument, what was expected and
// what was given, with "shape" or "size" in the text); a tensor on another device than the
// executable's is an error containing "compiled for device". The run holds a DeviceScope for
// the executable's device, so its kernels allocate their results there and results are on it
// without a copy.
//
// Donation: the memory of a donated argument becomes the memory of the result it is aliased
// to when the run owns it alone (the caller moved its tensor in, or holds one handle that
// on_donated releases; no view, other argument or other owner shares the storage), it is
// writable (never an R vector's memory, a mapped file or an imported array: read-only
// storage), dense row-major from its first element, and either the op computing that result
// reads the argument for the last time and writes element by element (element-wise ops and
// fused groups), or @main returns the argument itself. Otherwise the result is fresh memory.
//
// Results are dense row-major host tensors on the executable's device that share memory with
// no input the caller still holds, no constant of the program and no other result.
std::vector<Tensor> execute(const Executable& executable, std::vector<Tensor> inputs,
                            const ExecuteOptions& options = {});

// Whether the program calls out of the runtime (custom_call targets: user code, which may need
// the embedding runtime's thread): such a program is never run asynchronously.
bool calls_out(const Executable& executable);

// Whether execute_async() would run the program on the calling thread now: it has no while
// loop (whose runs may take any time), its latest run took under 50 us (the cost
// of handing a run to the device's worker and waking the reader again is about twice that),
// and no queued run has yet to report its results (on any device), so the run cannot overtake
// earlier work.
bool runs_on_calling_thread(const Executable& executable);
// Sets the run time under which runs_on_calling_thread() counts a run as quick (50 us unless
// set), returning the previous value: tests set it where a sanitizer build makes every run slow.
int64_t set_quick_run_ns(int64_t ns);

// execute() on the executable's device queue (ndbuf/memory/device_queue.hpp): returns at once,
// and the results are ready when the returned PendingTensors is. Inputs are checked here (the
// errors execute() gives, thrown now); errors of the run itself are thrown by the waits on its
// results. Donated arguments are given up at this call: options.on_donated is called for each,
// after the inputs were checked and before the run is queued, so the caller drops its handle and
// the run holds their memory alone. The run uses the calling thread's thread count
// (max_threads()). Jobs on one device run in the order enqueued.
//
// A run that is cheaper than the trip through the queue runs on the calling thread instead
// (runs_on_calling_thread()), and its PendingTensors is ready when this returns.
std::shared_ptr<PendingTensors> execute_async(std::shared_ptr<const Executable> executable,
                                              std::vector<Tensor> inputs,
                                              ExecuteOptions options = {});

// The process grid the program declares (its module's mhlo.num_replicas and
// mhlo.num_partitions, 1 each when absent): execute_processes() runs it on that many devices.
int num_replicas(const Executable& executable);
int num_partitions(const Executable& executable);

// Runs @main once per process of the program's grid, concurrently, process k (replica-major:
// k = replica * num_partitions + partition) on devices[k] with inputs[k]; its collectives
// (all_reduce, all_gather, ...) meet across the processes. Returns each process's results, in
// the same order. Devices must be distinct CPU devices, one per process; each input list is
// checked as execute() checks its inputs, against its process's device. Nothing is donated in
// such a run (aliasing marks are ignored). When a process fails, the others' collectives fail
// too instead of waiting, and the error thrown is the first failure's, prefixed with its
// process ("process (1, 0): ..."). A collective whose peers do not arrive within
// `collective_timeout_ms` (0: the environment variable PJRT_COLLECTIVE_TIMEOUT in seconds, else
// 60 s) fails every member. The results of different processes may share one read-only block
// where their values agree by construction (a large all_reduce's; Storage::shared_result()).
std::vector<std::vector<Tensor>> execute_processes(const Executable& executable,
                                                   std::vector<std::vector<Tensor>> inputs,
                                                   const std::vector<Device>& devices,
                                                   int64_t collective_timeout_ms = 0);

// A run spread over several operating-system processes ("ranks", as MPI launches them): each
// rank runs the processes of the grid on its own devices, rank r the ones after those of ranks
// 0 .. r-1, and the collectives cross between ranks through MPI. After init_distributed(),
// execute_processes() of a program whose grid has as many processes as the ranks have devices
// in all takes the inputs and devices of this rank's processes only, and returns their results.
// The first such run of an executable compares the program's fingerprint across ranks: ranks
// that compiled different programs fail at once, naming them.
struct DistributedInfo {
  bool active = false;        // init_distributed() has run
  int rank = 0;               // this process's rank
  int size = 1;               // how many ranks
  std::vector<int> devices;   // per rank, how many devices it runs
  int first_process = 0;      // this rank's first process of a grid
  bool mpi_built_in = false;  // this build can connect ranks over MPI
};

// Connects this process to its ranks over MPI (initialising MPI unless another library in the
// process did: then it is shared) with `local_devices` devices here. Every rank must call it;
// it waits for all of them, at most `timeout_ms` (0: PJRT_COLLECTIVE_TIMEOUT, else 60 s).
// A second call with the same count returns the same; another count is an error. Throws kDevice
// when this build has no MPI.
DistributedInfo init_distributed(int local_devices, int64_t timeout_ms = 0);
DistributedInfo distributed_info();
// Finalises MPI where init_distributed() initialised it (at the end of the process).
void end_distributed();

// How many results execute() has copied (from every thread) to hand them out because they
// shared memory or lay on another device than the executable's; for tests.
int64_t result_copy_count();

}  // namespace ndbuf::program
