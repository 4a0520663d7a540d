// The evaluation loop over planned ops.
#include "program/exec/interpreter.hpp"

#include "ndbuf/memory/parallel.hpp"
#include "program/exec/result_check.hpp"
#include "program/kernels/block_scratch.hpp"

namespace ndbuf::program {

Values Interpreter::call(const Function& fn, Values args) {
  if (static_cast<int>(frames_.size()) >= kMaxCallDepth) {
    fail(ErrorKind::kInvalidArgument, "calls nested more than " + std::to_string(kMaxCallDepth) +
                                          " deep (at @" + fn.name + "): is the program recursive?");
  }
  Values frame(static_cast<size_t>(fn.num_values));
  frames_.push_back({&frame, &fn});
  struct Pop {
    std::vector<Frame>& frames;
    ~Pop() { frames.pop_back(); }
  } pop{frames_};
  return run_region(fn.body, std::move(args));
}

Values Interpreter::run_region(const Region& region, Values args) {
  if (region_depth_ >= kMaxRegionDepth) {
    fail(ErrorKind::kInvalidArgument,
         "calls and regions nested more than " + std::to_string(kMaxRegionDepth) + " deep (at @" +
             frames_.back().fn->name + ", line " + std::to_string(region.loc.line) +
             "): is the program recursive?");
  }
  if ((++region_entries_ & 0x3FF) == 0) check_interrupt();
  ++region_depth_;
  struct Leave {
    int& depth;
    ~Leave() { --depth; }
  } leave{region_depth_};
  Values& frame = *frames_.back().values;
  for (size_t k = 0; k < region.args.size(); ++k) frame[region.args[k]] = std::move(args[k]);
  Values operands;
  for (const Op& op : region.ops) {
    if (op.absorbed) continue;
    operands.clear();
    for (int id : op.operands) operands.push_back(frame[id]);
    if (op.name == "return") return operands;
    Values results = in_place_.empty() ? op.run(*this, operands) : run_op(op, operands, frame);
    check_op_results(op, results);
    for (size_t k = 0; k < op.results.size(); ++k) frame[op.results[k]] = std::move(results[k]);
    for (int id : op.release) frame[id] = Value();
  }
  return {};
}

// The value's memory when `write.op` may write its result there: after the caller's hold is
// released, the frame and this op's operands are all that hold the storage (no view, other
// argument or caller shares it), and it is writable host memory, dense row-major from its
// first element, of the op's result type.
std::optional<Tensor> Interpreter::donated_memory(const InPlaceWrite& write, const Values& frame) {
  const Value& value = frame[write.value];
  if (!value.tensor) return std::nullopt;
  const Tensor& t = *value.tensor;
  const Type& type = write.op->result_types[0];
  if (t.storage()->read_only() || !is_host(t.device()) || t.offset() != 0 ||
      !t.is_contiguous(Order::kRowMajor) || t.dtype() != type.dtype || t.shape() != type.shape) {
    return std::nullopt;
  }
  long holders = 1;  // the frame
  for (int id : write.op->operands) holders += id == write.value ? 1 : 0;
  const long count = t.storage().use_count();
  if (count == holders + 1 && write.release) {
    write.release();  // the caller's hold
  }
  if (t.storage().use_count() != holders) return std::nullopt;
  return Tensor::dense(t.storage(), t.dtype(), t.shape(), Order::kRowMajor);
}

Values Interpreter::run_op(const Op& op, const Values& operands, const Values& frame) {
  for (const InPlaceWrite& write : in_place_) {
    if (write.op != &op) continue;
    std::optional<Tensor> memory = donated_memory(write, frame);
    if (!memory) break;
    const OfferedMemoryScope offer(std::move(*memory));
    return op.run(*this, operands);
  }
  return op.run(*this, operands);
}

RegionFn Interpreter::region_fn(const Region& region) {
  return [this, &region](const std::vector<Tensor>& args) {
    Values values(args.begin(), args.end());
    const Values results = run_region(region, values);
    std::vector<Tensor> out;
    out.reserve(results.size());
    for (const Value& v : results) out.push_back(v.get());
    return out;
  };
}

}  // namespace ndbuf::program
