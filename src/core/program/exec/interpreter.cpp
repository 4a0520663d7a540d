// The evaluation loop over planned steps.
#include "program/exec/interpreter.hpp"

#include <algorithm>

#include "ndbuf/memory/parallel.hpp"
#include "program/exec/result_check.hpp"

namespace ndbuf::program {

namespace {

// Whether ids[k] is dropped from the frame after this read (`released`) and read no more
// after position k.
bool last_read(const std::vector<int>& released, const std::vector<int>& ids, size_t k) {
  const int id = ids[k];
  if (std::find(released.begin(), released.end(), id) == released.end()) return false;
  return std::find(ids.begin() + static_cast<std::ptrdiff_t>(k) + 1, ids.end(), id) == ids.end();
}

}  // namespace

Values Interpreter::call(const FunctionPlan& plan, Values args) {
  const Function& fn = *plan.function;
  if (static_cast<int>(frames_.size()) >= kMaxCallDepth) {
    fail(ErrorKind::kInvalidArgument, "calls nested more than " + std::to_string(kMaxCallDepth) +
                                          " deep (at @" + fn.name + "): is the program recursive?");
  }
  std::unique_ptr<Values> frame = plan.spare_frame->take();
  frame->resize(static_cast<size_t>(fn.num_values));
  frames_.push_back({frame.get(), &fn});
  // The frame is emptied (its values released) and kept only when the call returns normally.
  struct Pop {
    std::vector<Frame>& frames;
    ~Pop() { frames.pop_back(); }
  } pop{frames_};
  Values out = run_region(*plan.body, std::move(args));
  frame->clear();
  plan.spare_frame->keep(std::move(frame));
  return out;
}

Values Interpreter::run_region(const RegionPlan& region, const Values& args) {
  Values& frame = *frames_.back().values;
  for (size_t k = 0; k < region.args.size(); ++k) {
    const bool read = k >= region.args_read.size() || region.args_read[k];
    frame[region.args[k]] = read ? args[k] : Value();
  }
  Values out;
  run_bound(region, out);
  return out;
}

Values Interpreter::run_region(const RegionPlan& region, Values&& args) {
  run_region_on(region, args);
  return std::move(args);
}

void Interpreter::run_region_on(const RegionPlan& region, Values& state) {
  Values& frame = *frames_.back().values;
  for (size_t k = 0; k < region.args.size(); ++k) frame[region.args[k]] = std::move(state[k]);
  run_bound(region, state);
}

void Interpreter::run_bound(const RegionPlan& region, Values& out) {
  if (region_depth_ >= kMaxRegionDepth) {
    fail(ErrorKind::kInvalidArgument,
         "calls and regions nested more than " + std::to_string(kMaxRegionDepth) + " deep (at @" +
             frames_.back().fn->name + ", line " + std::to_string(region.line) +
             "): is the program recursive?");
  }
  check_interrupt_periodically();
  ++region_depth_;
  struct Leave {
    int& depth;
    ~Leave() { --depth; }
  } leave{region_depth_};
  Values& frame = *frames_.back().values;
  Values operands;
  for (const Step& step : region.steps) {
    operands.clear();
    const bool in_place = step.in_place_argument >= 0 || step.in_place_operand >= 0;
    // A value read here for the last time moves (copying a tensor allocates its shape and
    // strides), unless the step counts the frame's hold (in place) or has regions, which read
    // the frame themselves.
    const bool may_move = !in_place && step.op->regions.empty();
    for (size_t k = 0; k < step.operands.size(); ++k) {
      const int id = step.operands[k];
      if (may_move && last_read(step.release, step.operands, k)) {
        operands.push_back(std::move(frame[id]));
      } else {
        operands.push_back(frame[id]);
      }
    }
    Values results = in_place ? run_in_place(step, operands, frame) : step.run(*this, operands);
    // A row-fused step's results are its cluster's values that leave it, not its anchor op's.
    if (!step.row_fused) {
      check_op_results(*step.op, results);
    } else if (results.size() != step.results.size()) {
      fail_at(step.op->loc,
              "internal error: a fused loop gave the wrong number of results; this "
              "is a bug in the runtime, please report it");
    }
    for (size_t k = 0; k < step.results.size(); ++k) frame[step.results[k]] = std::move(results[k]);
    for (int id : step.release) frame[id] = Value();
  }
  out.clear();
  out.reserve(region.returns.size());
  for (size_t k = 0; k < region.returns.size(); ++k) {
    const int id = region.returns[k];
    if (last_read(region.exit_release, region.returns, k)) {
      out.push_back(std::move(frame[id]));
    } else {
      out.push_back(frame[id]);
    }
  }
  for (int id : region.exit_release) frame[id] = Value();
}

void Interpreter::allow_in_place(std::vector<InPlaceWrite> writes) {
  in_place_.clear();
  for (InPlaceWrite& write : writes) {
    const auto k = static_cast<size_t>(write.argument);
    if (in_place_.size() <= k) in_place_.resize(k + 1);
    in_place_[k] = std::move(write);
  }
}

// The memory of value `id` when `step` may write its result there: after `release` (the
// caller's hold on a donated argument, if any) is called, the frame and this step's operands
// are all that hold the storage (no view, other argument or caller shares it), and it is
// writable host memory, dense from its first element (row-major, or column-major for a step
// that writes that layout: ResultMemory::take_offered() checks), of the step's result type.
std::optional<Tensor> Interpreter::donated_memory(const Step& step, int id,
                                                  const std::function<void()>* release,
                                                  const Values& frame) const {
  const Value& value = frame[id];
  if (!value.tensor) return std::nullopt;
  const Tensor& t = *value.tensor;
  const Type& type = step.op->result_types[0];
  const bool rows = t.is_contiguous(Order::kRowMajor);
  if (t.storage()->read_only() || !is_host(t.device()) || t.offset() != 0 ||
      (!rows && !t.is_contiguous(Order::kColumnMajor)) || t.dtype() != type.dtype ||
      t.shape() != type.shape) {
    return std::nullopt;
  }
  long holders = 1;  // the frame
  for (int operand : step.operands) holders += operand == id ? 1 : 0;
  if (context_.pool->holds(t.storage().get())) ++holders;
  const long count = t.storage().use_count();
  if (count == holders + 1 && release != nullptr && *release) {
    (*release)();  // the caller's hold
  }
  if (t.storage().use_count() != holders) return std::nullopt;
  return Tensor::dense(t.storage(), t.dtype(), t.shape(),
                       rows ? Order::kRowMajor : Order::kColumnMajor);
}

// A donated argument first (its result must land in the caller's memory when it can), then
// an operand the region no longer needs.
Values Interpreter::run_in_place(const Step& step, const Values& operands, const Values& frame) {
  std::optional<Tensor> memory;
  const auto k = static_cast<size_t>(step.in_place_argument);
  if (step.in_place_argument >= 0 && k < in_place_.size() && in_place_[k].value >= 0) {
    memory = donated_memory(step, in_place_[k].value, &in_place_[k].release, frame);
  }
  if (!memory && step.in_place_operand >= 0) {
    memory = donated_memory(step, step.operands[static_cast<size_t>(step.in_place_operand)],
                            nullptr, frame);
  }
  if (!memory) return step.run(*this, operands);
  // The offer lasts for this step alone, also when it throws.
  struct Withdraw {
    ExecContext& context;
    ~Withdraw() { context.result = ResultMemory(); }
  } const withdraw{context_};
  context_.result = ResultMemory(std::move(*memory));
  return step.run(*this, operands);
}

RegionFn Interpreter::region_fn(const RegionPlan& region) {
  return [this, region = &region](const std::vector<Tensor>& args) {
    return tensors_of(run_region(*region, Values(args.begin(), args.end())));
  };
}

}  // namespace ndbuf::program
