// Programs in the form JAX lowers jnp.argmax / jnp.argmin and jnp.sort / jnp.argsort to (a
// variadic reduce over (values, iota) with compare + select bodies; a sort comparator that
// canonicalises -0 and NaN and compares in the total order), for the region-body tests.
#pragma once

#include <string>

namespace ndbuf::program::testing {

inline std::string jax_compare(const std::string& a, const std::string& b, const std::string& dir,
                               const std::string& type, const std::string& elem) {
  return "\"stablehlo.compare\"(" + a + ", " + b +
         ") {comparison_direction = #stablehlo<comparison_direction " + dir +
         ">, compare_type = #stablehlo<comparison_type " + type + ">} : (" + elem + ", " + elem +
         ") -> tensor<i1>";
}

// argmax (`dir` GT) or argmin (LT) along `axis` of tensor<shape x elem> giving `index` results.
// `shape` is "RxC", `out` the result shape ("R" or "C"), `init` the identity literal.
inline std::string jax_argminmax(const std::string& shape, const std::string& out, int axis,
                                 const std::string& elem, const std::string& index,
                                 const std::string& dir, const std::string& init) {
  const std::string e = "tensor<" + elem + ">", i = "tensor<" + index + ">";
  const std::string int_type = index[0] == 'u' ? "UNSIGNED" : "SIGNED";
  const std::string float_type = elem[0] == 'f' || elem[0] == 'b' ? "FLOAT" : "SIGNED";
  return "func.func @main(%x: tensor<" + shape + "x" + elem + ">) -> tensor<" + out + "x" + index +
         "> {\n"
         "  %iota = \"stablehlo.iota\"() {iota_dimension = " +
         std::to_string(axis) + " : i64} : () -> tensor<" + shape + "x" + index +
         ">\n"
         "  %init = \"stablehlo.constant\"() {value = dense<" +
         init + "> : " + e + "} : () -> " + e +
         "\n"
         "  %zero = \"stablehlo.constant\"() {value = dense<0> : " +
         i + "} : () -> " + i +
         "\n"
         "  %r:2 = \"stablehlo.reduce\"(%x, %iota, %init, %zero) ({\n"
         "  ^bb0(%a1: " +
         e + ", %a2: " + i + ", %a3: " + e + ", %a4: " + i +
         "):\n"
         "    %4 = " +
         jax_compare("%a1", "%a3", dir, float_type, e) +
         "\n    %5 = " + jax_compare("%a1", "%a1", "NE", float_type, e) +
         "\n"
         "    %6 = \"stablehlo.or\"(%4, %5) : (tensor<i1>, tensor<i1>) -> tensor<i1>\n"
         "    %7 = " +
         jax_compare("%a1", "%a3", "EQ", float_type, e) +
         "\n    %8 = " + jax_compare("%a2", "%a4", "LT", int_type, i) +
         "\n"
         "    %9 = \"stablehlo.and\"(%7, %8) : (tensor<i1>, tensor<i1>) -> tensor<i1>\n"
         "    %10 = \"stablehlo.or\"(%6, %9) : (tensor<i1>, tensor<i1>) -> tensor<i1>\n"
         "    %11 = \"stablehlo.select\"(%6, %a1, %a3) : (tensor<i1>, " +
         e + ", " + e + ") -> " + e +
         "\n    %12 = \"stablehlo.select\"(%10, %a2, %a4) : (tensor<i1>, " + i + ", " + i +
         ") -> " + i + "\n    \"stablehlo.return\"(%11, %12) : (" + e + ", " + i +
         ") -> ()\n  }) {dimensions = array<i64: " + std::to_string(axis) + ">} : (tensor<" +
         shape + "x" + elem + ">, tensor<" + shape + "x" + index + ">, " + e + ", " + i +
         ") -> (tensor<" + out + "x" + elem + ">, tensor<" + out + "x" + index +
         ">)\n"
         "  return %r#1 : tensor<" +
         out + "x" + index + ">\n}\n";
}

// The comparator side of one float element: select(x == 0, 0, x), then NaN for x != x.
inline std::string jax_canonical(const std::string& x, const std::string& tag, const std::string& e,
                                 const std::string& nan) {
  return "    %z" + tag + " = \"stablehlo.constant\"() {value = dense<0.0> : " + e + "} : () -> " +
         e + "\n    %q" + tag + " = " + jax_compare(x, "%z" + tag, "EQ", "FLOAT", e) + "\n    %c" +
         tag + " = \"stablehlo.select\"(%q" + tag + ", %z" + tag + ", " + x + ") : (tensor<i1>, " +
         e + ", " + e + ") -> " + e + "\n    %n" + tag + " = " +
         jax_compare(x, x, "NE", "FLOAT", e) + "\n    %m" + tag +
         " = \"stablehlo.constant\"() {value = dense<" + nan + "> : " + e + "} : () -> " + e +
         "\n    %k" + tag + " = \"stablehlo.select\"(%n" + tag + ", %m" + tag + ", %c" + tag +
         ") : (tensor<i1>, " + e + ", " + e + ") -> " + e + "\n";
}

// jnp.sort (`argsort` false) or jnp.argsort (true: operands (x, iota), result the indices) of
// a tensor<n x elem> float vector, ascending.
inline std::string jax_sort(int64_t n, const std::string& elem, const std::string& nan,
                            bool argsort) {
  const std::string e = "tensor<" + elem + ">",
                    v = "tensor<" + std::to_string(n) + "x" + elem + ">";
  const std::string iv = "tensor<" + std::to_string(n) + "xi32>";
  const std::string out = argsort ? iv : v;
  std::string text = "func.func @main(%x: " + v + ") -> " + out + " {\n";
  if (argsort) {
    text += "  %iota = \"stablehlo.iota\"() {iota_dimension = 0 : i64} : () -> " + iv + "\n";
  }
  text += std::string("  %r") + (argsort ? ":2" : "") + " = \"stablehlo.sort\"(%x" +
          (argsort ? ", %iota" : "") + ") ({\n  ^bb0(%a: " + e + ", %b: " + e +
          (argsort ? ", %i: tensor<i32>, %j: tensor<i32>" : "") + "):\n" +
          jax_canonical("%a", "a", e, nan) + jax_canonical("%b", "b", e, nan) +
          "    %lt = " + jax_compare("%ka", "%kb", "LT", "TOTALORDER", e) +
          "\n    \"stablehlo.return\"(%lt) : (tensor<i1>) -> ()\n  }) {dimension = 0 : i64, "
          "is_stable = true} : (" +
          v + (argsort ? ", " + iv : "") + ") -> (" + v + (argsort ? ", " + iv : "") + ")\n";
  text += std::string("  return %r") + (argsort ? "#1" : "") + " : " + out + "\n}\n";
  return text;
}

}  // namespace ndbuf::program::testing
