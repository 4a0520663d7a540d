// Op identity as data: one enumerator per row of the op table (registry/ops.def), in the
// table's order, so an id is also its row's index. The parser sets every Op's id from its
// canonical name; everything after it compares ids, never names.
#pragma once

#include <cstdint>

namespace ndbuf::program {

enum class OpId : uint16_t {
#define NDBUF_OP(name, id, kind, builder, rule, pretty, fusible, attrs) id,
#define NDBUF_UNARY(name, enumerator) enumerator,
#define NDBUF_BINARY(name, enumerator) enumerator,
#define NDBUF_BROADCAST(name, id, enumerator) id,
#define NDBUF_TERMINATOR(name) kReturn,
#include "program/registry/ops.def"
  kUnknown,  // a name the table does not have (refused when the op is verified)
};

}  // namespace ndbuf::program
