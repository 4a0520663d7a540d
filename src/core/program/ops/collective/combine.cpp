// Whole-tensor application of a collective's computation (combine.hpp).
#include "program/ops/collective/combine.hpp"

#include <cstring>

#include "ndbuf/memory/transfer.hpp"
#include "program/ops/elementwise/elementwise.hpp"
#include "program/ops/elementwise/map_program.hpp"

namespace ndbuf::program {
namespace {

bool binary_of(FastBody body, BinaryOp& op) {
  switch (body) {
    case FastBody::kAdd:
      op = BinaryOp::kAdd;
      return true;
    case FastBody::kMultiply:
      op = BinaryOp::kMultiply;
      return true;
    case FastBody::kMaximum:
      op = BinaryOp::kMaximum;
      return true;
    case FastBody::kMinimum:
      op = BinaryOp::kMinimum;
      return true;
    case FastBody::kAnd:
      op = BinaryOp::kAnd;
      return true;
    case FastBody::kOr:
      op = BinaryOp::kOr;
      return true;
    default:
      return false;
  }
}

// The region called through the interpreter once per element (a body no element program
// covers).
Tensor combine_by_elements(Interpreter& in, const RegionPlan& body, const Tensor& a,
                           const Tensor& b, DType dtype) {
  const Tensor x = make_dense(a, Order::kRowMajor);
  const Tensor y = make_dense(b, Order::kRowMajor);
  Tensor out = Tensor::allocate(dtype, a.shape(), Order::kRowMajor);
  const size_t item = itemsize(dtype);
  for (int64_t i = 0; i < out.numel(); ++i) {
    Values scalars(2);
    for (int side = 0; side < 2; ++side) {
      Tensor s = Tensor::allocate(dtype, {}, Order::kRowMajor);
      std::memcpy(s.data(), static_cast<const char*>((side ? y : x).data()) + i * item, item);
      scalars[static_cast<size_t>(side)] = Value(s);
    }
    const Tensor r = in.run_region(body, std::move(scalars))[0].get();
    std::memcpy(static_cast<char*>(out.data()) + i * item, r.data(), item);
  }
  return out;
}

}  // namespace

Combine::Combine(const Region& body, DType dtype, const Planning& planning)
    : body_(body_call(body, planning)), dtype_(dtype) {}

Tensor Combine::operator()(Interpreter& in, const Tensor& a, const Tensor& b) const {
  if (BinaryOp op{}; binary_of(body_.fast, op)) return binary(op, a, b, dtype_);
  if (body_.fast == FastBody::kReplace) return b;
  if (body_.program) return map_program({a, b}, dtype_, *body_.program);
  return combine_by_elements(in, *body_.plan, a, b, dtype_);
}

std::optional<BinaryOp> Combine::native_op() const {
  BinaryOp op{};
  if (!binary_of(body_.fast, op)) return std::nullopt;
  return op;
}

Tensor Combine::into(const Tensor& a, const Tensor& b, const Tensor& target) const {
  BinaryOp op{};
  binary_of(body_.fast, op);
  ResultMemory memory(target);
  Tensor out = binary(op, a, b, dtype_, memory);
  if (out.data() != target.data()) {
    std::memcpy(target.data(), out.data(), static_cast<size_t>(out.nbytes()));
  }
  return target;
}

Tensor Combine::fold(Interpreter& in, const std::vector<Tensor>& parts) const {
  Tensor acc = parts.at(0);
  for (size_t k = 1; k < parts.size(); ++k) acc = (*this)(in, acc, parts[k]);
  return acc;
}

}  // namespace ndbuf::program
