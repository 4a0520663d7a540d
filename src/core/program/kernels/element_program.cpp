// The element program's executor: each step runs over the lanes of its registers. Compares,
// selects, the logical ops and the common arithmetic run in loops here over the element
// functions the kernels use (elementwise_scalar.hpp, float_functions.hpp); every other step
// calls its element-wise kernel on views of the registers, so results are the kernels' bits.
#include "program/kernels/element_program.hpp"

#include <cstring>
#include <memory>
#include <type_traits>

#include "memory/element_cell.hpp"
#include "program/kernels/compute_type.hpp"
#include "program/kernels/element_compare.hpp"
#include "program/kernels/elementwise_scalar.hpp"
#include "program/kernels/float_functions.hpp"

namespace ndbuf::program {
namespace {

constexpr size_t kRegisterAlign = 64;

// One loop per direction and order, each simple enough to vectorise at -O2 (omp simd).
template <class T>
void compare_typed(const ElementStep& s, const void* a, const void* b, void* out, int64_t n) {
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  auto* o = static_cast<uint8_t*>(out);
  const CompareType type = s.compare_type;
  with_relation(s.direction, [&](auto rel) {
    if constexpr (std::is_floating_point_v<Compute<T>>) {
      if (type == CompareType::kTotalOrder) {
#pragma omp simd
        for (int64_t i = 0; i < n; ++i)
          o[i] = compare_real(rel, CompareType::kTotalOrder, x[i], y[i]);
        return;
      }
    }
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) o[i] = compare_real(rel, CompareType::kFloat, x[i], y[i]);
  });
}

template <class T, class F>
void binary_lanes(const void* a, const void* b, void* out, int64_t n, F f) {
  const T* x = static_cast<const T*>(a);
  const T* y = static_cast<const T*>(b);
  T* o = static_cast<T*>(out);
#pragma omp simd
  for (int64_t i = 0; i < n; ++i) o[i] = f(x[i], y[i]);
}

// pred and integers: the ops of elementwise_binary.cpp that are one expression.
bool pred_binary(BinaryOp op, const void* a, const void* b, void* out, int64_t n) {
  using T = uint8_t;
  switch (op) {
    case BinaryOp::kAnd:
      binary_lanes<T>(a, b, out, n, [](T u, T v) { return T(u & v); });
      return true;
    case BinaryOp::kOr:
      binary_lanes<T>(a, b, out, n, [](T u, T v) { return T(u | v); });
      return true;
    case BinaryOp::kXor:
      binary_lanes<T>(a, b, out, n, [](T u, T v) { return T(u ^ v); });
      return true;
    default:
      return false;
  }
}

template <class T>
bool integer_binary(BinaryOp op, const void* a, const void* b, void* out, int64_t n) {
  switch (op) {
    case BinaryOp::kAdd:
      binary_lanes<T>(a, b, out, n, [](T u, T v) { return detail::wrap_add(u, v); });
      return true;
    case BinaryOp::kSubtract:
      binary_lanes<T>(a, b, out, n, [](T u, T v) { return detail::wrap_sub(u, v); });
      return true;
    case BinaryOp::kMaximum:
      binary_lanes<T>(a, b, out, n, [](T u, T v) { return u < v ? v : u; });
      return true;
    case BinaryOp::kMinimum:
      binary_lanes<T>(a, b, out, n, [](T u, T v) { return v < u ? v : u; });
      return true;
    case BinaryOp::kAnd:
      binary_lanes<T>(a, b, out, n, [](T u, T v) { return T(u & v); });
      return true;
    case BinaryOp::kOr:
      binary_lanes<T>(a, b, out, n, [](T u, T v) { return T(u | v); });
      return true;
    default:
      return false;
  }
}

template <class T>
bool float_binary(BinaryOp op, const void* a, const void* b, void* out, int64_t n) {
  switch (op) {
    case BinaryOp::kAdd:
      binary_lanes<T>(a, b, out, n, detail::AddFn{});
      return true;
    case BinaryOp::kSubtract:
      binary_lanes<T>(a, b, out, n, detail::SubtractFn{});
      return true;
    case BinaryOp::kMultiply:
      binary_lanes<T>(a, b, out, n, detail::MultiplyFn{});
      return true;
    case BinaryOp::kMaximum:
      binary_lanes<T>(a, b, out, n, detail::MaximumFn{});
      return true;
    case BinaryOp::kMinimum:
      binary_lanes<T>(a, b, out, n, detail::MinimumFn{});
      return true;
    default:
      return false;
  }
}

bool binary_fast(BinaryOp op, DType dtype, const void* a, const void* b, void* out, int64_t n) {
  switch (dtype) {
    case DType::kPred:
      return pred_binary(op, a, b, out, n);
    case DType::kI32:
      return integer_binary<int32_t>(op, a, b, out, n);
    case DType::kI64:
      return integer_binary<int64_t>(op, a, b, out, n);
    case DType::kU32:
      return integer_binary<uint32_t>(op, a, b, out, n);
    case DType::kF32:
      return float_binary<float>(op, a, b, out, n);
    case DType::kF64:
      return float_binary<double>(op, a, b, out, n);
    default:
      return false;
  }
}

void select_lanes(size_t size, const void* p, const void* a, const void* b, void* out, int64_t n) {
  const auto* c = static_cast<const uint8_t*>(p);
  with_cell(size, [&](auto tag) {
    using C = decltype(tag);
    const C* x = static_cast<const C*>(a);
    const C* y = static_cast<const C*>(b);
    C* o = static_cast<C*>(out);
    // Both loads unconditional, so the choice if-converts into a vector blend.
#pragma omp simd
    for (int64_t i = 0; i < n; ++i) {
      const C u = x[i], v = y[i];
      o[i] = c[i] ? u : v;
    }
  });
}

}  // namespace

ElementTile::ElementTile(const ElementProgram& program, int64_t lanes)
    : program_(&program), lanes_(lanes), argument_register_(program.arguments.size(), -1) {
  size_t total = 0;
  for (const ElementStep& step : program.steps) {
    offsets_.push_back(total);
    const size_t bytes = static_cast<size_t>(lanes) * itemsize(step.dtype);
    total += (bytes + kRegisterAlign - 1) / kRegisterAlign * kRegisterAlign;
  }
  storage_.assign(total + kRegisterAlign, 0);
  // Align the registers themselves: offsets are relative to the first aligned byte.
  const auto start = reinterpret_cast<uintptr_t>(storage_.data());
  const size_t skew = (kRegisterAlign - start % kRegisterAlign) % kRegisterAlign;
  for (size_t& offset : offsets_) offset += skew;
  for (size_t r = 0; r < program.steps.size(); ++r) {
    const ElementStep& step = program.steps[r];
    if (step.op == ElementOp::kArgument)
      argument_register_[step.argument] = static_cast<int32_t>(r);
    if (step.op == ElementOp::kConstant) {
      const size_t size = itemsize(step.dtype);
      auto* out = static_cast<unsigned char*>(reg(static_cast<int32_t>(r)));
      for (int64_t i = 0; i < lanes; ++i) std::memcpy(out + i * size, step.constant.data(), size);
    }
  }
  for (int32_t r : program.results) {
    results_.emplace_back(static_cast<size_t>(lanes) * itemsize(program.steps[r].dtype));
  }
}

void ElementTile::run(int64_t count) {
  const auto& steps = program_->steps;
  for (size_t r = 0; r < steps.size(); ++r) run_step(steps[r], static_cast<int32_t>(r), count);
  for (size_t k = 0; k < results_.size(); ++k) {
    const int32_t r = program_->results[k];
    std::memcpy(results_[k].data(), reg(r), count * itemsize(program_->steps[r].dtype));
  }
}

void ElementTile::run_step(const ElementStep& step, int32_t r, int64_t count) {
  if (step.op == ElementOp::kArgument || step.op == ElementOp::kConstant) return;
  if (!run_fast(step, r, count)) run_kernel(step, r, count);
}

bool ElementTile::run_fast(const ElementStep& s, int32_t r, int64_t n) {
  const auto& op = s.operands;
  switch (s.op) {
    case ElementOp::kCompare: {
      const DType in = program_->steps[op[0]].dtype;
      if (in == DType::kC64 || in == DType::kC128) return false;
      dispatch(in, [&](auto tag) {
        using T = typename decltype(tag)::type;
        if constexpr (!kIsComplex<T>) compare_typed<T>(s, reg(op[0]), reg(op[1]), reg(r), n);
      });
      return true;
    }
    case ElementOp::kSelect:
      select_lanes(itemsize(s.dtype), reg(op[0]), reg(op[1]), reg(op[2]), reg(r), n);
      return true;
    case ElementOp::kBinary:
      return binary_fast(s.binary, s.dtype, reg(op[0]), reg(op[1]), reg(r), n);
    case ElementOp::kUnary:
      if (s.unary == UnaryOp::kNot && s.dtype == DType::kPred) {
        const auto* x = static_cast<const uint8_t*>(reg(op[0]));
        auto* o = static_cast<uint8_t*>(reg(r));
#pragma omp simd
        for (int64_t i = 0; i < n; ++i) o[i] = x[i] == 0;
        return true;
      }
      return false;
    default:
      return false;
  }
}

void ElementTile::run_kernel(const ElementStep& s, int32_t r, int64_t n) {
  const auto view = [&](int32_t k) {
    const DType dtype = program_->steps[k].dtype;
    auto storage = std::make_shared<Storage>(
        reg(k), static_cast<size_t>(n) * itemsize(dtype), Device{}, [](void*) {}, true);
    return Tensor::dense(std::move(storage), dtype, Shape{n}, Order::kRowMajor);
  };
  const auto& op = s.operands;
  const Tensor out = [&] {
    switch (s.op) {
      case ElementOp::kUnary:
        return unary(s.unary, view(op[0]), s.dtype);
      case ElementOp::kBinary:
        return binary(s.binary, view(op[0]), view(op[1]), s.dtype);
      case ElementOp::kCompare:
        return compare(s.direction, s.compare_type, view(op[0]), view(op[1]));
      case ElementOp::kSelect:
        return select(view(op[0]), view(op[1]), view(op[2]));
      case ElementOp::kClamp:
        return clamp(view(op[0]), view(op[1]), view(op[2]));
      default:
        return convert(view(op[0]), s.dtype);
    }
  }();
  std::memcpy(reg(r), out.data(), static_cast<size_t>(n) * itemsize(s.dtype));
}

}  // namespace ndbuf::program
