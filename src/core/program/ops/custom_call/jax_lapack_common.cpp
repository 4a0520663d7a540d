#include "program/ops/custom_call/jax_lapack_common.hpp"

#include <cstring>

#include "ndbuf/memory/transfer.hpp"

namespace ndbuf::program::jax_lapack {
namespace {

struct Letter {
  char letter;
  DType dtype;
};
constexpr Letter kLetters[] = {
    {'s', DType::kF32}, {'d', DType::kF64}, {'c', DType::kC64}, {'z', DType::kC128}};

}  // namespace

Shape lead_of(const Shape& s) { return Shape(s.begin(), s.end() - 2); }

Shape tail(const Shape& lead, std::vector<int64_t> dims) {
  Shape s = lead;
  s.insert(s.end(), dims.begin(), dims.end());
  return s;
}

const Shape& matrix_operand(const CustomCallSite& site, size_t k, DType dtype) {
  const TensorType& t = site.operands[k];
  if (t.dtype != dtype || t.shape.size() < 2) {
    fail(ErrorKind::kInvalidArgument,
         "operand " + std::to_string(k + 1) + " must be " + std::string(dtype_name(dtype)) +
             " matrices (rank 2 or more), not " + tensor_type_to_string(t));
  }
  return t.shape;
}

char letter_attribute(const CustomCallSite& site, const char* name, const char* allowed,
                      char fallback) {
  const CustomCallAttribute* a = site.attribute(name);
  if (a == nullptr) return fallback;
  const char c = a->kind == CustomCallAttribute::Kind::kInt ? static_cast<char>(a->integer) : 0;
  if (a->kind != CustomCallAttribute::Kind::kInt || c == 0 || std::strchr(allowed, c) == nullptr) {
    fail(ErrorKind::kInvalidArgument, "attribute '" + std::string(name) + "' must be the code of " +
                                          "one of the letters " + allowed);
  }
  return c;
}

char required_letter(const CustomCallSite& site, const char* name, const char* allowed) {
  const char c = letter_attribute(site, name, allowed, 0);
  if (c == 0) fail(ErrorKind::kInvalidArgument, "needs the attribute '" + std::string(name) + "'");
  return c;
}

Tensor zeros(DType dtype, const Shape& shape) {
  Tensor t = Tensor::allocate(dtype, shape, Order::kRowMajor);
  if (t.nbytes() > 0) std::memset(t.data(), 0, static_cast<size_t>(t.nbytes()));
  return t;
}

std::vector<BuiltinTarget> lapack_targets(const Routine* routines, size_t count) {
  std::vector<BuiltinTarget> out;
  for (size_t r = 0; r < count; ++r) {
    for (const Letter& l : kLetters) {
      const bool complex = l.dtype == DType::kC64 || l.dtype == DType::kC128;
      const Binder bind = routines[r].bind;
      const DType dtype = l.dtype;
      out.push_back({std::string("lapack_") + l.letter +
                         (complex ? routines[r].complex_name : routines[r].real_name) + "_ffi",
                     [bind, dtype](const CustomCallSite& site) { return bind(site, dtype); }});
    }
  }
  return out;
}

}  // namespace ndbuf::program::jax_lapack
