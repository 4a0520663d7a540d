// interpreter.run_parallel, the StableHLO interpreter's way of running a process grid in its
// tests: programs = [[@f, ...], ...] names the function of each process (one list per replica,
// one entry per partition); the operands are handed out in process order, each function taking
// as many as it has arguments, and the results come back in the same order.
#include "program/exec/builders.hpp"
#include "program/exec/process_launch.hpp"
#include "program/ir/attr_access.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {
namespace {

// The function names, replica-major; `partitions` set to the length of every row.
std::vector<std::string> program_names(const Op& op, int& replicas, int& partitions) {
  const Attribute& programs = required_attr(op, "programs");
  if (programs.kind != Attribute::Kind::kList || programs.items.empty()) {
    op_error(op, "programs must be a non-empty list of non-empty lists of functions");
  }
  std::vector<std::string> names;
  replicas = static_cast<int>(programs.items.size());
  partitions = -1;
  for (const Attribute& row : programs.items) {
    if (row.kind != Attribute::Kind::kList ||
        (partitions >= 0 && static_cast<int>(row.items.size()) != partitions)) {
      op_error(op, "programs must be a list of equally long lists of functions");
    }
    partitions = static_cast<int>(row.items.size());
    for (const Attribute& name : row.items) {
      if (name.kind != Attribute::Kind::kSymbol) op_error(op, "programs must name functions");
      names.push_back(name.text);
    }
  }
  if (partitions <= 0)
    op_error(op, "programs must be a non-empty list of non-empty lists of functions");
  return names;
}

std::vector<Type> joined(const std::vector<const Function*>& fns, bool arguments) {
  std::vector<Type> types;
  for (const Function* fn : fns) {
    const auto& some = arguments ? fn->body.arg_types : fn->result_types;
    types.insert(types.end(), some.begin(), some.end());
  }
  return types;
}

std::vector<const Function*> program_functions(const Op& op, const Module& module,
                                               ProcessGrid& grid) {
  std::vector<const Function*> fns;
  for (const std::string& name : program_names(op, grid.replicas, grid.partitions)) {
    const Function* fn = module.find(name);
    if (fn == nullptr || !fn->has_body) op_error(op, "names @" + name + ", which has no body");
    fns.push_back(fn);
  }
  return fns;
}

}  // namespace

void run_parallel_types(const Op& op, const Module& module) {
  ProcessGrid grid;
  const std::vector<const Function*> fns = program_functions(op, module, grid);
  if (joined(fns, true) != op.operand_types || joined(fns, false) != op.result_types) {
    op_error(op, "type (" + types_to_string(op.operand_types) + ") -> (" +
                     types_to_string(op.result_types) +
                     ") does not match its programs' arguments and results, in process order");
  }
}

OpFn build_run_parallel(const Op& op, const Planning& planning) {
  ProcessGrid grid;
  std::vector<const FunctionPlan*> plans;
  std::vector<size_t> arg_counts;
  for (const Function* fn : program_functions(op, planning.module, grid)) {
    plans.push_back(&planning.plan.function(*fn));
    arg_counts.push_back(fn->body.arg_types.size());
  }
  return [grid, plans, arg_counts](Interpreter& in, const Values& args) {
    std::vector<ProcessRun> runs;
    size_t next = 0;
    for (size_t k = 0; k < plans.size(); ++k) {
      ProcessRun& run = runs.emplace_back();
      run.function = plans[k];
      run.device = in.context().device;
      run.args.assign(args.begin() + static_cast<std::ptrdiff_t>(next),
                      args.begin() + static_cast<std::ptrdiff_t>(next + arg_counts[k]));
      next += arg_counts[k];
    }
    Values out;
    for (Values& results :
         launch_processes(in.plan(), grid, std::move(runs), default_collective_timeout())) {
      for (Value& v : results) out.push_back(std::move(v));
    }
    return out;
  };
}

}  // namespace ndbuf::program
