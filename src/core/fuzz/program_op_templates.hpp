// The op templates of program_exec_fuzz.cpp (see program_templates.hpp for the picking).
#pragma once

#include "program_templates.hpp"

namespace ndbuf::fuzz {

// An element-wise op (binary, unary, compare, convert, bitcast) on one dtype and shape.
inline std::string elementwise(Picker& p) {
  static const char* const kBinary[] = {"add",
                                        "subtract",
                                        "multiply",
                                        "divide",
                                        "remainder",
                                        "power",
                                        "maximum",
                                        "minimum",
                                        "and",
                                        "or",
                                        "xor",
                                        "atan2",
                                        "shift_left",
                                        "shift_right_arithmetic",
                                        "shift_right_logical"};
  static const char* const kUnary[] = {"abs",
                                       "negate",
                                       "not",
                                       "popcnt",
                                       "count_leading_zeros",
                                       "sign",
                                       "exponential",
                                       "log",
                                       "sqrt",
                                       "rsqrt",
                                       "tanh",
                                       "floor",
                                       "ceil",
                                       "round_nearest_even",
                                       "cosine",
                                       "logistic",
                                       "exponential_minus_one",
                                       "log_plus_one",
                                       "cbrt",
                                       "round_nearest_afz"};
  const std::vector<int64_t> s = p.shape(3);
  const std::string d = p.dtype();
  const std::string t = tensor(s, d);
  switch (p.pick(5)) {
    case 0:
      return program(
          {t, t},
          "  %r0 = stablehlo." + std::string(kBinary[p.pick(15)]) + " %a0, %a1 : " + t + "\n", {t});
    case 1:
      return program(
          {t}, "  %r0 = stablehlo." + std::string(kUnary[p.pick(20)]) + " %a0 : " + t + "\n", {t});
    case 2: {
      static const char* const kDir[] = {"EQ", "NE", "LT", "LE", "GT", "GE"};
      const std::string r = tensor(s, "i1");
      return program({t, t},
                     "  %r0 = stablehlo.compare " + std::string(kDir[p.pick(6)]) +
                         ", %a0, %a1 : (" + t + ", " + t + ") -> " + r + "\n",
                     {r});
    }
    case 3: {
      const std::string r = tensor(declared(p, s), p.dtype());
      return program({t}, "  %r0 = stablehlo.convert %a0 : (" + t + ") -> " + r + "\n", {r});
    }
    default: {
      std::vector<int64_t> rs = s;
      if (p.pick(2)) rs.push_back(p.pick(2) ? 8 : p.dim());
      const std::string r = tensor(declared(p, rs), p.dtype());
      return program({t}, "  %r0 = \"stablehlo.bitcast_convert\"(%a0) : (" + t + ") -> " + r + "\n",
                     {r});
    }
  }
}

// slice with start / limit / stride near the boundaries (where size arithmetic once wrapped).
inline std::string slice(Picker& p) {
  const int64_t n = p.dim();
  const std::vector<int64_t> a = numbers(p, 3);
  const int64_t stride = a[2] == 0 ? 1 : a[2];
  const int64_t right =
      a[1] > a[0] && a[0] >= 0 && a[1] <= n && stride > 0 ? (a[1] - a[0] - 1) / stride + 1 : 0;
  const std::string d = p.dtype();
  const std::string r = tensor(declared(p, {right}), d);
  return program({tensor({n}, d)},
                 "  %r0 = \"stablehlo.slice\"(%a0) {start_indices = " + ints({a[0]}) +
                     ", limit_indices = " + ints({a[1]}) + ", strides = " + ints({a[2]}) + "} : (" +
                     tensor({n}, d) + ") -> " + r + "\n",
                 {r});
}

inline std::string pad(Picker& p) {
  const int64_t n = p.dim();
  const std::vector<int64_t> a = numbers(p, 3);
  const std::string d = p.dtype();
  const uint64_t u = static_cast<uint64_t>(n), i = static_cast<uint64_t>(a[2]);
  const auto right = static_cast<int64_t>(u + static_cast<uint64_t>(a[0]) +
                                          static_cast<uint64_t>(a[1]) + (n > 0 ? (u - 1) * i : 0));
  const std::string r = tensor(declared(p, {right < 0 ? 0 : right}), d);
  return program({tensor({n}, d), tensor({}, d)},
                 "  %r0 = \"stablehlo.pad\"(%a0, %a1) {edge_padding_low = " + ints({a[0]}) +
                     ", edge_padding_high = " + ints({a[1]}) +
                     ", interior_padding = " + ints({a[2]}) + "} : (" + tensor({n}, d) + ", " +
                     tensor({}, d) + ") -> " + r + "\n",
                 {r});
}

// reduce_window: window, strides, base / window dilations and padding near the boundaries.
inline std::string reduce_window(Picker& p) {
  const int64_t n = p.dim();
  const std::string d = p.pick(2) ? "f32" : "i32";
  const std::vector<int64_t> a = numbers(p, 6);
  const int64_t window = a[0] == 0 ? 1 : a[0];
  const int64_t right = window > 0 && n >= window ? n - window + 1 : 0;
  const std::string r = tensor(declared(p, {right}), d);
  std::string attrs = "window_dimensions = " + ints({window});
  if (p.pick(2)) attrs += ", window_strides = " + ints({a[1] == 0 ? 1 : a[1]});
  if (p.pick(2)) attrs += ", base_dilations = " + ints({a[2] == 0 ? 1 : a[2]});
  if (p.pick(2)) attrs += ", window_dilations = " + ints({a[3] == 0 ? 1 : a[3]});
  if (p.pick(2)) {
    attrs += ", padding = dense<[[" + std::to_string(a[4]) + ", " + std::to_string(a[5]) +
             "]]> : tensor<1x2xi64>";
  }
  return program({tensor({n}, d), tensor({}, d)},
                 "  %r0 = \"stablehlo.reduce_window\"(%a0, %a1) " + body(p, d) + " {" + attrs +
                     "} : (" + tensor({n}, d) + ", " + tensor({}, d) + ") -> " + r + "\n",
                 {r});
}

// Ops after one whose declared result type may be wrong: a slice of the whole declared
// extent, which trusts that type (a mistyped dot_general followed by slice once crashed).
inline std::string then_slice(Picker& p, const std::string& value, const std::vector<int64_t>& s,
                              const std::string& dtype, const std::string& result) {
  const std::string t = tensor(s, dtype);
  if (p.pick(2)) return "  " + result + " = stablehlo.abs " + value + " : " + t + "\n";
  return "  " + result + " = \"stablehlo.slice\"(" + value +
         ") {start_indices = " + ints(std::vector<int64_t>(s.size(), 0)) +
         ", limit_indices = " + ints(s) + ", strides = " + ints(std::vector<int64_t>(s.size(), 1)) +
         "} : (" + t + ") -> " + t + "\n";
}

// dot_general / dot with declared result types that may be wrong (once a crash).
inline std::string dot(Picker& p) {
  const int64_t m = p.dim(), k = p.dim(), n = p.dim();
  const std::string d = p.pick(3) ? "f32" : (p.pick(2) ? "i32" : "f64");
  const std::string lhs = tensor({m, k}, d), rhs = tensor({k, n}, d);
  const std::vector<int64_t> rs = declared(p, {m, n});
  const std::string r = tensor(rs, d), after = then_slice(p, "%t", rs, d, "%r0");
  if (p.pick(2)) {
    return program(
        {lhs, rhs},
        "  %t = \"stablehlo.dot\"(%a0, %a1) : (" + lhs + ", " + rhs + ") -> " + r + "\n" + after,
        {r});
  }
  const std::string dims =
      "#stablehlo.dot<lhs_contracting_dimensions = [" + std::to_string(p.pick(8) ? 1 : p.number()) +
      "], rhs_contracting_dimensions = [" + std::to_string(p.pick(8) ? 0 : p.number()) + "]>";
  return program({lhs, rhs},
                 "  %t = \"stablehlo.dot_general\"(%a0, %a1) {dot_dimension_numbers = " + dims +
                     "} : (" + lhs + ", " + rhs + ") -> " + r + "\n" + after,
                 {r});
}

inline std::string top_k(Picker& p) {
  const int64_t n = p.dim();
  const int64_t k = p.pick(2) ? p.upto(n) : p.number();
  const std::string d = p.pick(2) ? "f32" : "i32";
  const std::vector<int64_t> vs = declared(p, {k}), is = declared(p, {k});
  const std::string v = tensor(vs, d), i = tensor(is, "i32");
  return program({tensor({n}, d)},
                 "  %t, %u = chlo.top_k(%a0, k = " + std::to_string(k) + ") : " + tensor({n}, d) +
                     " -> (" + v + ", " + i + ")\n" + then_slice(p, "%t", vs, d, "%r0") +
                     then_slice(p, "%u", is, "i32", "%r1"),
                 {v, i});
}

// sort with comparators of the wrong arity or argument types, on a dimension near the edges.
inline std::string sort(Picker& p) {
  const std::vector<int64_t> s = p.shape(2);
  const std::string d = p.pick(2) ? "f32" : "i32";
  const std::string t = tensor(s, d);
  const int64_t dim = p.pick(4) ? p.pick(static_cast<int>(s.size()) + 1) : p.number();
  return program({t},
                 "  %r0 = \"stablehlo.sort\"(%a0) " + comparator(p, d) + " {dimension = " +
                     std::to_string(dim) + " : i64, is_stable = " + (p.pick(2) ? "true" : "false") +
                     "} : (" + t + ") -> " + t + "\n",
                 {t});
}

// dynamic_slice / dynamic_update_slice with start indices from the arguments.
inline std::string dynamic_slice(Picker& p) {
  const int64_t n = p.dim();
  const std::string d = p.dtype(), it = p.pick(2) ? "i32" : "i64";
  const std::string x = tensor({n}, d), i = tensor({}, it);
  if (p.pick(2)) {
    const int64_t size = p.pick(2) ? p.upto(n) : p.number();
    const std::string r = tensor(declared(p, {size}), d);
    return program({x, i},
                   "  %r0 = \"stablehlo.dynamic_slice\"(%a0, %a1) {slice_sizes = " + ints({size}) +
                       "} : (" + x + ", " + i + ") -> " + r + "\n",
                   {r});
  }
  const std::string u = tensor({p.dim()}, d);
  return program({x, u, i},
                 "  %r0 = \"stablehlo.dynamic_update_slice\"(%a0, %a1, %a2) : (" + x + ", " + u +
                     ", " + i + ") -> " + x + "\n",
                 {x});
}

// gather and scatter of rows of a matrix at indices from the arguments.
inline std::string gather_scatter(Picker& p) {
  const int64_t rows = p.dim(), cols = p.dim(), count = p.dim();
  const std::string d = p.pick(2) ? "f32" : "i32";
  const std::string x = tensor({rows, cols}, d), idx = tensor({count, 1}, "i32");
  if (p.pick(2)) {
    const int64_t width = p.pick(4) ? cols : p.number();
    const std::string r = tensor(declared(p, {count, width}), d);
    return program({x, idx},
                   "  %r0 = \"stablehlo.gather\"(%a0, %a1) {dimension_numbers = "
                   "#stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], "
                   "start_index_map = [0], index_vector_dim = 1>, slice_sizes = " +
                       ints({1, width}) + "} : (" + x + ", " + idx + ") -> " + r + "\n",
                   {r});
  }
  const std::string u = tensor({count, p.pick(4) ? cols : p.dim()}, d);
  return program({x, idx, u},
                 "  %r0 = \"stablehlo.scatter\"(%a0, %a1, %a2) " + body(p, d) +
                     " {scatter_dimension_numbers = #stablehlo.scatter<"
                     "update_window_dims = [1], inserted_window_dims = [0], "
                     "scatter_dims_to_operand_dims = [0], index_vector_dim = 1>} : (" +
                     x + ", " + idx + ", " + u + ") -> " + x + "\n",
                 {x});
}

// Structural ops: iota, broadcast_in_dim, transpose, reverse, concatenate, reshape.
inline std::string structure(Picker& p) {
  const std::vector<int64_t> s = p.shape(3);
  const std::string d = p.dtype();
  const std::string t = tensor(s, d);
  const int64_t axis = p.pick(4) ? p.pick(static_cast<int>(s.size()) + 1) : p.number();
  switch (p.pick(5)) {
    case 0:
      return program({},
                     "  %r0 = \"stablehlo.iota\"() {iota_dimension = " + std::to_string(axis) +
                         " : i64} : () -> " + t + "\n",
                     {t});
    case 1: {
      std::vector<int64_t> dims(s.size());
      for (size_t k = 0; k < dims.size(); ++k) dims[k] = p.pick(4) ? int64_t(k) : p.number();
      std::vector<int64_t> rs = s;
      if (p.pick(2)) rs.insert(rs.begin(), p.dim());
      const std::string r = tensor(declared(p, rs), d);
      return program({t},
                     "  %r0 = stablehlo.broadcast_in_dim %a0, dims = [" + join(dims, ", ") +
                         "] : (" + t + ") -> " + r + "\n",
                     {r});
    }
    case 2: {
      std::vector<int64_t> perm(s.size());
      for (size_t k = 0; k < perm.size(); ++k) perm[k] = int64_t(perm.size() - 1 - k);
      if (!perm.empty() && p.pick(4) == 0) perm[0] = p.number();
      std::vector<int64_t> rs(s.rbegin(), s.rend());
      const std::string r = tensor(declared(p, rs), d);
      return program({t},
                     "  %r0 = \"stablehlo.transpose\"(%a0) {permutation = " + ints(perm) + "} : (" +
                         t + ") -> " + r + "\n",
                     {r});
    }
    case 3:
      return program({t},
                     "  %r0 = \"stablehlo.reverse\"(%a0) {dimensions = " + ints({axis}) + "} : (" +
                         t + ") -> " + t + "\n",
                     {t});
    default: {
      std::vector<int64_t> rs = s;
      if (!rs.empty()) rs[0] = p.pick(4) && rs[0] < (int64_t{1} << 62) ? 2 * rs[0] : p.dim();
      const std::string r = tensor(rs, d);
      return program({t, t},
                     "  %r0 = \"stablehlo.concatenate\"(%a0, %a1) {dimension = " +
                         std::to_string(axis) + " : i64} : (" + t + ", " + t + ") -> " + r + "\n",
                     {r});
    }
  }
}

}  // namespace ndbuf::fuzz
