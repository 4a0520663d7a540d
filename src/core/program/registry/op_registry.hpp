// The op registry: one row per op the runtime runs (ops.def), read by the parser (names,
// aliases, pretty-form hooks, attribute spellings, known structured attributes), the verifier
// (type rules), the planner (builders), loop fusion (which ops it may take) and the element-wise
// kernels (enum names).
#pragma once

#include <cstdint>
#include <string_view>
#include <utility>
#include <vector>

#include "program/exec/builders.hpp"
#include "program/ir/op_id.hpp"
#include "program/ops/elementwise/elementwise.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {

enum class OpKind : uint8_t {
  kTerminator,   // return
  kStructure,    // data movement and constants
  kUnary,        // element-wise over a UnaryOp kernel
  kBinary,       // element-wise over a BinaryOp kernel
  kCompare,      // stablehlo.compare
  kElementwise,  // the other element-wise ops (select, clamp, convert, ...)
  kBroadcast,    // chlo.broadcast_*
  kReduction,
  kContraction,  // dot, dot_general, convolution
  kControl,      // calls, while, if, case, map
  kIndexing,     // gather, scatter, sort, top_k
  kCustom,       // custom_call
  kLinalg,       // cholesky, triangular_solve, rng_bit_generator
  kFft,
  kCheck,       // the interpreter's test dialect
  kCollective,  // ops of a process grid: collectives, process ids, tokens (never merged or removed)
};

// How the parser reads an op's pretty form: kItems is the common `op %a, key = v : types`;
// the others have syntax of their own, one NDBUF_PRETTY_FORM row of ops.def each.
enum class PrettyForm : uint8_t {
  kItems,
#define NDBUF_PRETTY_FORM(form, parser) form,
#include "program/registry/ops.def"
};

// How the parser reads a known `#stablehlo.NAME<...>` attribute: kFields is
// `key = value, ...` into Attribute::fields, kSkipped a known kind kept opaque; the others
// have syntax of their own, one NDBUF_STRUCTURED_FORM row of ops.def each.
enum class StructuredForm : uint8_t {
  kFields,
  kSkipped,
#define NDBUF_STRUCTURED_FORM(form, parser) form,
#include "program/registry/ops.def"
};

// One attribute an op interprets, and its spelling in the pretty form when that differs.
struct AttrName {
  std::string_view name;
  std::string_view pretty;
};

struct OpRow {
  std::string_view name;
  OpId id;  // the row's index in op_rows()
  OpKind kind;
  Builder build;  // null only for the terminator
  TypeRule rule;  // the verifier's type rule (verify/type_rules.hpp); never null
  PrettyForm pretty;
  bool fusible;
  UnaryOp unary;           // kind == kUnary
  BinaryOp binary;         // kind == kBinary or kBroadcast (chlo.broadcast_add: kAdd)
  std::string_view attrs;  // ops.def's attribute list; read it through attr_names()
};

// Every row, in ops.def order.
const std::vector<OpRow>& op_rows();
// The row of a canonical name (after canonical_op_name()), or nullptr.
const OpRow* find_op(std::string_view name);
// The row of an op id (not OpId::kUnknown).
const OpRow& op_row(OpId id);
// The attributes `row` interprets.
std::vector<AttrName> attr_names(const OpRow& row);
// The generic name of an attribute the pretty form of `row` spells `pretty` ("dims" of
// stablehlo.broadcast_in_dim -> "broadcast_dimensions"); `pretty` itself when not renamed.
std::string_view generic_attr_name(const OpRow& row, std::string_view pretty);
// The aliases: (alias, canonical name).
const std::vector<std::pair<std::string_view, std::string_view>>& op_aliases();
// How a `#name<...>` attribute of the stablehlo dialect is read, or nullptr when unknown.
const StructuredForm* structured_attr_form(std::string_view name);
// The names of the known structured attributes, for tests and messages.
std::vector<std::string_view> structured_attr_names();

}  // namespace ndbuf::program
