// The custom-call target registry: the built-in targets (fixed at start-up) and the ones
// registered since, one mutex around the map.
#include <iostream>
#include <map>
#include <mutex>

#include "ndbuf/base/error.hpp"
#include "ndbuf/program/custom_call.hpp"
#include "program/ops/custom_call/builtin_targets.hpp"

namespace ndbuf::program {
namespace {

struct Registry {
  std::mutex mutex;
  std::map<std::string, CustomCallTarget> builtin;
  std::map<std::string, CustomCallTarget> registered;
  std::function<void(const std::string&)> output;
};

Registry& registry() {
  static Registry* r = [] {
    auto* fresh = new Registry();  // never destroyed: executables may outlive static teardown
    for (const BuiltinTarget& t : builtin_targets()) fresh->builtin[t.name] = t.target;
    return fresh;
  }();
  return *r;
}

}  // namespace

const CustomCallAttribute* CustomCallSite::attribute(const std::string& name) const {
  for (const CustomCallAttribute& a : attributes) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

void register_custom_call(const std::string& name, CustomCallTarget target) {
  if (name.empty()) fail(ErrorKind::kInvalidArgument, "a custom-call target needs a name");
  if (!target) fail(ErrorKind::kInvalidArgument, "a custom-call target needs a handler");
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  if (r.builtin.count(name) > 0) {
    fail(ErrorKind::kInvalidArgument,
         "'" + name + "' is a built-in custom-call target and cannot be replaced");
  }
  r.registered[name] = std::move(target);
}

bool unregister_custom_call(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.registered.erase(name) > 0;
}

CustomCallTarget find_custom_call(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.builtin.find(name);
  if (it != r.builtin.end()) return it->second;
  it = r.registered.find(name);
  return it == r.registered.end() ? CustomCallTarget() : it->second;
}

bool is_builtin_custom_call(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  return r.builtin.count(name) > 0;
}

std::vector<std::string> custom_call_targets() {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  std::map<std::string, bool> names;
  for (const auto& entry : r.builtin) names[entry.first] = true;
  for (const auto& entry : r.registered) names[entry.first] = true;
  std::vector<std::string> out;
  for (const auto& entry : names) out.push_back(entry.first);
  return out;
}

void set_custom_call_output(std::function<void(const std::string&)> write_line) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  r.output = std::move(write_line);
}

void write_custom_call_line(const std::string& line) {
  std::function<void(const std::string&)> output;
  {
    Registry& r = registry();
    std::lock_guard<std::mutex> lock(r.mutex);
    output = r.output;
  }
  if (output) {
    output(line);
  } else {
    std::cout << line << '\n';
  }
}

}  // namespace ndbuf::program
