// The typed IR: ops with operands and results numbered per function, regions, functions. Only
// the parser builds it; from verification on it is read-only (the plan, exec/plan.hpp, points
// into it).
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "program/ir/attribute.hpp"
#include "program/ir/location.hpp"
#include "program/ir/op_id.hpp"
#include "program/ir/type.hpp"
#include "program/ir/value.hpp"

namespace ndbuf::program {

struct Op;

// One block: its arguments, then ops ending with a terminator (a return op).
struct Region {
  std::vector<int> args;
  std::vector<Type> arg_types;
  std::vector<Op> ops;
  Location loc;
};

struct Op {
  std::string name;          // canonical: "stablehlo.add", "func.call", "return", "check.expect_eq"
  OpId id = OpId::kUnknown;  // the op table's id of `name`, set by the parser
  Location loc;
  std::vector<int> operands;
  std::vector<Type> operand_types;  // as written in the op's signature
  std::vector<int> results;
  std::vector<Type> result_types;
  AttrDict attrs;
  std::vector<Region> regions;
};

struct Function {
  std::string name;
  bool is_public = true;
  bool has_body = false;
  Location loc;
  Region body;
  std::vector<Type> result_types;
  std::vector<std::optional<int64_t>> aliasing_output;  // per argument
  int num_values = 0;
  std::vector<Type> value_types;  // the type of every value, by number
};

struct Module {
  AttrDict attrs;  // `module attributes {...}`: mhlo.num_replicas, mhlo.num_partitions, ...
  std::vector<Function> functions;
  std::map<std::string, size_t> by_name;

  const Function* find(const std::string& name) const;
};

}  // namespace ndbuf::program
