// The evaluation loop over planned ops.
#include "program/exec/interpreter.hpp"

#include "ndbuf/memory/parallel.hpp"
#include "program/exec/result_check.hpp"

namespace ndbuf::program {

Values Interpreter::call(const Function& fn, const Values& args) {
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
  return run_region(fn.body, args);
}

Values Interpreter::run_region(const Region& region, const Values& args) {
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
  for (size_t k = 0; k < region.args.size(); ++k) frame[region.args[k]] = args[k];
  Values operands;
  for (const Op& op : region.ops) {
    if (op.absorbed) continue;
    operands.clear();
    for (int id : op.operands) operands.push_back(frame[id]);
    if (op.name == "return") return operands;
    Values results = op.run(*this, operands);
    check_op_results(op, results);
    for (size_t k = 0; k < op.results.size(); ++k) frame[op.results[k]] = std::move(results[k]);
    for (int id : op.release) frame[id] = Value();
  }
  return {};
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
