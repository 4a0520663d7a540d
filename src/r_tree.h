// RTree: the nesting structure of an R value, kept apart from its leaves. A bare list (a list
// without a class attribute) is a node whose children are its elements, NULL is an empty node
// (no leaf, but a place in the structure) and every other value is one leaf. The tree lives in
// the bindings rather than in the core because its leaves are R objects: the core never sees a
// SEXP. The dispatcher (r_dispatch.cpp) builds one per call, so building, hashing and comparing
// are flat loops over one array of nodes.
#pragma once

#include <cpp11.hpp>
#include <cstdint>
#include <string>
#include <vector>

namespace pjrt {

enum class NodeKind : uint8_t { kLeaf = 0, kList = 1, kNull = 2 };

// One node, in preorder: a list node is followed by its children's subtrees, so a subtree is
// the run of `span` nodes starting at its root.
struct TreeNode {
  NodeKind kind = NodeKind::kLeaf;
  int32_t children = 0;  // list nodes: the number of elements
  int32_t span = 1;      // nodes in this subtree, itself included
  int32_t leaves = 0;    // leaves in this subtree
  int32_t names = -1;    // list nodes with names: index of the first in Tree::names, else -1
};

struct Tree {
  std::vector<TreeNode> nodes;     // never empty once built
  std::vector<std::string> names;  // the names of named list nodes, in preorder, UTF-8
};

// Nesting deeper than this is an error rather than a stack overflow.
constexpr int kMaxTreeDepth = 10000;

// Appends the structure of `x` to `tree` and, when `leaves` is not null, its leaves in order.
// Throws an argument error for an NA name or nesting deeper than kMaxTreeDepth.
void build_tree(SEXP x, Tree* tree, std::vector<SEXP>* leaves);

// The number of leaves.
inline int64_t tree_size(const Tree& tree) { return tree.nodes.empty() ? 0 : tree.nodes[0].leaves; }

// Structural equality (kinds, child counts, which lists are named, names) and a hash that
// agrees with it.
bool trees_equal(const Tree& a, const Tree& b);
uint64_t tree_hash(const Tree& tree);

// The R value of the structure with `leaves` (tree_size() of them) at the leaf positions.
SEXP unflatten_tree(const Tree& tree, const SEXP* leaves);

// The accessor path of leaf `leaf` (0-based, in flatten order): "a$b[[2]]", "" for a leaf at
// the root. An index error for a leaf the tree does not have.
std::string tree_path(const Tree& tree, int64_t leaf);

// The structure as text: "*" for a leaf, "NULL", "list(...)" and "list<named>(...)".
std::string tree_repr(const Tree& tree, size_t node = 0);

// A tree as an R object of class RTree, and back (an argument error for anything else).
SEXP wrap_tree(Tree tree);
const Tree& unwrap_tree(SEXP x);

// The index of each child of list node `node` in tree.nodes.
std::vector<size_t> tree_children(const Tree& tree, size_t node);

}  // namespace pjrt
