// RTree structure: building from R values, equality, hashing, paths, text and rebuilding.
#include "r_tree.h"

#include <string>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "r_object.h"

namespace pjrt {
namespace {

const ObjectClass kTree{"RTree", "Expected an RTree (made by build_tree()).", [](SEXP) {
                          return "This RTree is no longer valid (it was saved and restored).";
                        }};

bool is_bare_list(SEXP x) { return TYPEOF(x) == VECSXP && !OBJECT(x); }

void build_node(SEXP x, Tree* tree, std::vector<SEXP>* leaves, int depth) {
  if (depth > kMaxTreeDepth) {
    ndbuf::fail(ndbuf::ErrorKind::kInvalidArgument, "Lists nested deeper than " +
                                                        std::to_string(kMaxTreeDepth) +
                                                        " levels cannot be flattened.");
  }
  const size_t at = tree->nodes.size();
  tree->nodes.emplace_back();
  if (x == R_NilValue) {
    tree->nodes[at].kind = NodeKind::kNull;
    return;
  }
  if (!is_bare_list(x)) {
    tree->nodes[at].leaves = 1;
    if (leaves != nullptr) leaves->push_back(x);
    return;
  }
  const R_xlen_t count = Rf_xlength(x);
  if (count > INT32_MAX / 2)
    ndbuf::fail(ndbuf::ErrorKind::kInvalidArgument, "The list is too long.");
  tree->nodes[at].kind = NodeKind::kList;
  tree->nodes[at].children = static_cast<int32_t>(count);
  const SEXP names = Rf_getAttrib(x, R_NamesSymbol);
  if (TYPEOF(names) == STRSXP) {
    tree->nodes[at].names = static_cast<int32_t>(tree->names.size());
    for (R_xlen_t k = 0; k < count; ++k) {
      const SEXP name = STRING_ELT(names, k);
      if (name == NA_STRING) {
        ndbuf::fail(ndbuf::ErrorKind::kInvalidArgument,
                    "List names must not be NA (element " + std::to_string(k + 1) + ").");
      }
      tree->names.emplace_back(Rf_translateCharUTF8(name));
    }
  }
  int32_t leaf_count = 0;
  for (R_xlen_t k = 0; k < count; ++k) {
    const size_t child = tree->nodes.size();
    build_node(VECTOR_ELT(x, k), tree, leaves, depth + 1);
    leaf_count += tree->nodes[child].leaves;
  }
  tree->nodes[at].span = static_cast<int32_t>(tree->nodes.size() - at);
  tree->nodes[at].leaves = leaf_count;
}

uint64_t mix(uint64_t h, uint64_t v) {
  h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
  return h;
}

uint64_t string_hash(const std::string& s) {
  uint64_t h = 1469598103934665603ULL;  // FNV-1a
  for (unsigned char c : s) h = (h ^ c) * 1099511628211ULL;
  return h;
}

// Rebuilds the subtree at `*node`, taking leaves from `*leaf`; both advance past it.
SEXP unflatten_node(const Tree& tree, size_t* node, const SEXP** leaf) {
  const TreeNode& n = tree.nodes[(*node)++];
  if (n.kind == NodeKind::kNull) return R_NilValue;
  if (n.kind == NodeKind::kLeaf) return *(*leaf)++;
  cpp11::sexp out = cpp11::safe[Rf_allocVector](VECSXP, n.children);
  for (int32_t k = 0; k < n.children; ++k) SET_VECTOR_ELT(out, k, unflatten_node(tree, node, leaf));
  if (n.names >= 0) {
    cpp11::sexp names = cpp11::safe[Rf_allocVector](STRSXP, n.children);
    for (int32_t k = 0; k < n.children; ++k) {
      SET_STRING_ELT(names, k, cpp11::safe[Rf_mkCharCE](tree.names[n.names + k].c_str(), CE_UTF8));
    }
    Rf_setAttrib(out, R_NamesSymbol, names);
  }
  return out;
}

void repr_node(const Tree& tree, size_t* node, std::string* out) {
  const TreeNode& n = tree.nodes[(*node)++];
  if (n.kind == NodeKind::kLeaf) {
    *out += "*";
    return;
  }
  if (n.kind == NodeKind::kNull) {
    *out += "NULL";
    return;
  }
  *out += n.names >= 0 ? "list<named>(" : "list(";
  for (int32_t k = 0; k < n.children; ++k) {
    if (k > 0) *out += ", ";
    if (n.names >= 0 && !tree.names[n.names + k].empty()) *out += tree.names[n.names + k] + " = ";
    repr_node(tree, node, out);
  }
  *out += ")";
}

}  // namespace

void build_tree(SEXP x, Tree* tree, std::vector<SEXP>* leaves) { build_node(x, tree, leaves, 0); }

bool trees_equal(const Tree& a, const Tree& b) {
  if (a.nodes.size() != b.nodes.size() || a.names != b.names) return false;
  for (size_t k = 0; k < a.nodes.size(); ++k) {
    const TreeNode& x = a.nodes[k];
    const TreeNode& y = b.nodes[k];
    if (x.kind != y.kind || x.children != y.children || x.names != y.names) return false;
  }
  return true;
}

uint64_t tree_hash(const Tree& tree) {
  uint64_t h = tree.nodes.size();
  for (const TreeNode& n : tree.nodes) {
    h = mix(h, static_cast<uint64_t>(n.kind));
    h = mix(h, static_cast<uint64_t>(static_cast<uint32_t>(n.children)));
    h = mix(h, static_cast<uint64_t>(static_cast<uint32_t>(n.names)));
  }
  h = mix(h, tree.names.size());
  for (const std::string& name : tree.names) h = mix(h, string_hash(name));
  return h;
}

SEXP unflatten_tree(const Tree& tree, const SEXP* leaves) {
  size_t node = 0;
  return unflatten_node(tree, &node, &leaves);
}

std::vector<size_t> tree_children(const Tree& tree, size_t node) {
  std::vector<size_t> out;
  out.reserve(static_cast<size_t>(tree.nodes[node].children));
  size_t child = node + 1;
  for (int32_t k = 0; k < tree.nodes[node].children; ++k) {
    out.push_back(child);
    child += static_cast<size_t>(tree.nodes[child].span);
  }
  return out;
}

std::string tree_path(const Tree& tree, int64_t leaf) {
  if (leaf < 0 || leaf >= tree_size(tree)) {
    ndbuf::fail(ndbuf::ErrorKind::kIndex, "The tree has no leaf " + std::to_string(leaf + 1) +
                                              " (it has " + std::to_string(tree_size(tree)) + ").");
  }
  // Descend into the one child that holds the leaf, counting the leaves skipped.
  std::string path;
  size_t node = 0;
  while (tree.nodes[node].kind == NodeKind::kList) {
    const TreeNode& n = tree.nodes[node];
    size_t child = node + 1;
    for (int32_t k = 0; k < n.children; ++k) {
      const int32_t inside = tree.nodes[child].leaves;
      if (leaf < inside) {
        const std::string name = n.names >= 0 ? tree.names[n.names + k] : std::string();
        if (name.empty()) {
          path += "[[" + std::to_string(k + 1) + "]]";
        } else {
          path += (path.empty() ? "" : "$") + name;
        }
        break;
      }
      leaf -= inside;
      child += static_cast<size_t>(tree.nodes[child].span);
    }
    node = child;
  }
  return path;
}

std::string tree_repr(const Tree& tree, size_t node) {
  std::string out;
  repr_node(tree, &node, &out);
  return out;
}

SEXP wrap_tree(Tree tree) { return wrap_object(kTree, std::move(tree)); }

const Tree& unwrap_tree(SEXP x) { return unwrap_object<Tree>(x, kTree); }

}  // namespace pjrt
