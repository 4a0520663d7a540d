// Attribute values of ops: numbers, strings, arrays, lists, enums, dense tensors, structures.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "ndbuf/memory/tensor.hpp"
#include "program/ir/location.hpp"
#include "program/ir/type.hpp"

namespace ndbuf::program {

struct DenseLiteral;

struct Attribute {
  enum class Kind {
    kUnit,    // a bare name in a dictionary: `{is_stable}`
    kInt,     // 3 : i64, or an integer in a list
    kFloat,   // 0.5 : f32
    kBool,    // true / false
    kString,  // "text"
    kWord,    // a bare identifier: LT, FLOAT, DEFAULT, e5m10
    kArray,   // array<i64: 1, 2>, and [1, 2] lists of integers written by pretty forms
    kList,    // [a, b] of other attributes
    kEnum,    // #stablehlo<comparison_direction LT>: word = "LT", name = "comparison_direction"
    kStruct,  // #stablehlo.gather<key = value, ...>, fields hold the members
    kDense,   // dense<...> : tensor<...>
    kSymbol,  // @f
    kType,    // a type used as an attribute
    kOpaque,  // anything we accept but never interpret (locations, unknown dialect attributes)
  };
  Kind kind = Kind::kUnit;
  int64_t integer = 0;
  double number = 0;
  bool flag = false;
  std::string text;  // string, word, enum value, symbol, struct name
  std::string name;  // enum kind
  std::vector<int64_t> ints;
  std::vector<Attribute> items;
  std::vector<std::pair<std::string, Attribute>> fields;
  std::shared_ptr<const Tensor> dense;          // once its type is known
  std::shared_ptr<const DenseLiteral> literal;  // a dense<...> body awaiting its type
  Type type;
  Location loc;

  const Attribute* field(const std::string& key) const;
};

using AttrDict = std::vector<std::pair<std::string, Attribute>>;

const Attribute* find_attr(const AttrDict& attrs, const std::string& key);
void set_attr(AttrDict& attrs, const std::string& key, Attribute value);

}  // namespace ndbuf::program
