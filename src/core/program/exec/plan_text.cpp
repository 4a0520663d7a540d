// What a program compiled to, as text (plan_text() in compile.hpp).
#include <algorithm>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "program/exec/compile.hpp"

namespace ndbuf::program {
namespace {

std::string format_bytes(int64_t bytes) {
  std::ostringstream out;
  if (bytes < 1024) {
    out << bytes << " B";
  } else if (bytes < (int64_t{1} << 20)) {
    out << (bytes + 512) / 1024 << " KiB";
  } else {
    out.precision(3);
    out << static_cast<double>(bytes) / (1 << 20) << " MiB";
  }
  return out.str();
}

// "stablehlo.exponential" -> "exponential".
std::string short_name(const std::string& name) {
  const size_t dot = name.find('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

// The members' names in order of first appearance, each with its count: "subtract x2, exp".
std::string member_summary(const std::vector<const Op*>& members) {
  std::vector<std::pair<std::string, int>> counts;
  for (const Op* op : members) {
    const std::string name = short_name(op->name);
    auto it = std::find_if(counts.begin(), counts.end(),
                           [&](const auto& entry) { return entry.first == name; });
    if (it == counts.end()) {
      counts.emplace_back(name, 1);
    } else {
      ++it->second;
    }
  }
  std::string text;
  for (const auto& [name, count] : counts) {
    if (!text.empty()) text += ", ";
    text += name + (count > 1 ? " x" + std::to_string(count) : "");
  }
  return text;
}

std::string ops_count(size_t count) {
  return std::to_string(count) + (count == 1 ? " op" : " ops");
}

std::string step_kind(const Step& step) {
  if (step.row_fused) return "row fusion of " + ops_count(step.members.size());
  if (step.fused) return "fusion of " + ops_count(step.members.size());
  if (step.matvec_pair) return "matrix-vector pair of " + ops_count(step.members.size());
  return step.op->name;
}

std::string step_lines(const Step& step) {
  if (step.members.empty()) return "line " + std::to_string(step.op->loc.line);
  int first = step.members.front()->loc.line, last = first;
  for (const Op* op : step.members) {
    first = std::min(first, op->loc.line);
    last = std::max(last, op->loc.line);
  }
  return first == last ? "line " + std::to_string(first)
                       : "lines " + std::to_string(first) + "-" + std::to_string(last);
}

// "3 ops forwarded" and the like, or "" for none.
std::string counted(int count, const char* what) {
  if (count == 0) return "";
  return std::to_string(count) + (count == 1 ? " op " : " ops ") + what;
}

// The line of what canonicalisation rewrote, or "" when it changed nothing.
std::string canonicalised_line(const CanonicaliseCounts& c) {
  std::string parts;
  for (const std::string& part :
       {counted(c.forwarded, "forwarded"), counted(c.merged, "merged"),
        counted(c.rewritten, "read through a chain"), counted(c.removed, "removed"),
        c.sunk == 0 ? std::string()
                    : std::to_string(c.sunk) + (c.sunk == 1 ? " transpose" : " transposes") +
                          " moved onto operands",
        c.masks == 0 ? std::string()
                     : std::to_string(c.masks) + (c.masks == 1 ? " factor mask" : " factor masks") +
                           " folded into the factor"}) {
    if (!part.empty()) parts += (parts.empty() ? "" : ", ") + part;
  }
  return parts.empty() ? "" : "  canonicalised: " + parts + "\n";
}

// What a control-flow op calls its regions: "cond" and "body" of a while, the branches of an
// if or a case.
std::string region_label(const Op& op, size_t index) {
  if (op.id == OpId::kWhile) return index == 0 ? "cond" : "body";
  if (op.id == OpId::kIf) return index == 0 ? "true branch" : "false branch";
  return "branch " + std::to_string(index);
}

std::string steps_count(size_t count) {
  return std::to_string(count) + (count == 1 ? " step" : " steps");
}

// One step's line, its members' line, then the plans of its regions, each indented further.
struct PlanWriter {
  const Plan& plan;
  const Function& function;
  std::ostringstream out;

  void region(const RegionPlan& region, const std::string& indent) {
    for (size_t k = 0; k < region.steps.size(); ++k) step(region.steps[k], k, indent);
  }

  void step(const Step& step, size_t k, const std::string& indent) {
    std::string types;
    int64_t bytes = 0;
    for (int id : step.results) {
      const Type& type = function.value_types[static_cast<size_t>(id)];
      types += (types.empty() ? "" : ", ") + type_to_string(type);
      if (type.is_tensor()) {
        int64_t count = 1;
        for (int64_t d : type.shape) count *= d;
        bytes += count * static_cast<int64_t>(itemsize(type.dtype));
      }
    }
    out << indent << k + 1 << ". " << step_kind(step) << " -> " << types << ", "
        << format_bytes(bytes) << " [" << step_lines(step)
        << (step.any_layout ? "; column-major when its operands are" : "") << "]\n";
    const std::string inner = indent + "     ";
    if (!step.members.empty()) out << inner << member_summary(step.members) << "\n";
    if (!runs_nested_plans(step)) return;
    for (size_t r = 0; r < step.op->regions.size(); ++r) {
      const RegionPlan& nested = plan.region(step.op->regions[r]);
      out << inner << region_label(*step.op, r) << ": " << steps_count(nested.steps.size()) << "\n";
      region(nested, inner + "  ");
    }
  }
};

}  // namespace

std::string plan_text(const PlannedModule& program) {
  const Function* main = program.module->find("main");
  if (main == nullptr || !main->has_body) return "";
  const RegionPlan& body = program.plan->region(main->body);
  PlanWriter writer{*program.plan, *main, {}};
  const bool any_layout = std::any_of(body.steps.begin(), body.steps.end(),
                                      [](const Step& step) { return step.any_layout; });
  writer.out << "@main: " << steps_count(body.steps.size())
             << (any_layout ? " (every result dense)\n" : " (every result dense row-major)\n");
  writer.out << canonicalised_line(program.canonicalised);
  writer.region(body, "  ");
  return writer.out.str();
}

}  // namespace ndbuf::program
