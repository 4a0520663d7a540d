// The element program's executor: each step runs over the lanes of its registers. Compares,
// selects, the logical ops and the common arithmetic run in loops here over the element
// functions the kernels use (elementwise_scalar.hpp, float_functions.hpp), f32 / f64 math in
// the span kernels (span_kernels.hpp); every other step calls its element-wise kernel on views
// of the registers, so results are the kernels' bits.
#include "program/element/element_program.hpp"

#include <cstring>
#include <memory>
#include <type_traits>

#include "memory/element_cell.hpp"
#include "program/element/element_compare.hpp"
#include "program/kernels/compute_type.hpp"
#include "program/kernels/result_memory.hpp"
#include "program/ops/elementwise/elementwise_scalar.hpp"
#include "program/ops/elementwise/float_functions.hpp"
#include "program/ops/elementwise/narrow_spans.hpp"
#include "program/ops/elementwise/span_kernels.hpp"

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

// f32 and f64 math through the span kernels the tensor kernels' results are checked against
// (span_kernels.hpp: vectorised, AVX2 where the CPU has it, the vector tanh for f32).
template <class T>
bool typed_span_unary(UnaryOp op, const void* x, void* out, int64_t n) {
  const SpanUnaryFn<T> f = span_unary<T>(op);
  if (f == nullptr) return false;
  f(static_cast<const T*>(x), static_cast<T*>(out), n);
  return true;
}

template <class T>
bool typed_span_binary(BinaryOp op, const void* a, const void* b, void* out, int64_t n) {
  const SpanBinaryFn<T> f = span_binary<T>(op);
  if (f == nullptr) return false;
  f(static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(out), n);
  return true;
}

bool is_16_bit_float(DType dtype) { return dtype == DType::kF16 || dtype == DType::kBF16; }

// f16 / bf16 through the f32 spans, as their element-wise kernels compute them.
bool float_span_unary(const ElementStep& s, DType in, const void* x, void* out, int64_t n) {
  if (in != s.dtype) return false;
  if (s.dtype == DType::kF32) return typed_span_unary<float>(s.unary, x, out, n);
  if (s.dtype == DType::kF64) return typed_span_unary<double>(s.unary, x, out, n);
  if (!is_16_bit_float(s.dtype)) return false;
  const SpanUnaryFn<float> f = span_unary<float>(s.unary);
  if (f == nullptr) return false;
  narrow_span_unary(s.dtype, f, static_cast<const uint16_t*>(x), static_cast<uint16_t*>(out), n);
  return true;
}

bool float_span_binary(const ElementStep& s, DType in, const void* a, const void* b, void* out,
                       int64_t n) {
  if (in != s.dtype) return false;
  if (s.dtype == DType::kF32) return typed_span_binary<float>(s.binary, a, b, out, n);
  if (s.dtype == DType::kF64) return typed_span_binary<double>(s.binary, a, b, out, n);
  if (!is_16_bit_float(s.dtype)) return false;
  const SpanBinaryFn<float> f = span_binary<float>(s.binary);
  if (f == nullptr) return false;
  narrow_span_binary(s.dtype, f, static_cast<const uint16_t*>(a), static_cast<const uint16_t*>(b),
                     static_cast<uint16_t*>(out), n);
  return true;
}

}  // namespace

ElementTile::ElementTile(const ElementProgram& program, int64_t lanes)
    : program_(&program), lanes_(lanes), argument_register_(program.arguments.size(), -1) {
  assign_storage();
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

// Arguments and constants keep their registers; a computed register's memory goes back to
// the pool after the step that reads it last (not before that step's own result has taken
// memory, so no step writes over its operands), and results are kept to the end.
void ElementTile::assign_storage() {
  const auto& steps = program_->steps;
  const size_t n = steps.size();
  std::vector<size_t> last_read(n);
  for (size_t r = 0; r < n; ++r) {
    last_read[r] = r;
    for (int32_t o : steps[r].operands) {
      if (o >= 0) last_read[o] = r;
    }
  }
  for (int32_t r : program_->results) last_read[r] = n;
  std::vector<size_t> slot_offset, slot_bytes, offsets(n);
  std::vector<int> free_slots, slot_of(n, -1);
  size_t total = 0;
  const auto release = [&](size_t r) {
    if (slot_of[r] >= 0) free_slots.push_back(slot_of[r]);
    slot_of[r] = -1;
  };
  for (size_t r = 0; r < n; ++r) {
    const size_t bytes =
        (static_cast<size_t>(lanes_) * itemsize(steps[r].dtype) + kRegisterAlign - 1) /
        kRegisterAlign * kRegisterAlign;
    const bool pooled = steps[r].op != ElementOp::kArgument && steps[r].op != ElementOp::kConstant;
    int slot = -1;
    for (size_t f = 0; pooled && f < free_slots.size(); ++f) {
      if (slot_bytes[free_slots[f]] >= bytes) {
        slot = free_slots[f];
        free_slots.erase(free_slots.begin() + static_cast<std::ptrdiff_t>(f));
        break;
      }
    }
    if (slot < 0) {
      slot = static_cast<int>(slot_offset.size());
      slot_offset.push_back(total);
      slot_bytes.push_back(bytes);
      total += bytes;
    }
    offsets[r] = slot_offset[slot];
    if (pooled) slot_of[r] = slot;
    for (int32_t o : steps[r].operands) {
      if (o >= 0 && last_read[o] == r) release(static_cast<size_t>(o));
    }
    if (last_read[r] == r) release(r);  // never read
  }
  storage_.reset(new unsigned char[total + kRegisterAlign]);
  // Align the registers themselves: offsets are relative to the first aligned byte.
  const auto start = reinterpret_cast<uintptr_t>(storage_.get());
  const size_t skew = (kRegisterAlign - start % kRegisterAlign) % kRegisterAlign;
  for (size_t r = 0; r < n; ++r) home_.push_back(storage_.get() + skew + offsets[r]);
  regs_ = home_;
}

void* ElementTile::argument(size_t k) {
  const int32_t r = argument_register_[k];
  regs_[r] = home_[r];
  return regs_[r];
}

void ElementTile::bind_argument(size_t k, const void* lanes) {
  // Argument registers are never written by a step, so reading the caller's memory is safe.
  regs_[argument_register_[k]] =
      const_cast<unsigned char*>(static_cast<const unsigned char*>(lanes));
}

void ElementTile::run_steps(int64_t count) {
  const auto& steps = program_->steps;
  for (size_t r = 0; r < steps.size(); ++r) run_step(steps[r], static_cast<int32_t>(r), count);
}

void ElementTile::run(int64_t count) {
  run_steps(count);
  for (size_t k = 0; k < results_.size(); ++k) {
    const int32_t r = program_->results[k];
    std::memcpy(results_[k].data(), reg(r), count * itemsize(program_->steps[r].dtype));
  }
}

void ElementTile::run_into(int64_t count, void* out) {
  const int32_t r = program_->results[0];
  const ElementStep& root = program_->steps[r];
  if (root.op == ElementOp::kArgument || root.op == ElementOp::kConstant) {
    run_steps(count);
    std::memcpy(out, reg(r), count * itemsize(root.dtype));
    return;
  }
  regs_[r] = static_cast<unsigned char*>(out);
  try {
    run_steps(count);
  } catch (...) {
    regs_[r] = home_[r];
    throw;
  }
  regs_[r] = home_[r];
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
      if (float_span_binary(s, program_->steps[op[0]].dtype, reg(op[0]), reg(op[1]), reg(r), n))
        return true;
      return binary_fast(s.binary, s.dtype, reg(op[0]), reg(op[1]), reg(r), n);
    case ElementOp::kUnary:
      if (float_span_unary(s, program_->steps[op[0]].dtype, reg(op[0]), reg(r), n)) return true;
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
  if (!scratch_) scratch_ = std::make_shared<BlockScratch>(static_cast<size_t>(lanes_) * 16);
  ResultMemory scratch(scratch_.get());
  const auto& op = s.operands;
  const Tensor out = [&] {
    switch (s.op) {
      case ElementOp::kUnary:
        return unary(s.unary, view(op[0]), s.dtype, scratch);
      case ElementOp::kBinary:
        return binary(s.binary, view(op[0]), view(op[1]), s.dtype, scratch);
      case ElementOp::kCompare:
        return compare(s.direction, s.compare_type, view(op[0]), view(op[1]), scratch);
      case ElementOp::kSelect:
        return select(view(op[0]), view(op[1]), view(op[2]), scratch);
      case ElementOp::kClamp:
        return clamp(view(op[0]), view(op[1]), view(op[2]), scratch);
      case ElementOp::kReducePrecision:
        return reduce_precision(view(op[0]), s.exponent_bits, s.mantissa_bits, scratch);
      default:
        return convert(view(op[0]), s.dtype, scratch);
    }
  }();
  std::memcpy(reg(r), out.data(), static_cast<size_t>(n) * itemsize(s.dtype));
}

}  // namespace ndbuf::program
