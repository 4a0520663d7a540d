// The plan's storage and look-ups (plan.hpp).
#include "program/exec/plan.hpp"

#include "ndbuf/base/error.hpp"

namespace ndbuf::program {
namespace {

[[noreturn]] void unplanned(const std::string& what) {
  fail(ErrorKind::kInvalidArgument,
       "internal error: " + what + " has no plan; this is a bug in the runtime, please report it");
}

}  // namespace

const RegionPlan& Plan::region(const Region& region) const {
  auto it = by_region_.find(&region);
  if (it == by_region_.end()) unplanned("a region at line " + std::to_string(region.loc.line));
  return *it->second;
}

const FunctionPlan& Plan::function(const Function& function) const {
  auto it = by_function_.find(&function);
  if (it == by_function_.end()) unplanned("@" + function.name);
  return *it->second;
}

const FunctionPlan* Plan::find(const std::string& name) const {
  for (const auto& fn : functions_) {
    if (fn->function->name == name) return fn.get();
  }
  return nullptr;
}

RegionPlan& Plan::add_region(const Region& region) {
  regions_.push_back(std::make_unique<RegionPlan>());
  by_region_[&region] = regions_.back().get();
  return *regions_.back();
}

RegionPlan& Plan::mutable_region(const Region& region) {
  auto it = by_region_.find(&region);
  if (it == by_region_.end()) unplanned("a region at line " + std::to_string(region.loc.line));
  return *it->second;
}

FunctionPlan& Plan::add_function(const Function& function) {
  functions_.push_back(std::make_unique<FunctionPlan>());
  functions_.back()->function = &function;
  by_function_[&function] = functions_.back().get();
  return *functions_.back();
}

}  // namespace ndbuf::program
