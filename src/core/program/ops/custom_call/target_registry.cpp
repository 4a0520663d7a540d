// The custom-call target registry: the built-in targets (fixed at start-up) and the ones
// registered since, one mutex around the map. A registration is an entry shared with the
// kernels bound from it; removing or replacing it marks it withdrawn, which those kernels
// check before each call.
#include <atomic>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>

#include "ndbuf/base/error.hpp"
#include "ndbuf/program/custom_call.hpp"
#include "program/ops/custom_call/builtin_targets.hpp"

namespace ndbuf::program {
namespace {

struct Registration {
  CustomCallTarget target;
  std::atomic<bool> withdrawn{false};
};

struct Registry {
  std::mutex mutex;
  std::map<std::string, CustomCallTarget> builtin;
  std::map<std::string, std::shared_ptr<Registration>> registered;
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

void withdraw(std::map<std::string, std::shared_ptr<Registration>>& registered,
              const std::string& name) {
  auto it = registered.find(name);
  if (it == registered.end()) return;
  it->second->withdrawn.store(true, std::memory_order_release);
  registered.erase(it);
}

// The registration's target, whose kernels refuse to run once it is withdrawn.
CustomCallTarget bound_to(const std::shared_ptr<Registration>& registration,
                          const std::string& name) {
  return [registration, name](const CustomCallSite& site) -> CustomCallKernel {
    CustomCallKernel kernel = registration->target(site);
    return [registration, name, kernel](const std::vector<Tensor>& args) {
      if (registration->withdrawn.load(std::memory_order_acquire)) {
        fail(ErrorKind::kInvalidArgument,
             "the handler of custom-call target '" + name +
                 "' was unregistered (or replaced) after this program was compiled, for "
                 "instance because its package was unloaded; compile the program again");
      }
      return kernel(args);
    };
  };
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
  withdraw(r.registered, name);
  auto registration = std::make_shared<Registration>();
  registration->target = std::move(target);
  r.registered[name] = std::move(registration);
}

bool unregister_custom_call(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  const bool found = r.registered.count(name) > 0;
  withdraw(r.registered, name);
  return found;
}

CustomCallTarget find_custom_call(const std::string& name) {
  Registry& r = registry();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.builtin.find(name);
  if (it != r.builtin.end()) return it->second;
  auto entry = r.registered.find(name);
  return entry == r.registered.end() ? CustomCallTarget() : bound_to(entry->second, name);
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
