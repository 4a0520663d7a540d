// Bindings of the RTree functions (R/tree.R): each unwraps its trees, runs one operation of
// r_tree.h or a walk over the root's children, and wraps the result.
#include <cpp11.hpp>
#include <string>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "r_object.h"
#include "r_tree.h"

namespace {

const char* kind_name(pjrt::NodeKind kind) {
  switch (kind) {
    case pjrt::NodeKind::kLeaf:
      return "leaf";
    case pjrt::NodeKind::kList:
      return "list";
    default:
      return "null";
  }
}

// The tree behind `x`, whose root must be a list node for `what`.
const pjrt::Tree& list_tree(SEXP x, const char* what) {
  const pjrt::Tree& tree = pjrt::unwrap_tree(x);
  if (tree.nodes[0].kind != pjrt::NodeKind::kList) {
    ndbuf::fail(ndbuf::ErrorKind::kInvalidArgument,
                std::string(what) + "() needs a tree whose root is a list node, not a " +
                    kind_name(tree.nodes[0].kind) + " node.");
  }
  return tree;
}

std::string leaf_count(int64_t n) { return std::to_string(n) + (n == 1 ? " leaf" : " leaves"); }

std::unordered_set<std::string> name_set(SEXP names) {
  std::unordered_set<std::string> out;
  for (R_xlen_t k = 0; k < Rf_xlength(names); ++k) {
    if (STRING_ELT(names, k) != NA_STRING) out.insert(Rf_translateCharUTF8(STRING_ELT(names, k)));
  }
  return out;
}

// Appends the subtree of `source` at `node` to `target`, its names included.
void append_subtree(pjrt::Tree* target, const pjrt::Tree& source, size_t node) {
  const size_t end = node + static_cast<size_t>(source.nodes[node].span);
  for (size_t k = node; k < end; ++k) {
    pjrt::TreeNode n = source.nodes[k];
    if (n.names >= 0) {
      const int32_t from = n.names;
      n.names = static_cast<int32_t>(target->names.size());
      for (int32_t j = 0; j < n.children; ++j) target->names.push_back(source.names[from + j]);
    }
    target->nodes.push_back(n);
  }
}

// A new named or unnamed list root over `children` (subtrees of their trees), leaves summed.
pjrt::Tree join_subtrees(const std::vector<std::pair<const pjrt::Tree*, size_t>>& children,
                         const std::vector<std::string>* names) {
  pjrt::Tree out;
  out.nodes.emplace_back();
  out.nodes[0].kind = pjrt::NodeKind::kList;
  out.nodes[0].children = static_cast<int32_t>(children.size());
  if (names != nullptr) {
    out.nodes[0].names = 0;
    out.names = *names;
  }
  for (const auto& [tree, node] : children) {
    append_subtree(&out, *tree, node);
    out.nodes[0].leaves += tree->nodes[node].leaves;
  }
  out.nodes[0].span = static_cast<int32_t>(out.nodes.size());
  return out;
}

}  // namespace

[[cpp11::register]] SEXP ffi_tree_build(SEXP x) {
  return pjrt::call_core([&] {
    pjrt::Tree tree;
    pjrt::build_tree(x, &tree, nullptr);
    return pjrt::wrap_tree(std::move(tree));
  });
}

// list(tree, leaves) from one walk.
[[cpp11::register]] SEXP ffi_tree_flatten(SEXP x, bool with_tree) {
  return pjrt::call_core([&]() -> SEXP {
    pjrt::Tree tree;
    std::vector<SEXP> leaves;
    pjrt::build_tree(x, &tree, &leaves);
    cpp11::writable::list flat(static_cast<R_xlen_t>(leaves.size()));
    for (size_t k = 0; k < leaves.size(); ++k) SET_VECTOR_ELT(flat, k, leaves[k]);
    if (!with_tree) return flat;
    cpp11::writable::list out(2);
    SET_VECTOR_ELT(out, 0, pjrt::wrap_tree(std::move(tree)));
    SET_VECTOR_ELT(out, 1, flat);
    return out;
  });
}

[[cpp11::register]] SEXP ffi_tree_unflatten(SEXP tree, SEXP leaves) {
  return pjrt::call_core([&]() -> SEXP {
    const pjrt::Tree& t = pjrt::unwrap_tree(tree);
    if (TYPEOF(leaves) != VECSXP || OBJECT(leaves)) {
      pjrt::fail_argument("`x` must be a list of leaves.");
    }
    if (Rf_xlength(leaves) != pjrt::tree_size(t)) {
      ndbuf::fail(ndbuf::ErrorKind::kInvalidArgument, "`x` has " + leaf_count(Rf_xlength(leaves)) +
                                                          ", but the tree has " +
                                                          std::to_string(pjrt::tree_size(t)) + ".");
    }
    std::vector<SEXP> flat(static_cast<size_t>(Rf_xlength(leaves)));
    for (size_t k = 0; k < flat.size(); ++k) flat[k] = VECTOR_ELT(leaves, k);
    return pjrt::unflatten_tree(t, flat.data());
  });
}

[[cpp11::register]] SEXP ffi_tree_size(SEXP tree) {
  return pjrt::call_core(
      [&] { return static_cast<double>(pjrt::tree_size(pjrt::unwrap_tree(tree))); });
}

[[cpp11::register]] SEXP ffi_tree_equal(SEXP a, SEXP b) {
  return pjrt::call_core([&] {
    return cpp11::as_sexp(pjrt::trees_equal(pjrt::unwrap_tree(a), pjrt::unwrap_tree(b)));
  });
}

// The 64-bit hash as decimal text (R has no unsigned 64-bit integer).
[[cpp11::register]] SEXP ffi_tree_hash(SEXP tree) {
  return pjrt::call_core([&] { return std::to_string(pjrt::tree_hash(pjrt::unwrap_tree(tree))); });
}

[[cpp11::register]] SEXP ffi_tree_kind(SEXP tree) {
  return pjrt::call_core(
      [&] { return std::string(kind_name(pjrt::unwrap_tree(tree).nodes[0].kind)); });
}

[[cpp11::register]] SEXP ffi_tree_repr(SEXP tree) {
  return pjrt::call_core([&] { return pjrt::tree_repr(pjrt::unwrap_tree(tree)); });
}

// 1-based `i`, checked in R to be a whole number.
[[cpp11::register]] SEXP ffi_tree_path(SEXP tree, double i) {
  return pjrt::call_core(
      [&] { return pjrt::tree_path(pjrt::unwrap_tree(tree), static_cast<int64_t>(i) - 1); });
}

[[cpp11::register]] SEXP ffi_tree_child_names(SEXP tree) {
  return pjrt::call_core([&]() -> SEXP {
    const pjrt::Tree& t = pjrt::unwrap_tree(tree);
    const pjrt::TreeNode& root = t.nodes[0];
    if (root.kind != pjrt::NodeKind::kList || root.names < 0) return R_NilValue;
    cpp11::writable::strings out(root.children);
    for (int32_t k = 0; k < root.children; ++k) {
      SET_STRING_ELT(out, k, Rf_mkCharCE(t.names[root.names + k].c_str(), CE_UTF8));
    }
    return out;
  });
}

[[cpp11::register]] SEXP ffi_tree_child_kinds(SEXP tree) {
  return pjrt::call_core([&]() -> SEXP {
    const pjrt::Tree& t = list_tree(tree, "tree_child_kinds");
    const std::vector<size_t> children = pjrt::tree_children(t, 0);
    cpp11::writable::strings out(static_cast<R_xlen_t>(children.size()));
    for (size_t k = 0; k < children.size(); ++k) {
      SET_STRING_ELT(out, k, Rf_mkChar(kind_name(t.nodes[children[k]].kind)));
    }
    return out;
  });
}

[[cpp11::register]] SEXP ffi_tree_child_sizes(SEXP tree) {
  return pjrt::call_core([&]() -> SEXP {
    const pjrt::Tree& t = list_tree(tree, "tree_child_sizes");
    const std::vector<size_t> children = pjrt::tree_children(t, 0);
    cpp11::writable::integers out(static_cast<R_xlen_t>(children.size()));
    for (size_t k = 0; k < children.size(); ++k) out[k] = t.nodes[children[k]].leaves;
    return out;
  });
}

[[cpp11::register]] SEXP ffi_tree_leaf_mask(SEXP tree, SEXP groups) {
  return pjrt::call_core([&]() -> SEXP {
    const pjrt::Tree& t = list_tree(tree, "tree_leaf_mask");
    const std::unordered_set<std::string> marked = name_set(groups);
    const std::vector<size_t> children = pjrt::tree_children(t, 0);
    cpp11::writable::logicals out(static_cast<R_xlen_t>(pjrt::tree_size(t)));
    R_xlen_t at = 0;
    for (size_t k = 0; k < children.size(); ++k) {
      const bool on = t.nodes[0].names >= 0 && marked.count(t.names[t.nodes[0].names + k]) > 0;
      for (int32_t j = 0; j < t.nodes[children[k]].leaves; ++j) LOGICAL(out)[at++] = on;
    }
    return out;
  });
}

[[cpp11::register]] SEXP ffi_tree_filter_by_names(SEXP tree, SEXP names) {
  return pjrt::call_core([&] {
    const pjrt::Tree& t = list_tree(tree, "tree_filter_by_names");
    if (t.nodes[0].names < 0) pjrt::fail_argument("The root list of `tree` has no names.");
    const std::unordered_set<std::string> keep = name_set(names);
    const std::vector<size_t> children = pjrt::tree_children(t, 0);
    std::vector<std::pair<const pjrt::Tree*, size_t>> kept;
    std::vector<std::string> kept_names;
    for (size_t k = 0; k < children.size(); ++k) {
      const std::string& name = t.names[t.nodes[0].names + k];
      if (keep.count(name) > 0) {
        kept.emplace_back(&t, children[k]);
        kept_names.push_back(name);
      }
    }
    return pjrt::wrap_tree(join_subtrees(kept, &kept_names));
  });
}

// `names`: NULL or a character vector without NA of the children's length (checked in R).
[[cpp11::register]] SEXP ffi_tree_concat(SEXP children, SEXP names) {
  return pjrt::call_core([&] {
    std::vector<std::pair<const pjrt::Tree*, size_t>> parts;
    for (R_xlen_t k = 0; k < Rf_xlength(children); ++k) {
      const SEXP child = VECTOR_ELT(children, k);
      if (!Rf_inherits(child, "RTree")) {
        ndbuf::fail(ndbuf::ErrorKind::kInvalidArgument,
                    "Element " + std::to_string(k + 1) +
                        " of `children` is not an RTree (made by build_tree()).");
      }
      parts.emplace_back(&pjrt::unwrap_tree(child), 0);
    }
    std::vector<std::string> labels;
    for (R_xlen_t k = 0; names != R_NilValue && k < Rf_xlength(names); ++k) {
      labels.emplace_back(Rf_translateCharUTF8(STRING_ELT(names, k)));
    }
    return pjrt::wrap_tree(join_subtrees(parts, names == R_NilValue ? nullptr : &labels));
  });
}

// NULL where the trees agree, else list(prefix, a, b): the path of the first node where they
// differ (kind, child count or names) and the text of both subtrees there.
[[cpp11::register]] SEXP ffi_tree_diff(SEXP a, SEXP b) {
  return pjrt::call_core([&]() -> SEXP {
    const pjrt::Tree& x = pjrt::unwrap_tree(a);
    const pjrt::Tree& y = pjrt::unwrap_tree(b);
    // Walk both in preorder with a stack of (node in x, node in y, path).
    std::vector<std::tuple<size_t, size_t, std::string>> stack{{0, 0, ""}};
    while (!stack.empty()) {
      auto [i, j, path] = stack.back();
      stack.pop_back();
      const pjrt::TreeNode& p = x.nodes[i];
      const pjrt::TreeNode& q = y.nodes[j];
      bool same = p.kind == q.kind && p.children == q.children && (p.names < 0) == (q.names < 0);
      for (int32_t k = 0; same && p.names >= 0 && k < p.children; ++k) {
        same = x.names[p.names + k] == y.names[q.names + k];
      }
      if (!same) {
        cpp11::writable::list out({cpp11::as_sexp(path), cpp11::as_sexp(pjrt::tree_repr(x, i)),
                                   cpp11::as_sexp(pjrt::tree_repr(y, j))});
        out.names() = {"prefix", "a", "b"};
        return out;
      }
      if (p.kind != pjrt::NodeKind::kList) continue;
      const std::vector<size_t> xs = pjrt::tree_children(x, i);
      const std::vector<size_t> ys = pjrt::tree_children(y, j);
      for (size_t k = xs.size(); k-- > 0;) {
        const std::string name = p.names >= 0 ? x.names[p.names + k] : std::string();
        const std::string step =
            name.empty() ? "[[" + std::to_string(k + 1) + "]]" : (path.empty() ? "" : "$") + name;
        stack.emplace_back(xs[k], ys[k], path + step);
      }
    }
    return R_NilValue;
  });
}
