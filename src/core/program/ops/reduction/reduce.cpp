// stablehlo.reduce: associative recognised bodies in reduce_fast.cpp; the rest (a region, or a
// body that keeps the last element) in one row-major pass over the inputs folding into the results.
#include "program/ops/reduction/reduce.hpp"

#include <cstring>

#include "ndbuf/memory/transfer.hpp"
#include "program/kernels/fast_combine.hpp"
#include "program/kernels/kernel_values.hpp"
#include "program/kernels/reduce_fast.hpp"

namespace ndbuf::program {
namespace {

const char kOp[] = "reduce";

// Where each input element lands: the result shape and, per input dim, the result stride
// (0 for a reduced dim).
struct ReducePlan {
  Shape result_shape;
  Strides input_to_result;
};

ReducePlan plan_reduce(const Shape& shape, const std::vector<int64_t>& dimensions) {
  check_axes(dimensions, shape.size(), kOp, "reduction dimension");
  std::vector<bool> reduced(shape.size(), false);
  for (int64_t d : dimensions) reduced[d] = true;
  ReducePlan plan;
  for (size_t k = 0; k < shape.size(); ++k) {
    if (!reduced[k]) plan.result_shape.push_back(shape[k]);
  }
  const Strides result_strides = row_major_strides(plan.result_shape);
  plan.input_to_result.assign(shape.size(), 0);
  for (size_t k = 0, j = 0; k < shape.size(); ++k) {
    if (!reduced[k]) plan.input_to_result[k] = result_strides[j++];
  }
  return plan;
}

// Folds the dense input row by row (its last dim) into `acc`, in row-major order.
template <class T, class A, class Combine>
void fold_rows(const T* x, const Shape& shape, const Strides& to_result, A* acc, Combine combine) {
  const size_t rank = shape.size();
  const int64_t inner = rank == 0 ? 1 : shape[rank - 1];
  const int64_t inner_step = rank == 0 ? 0 : to_result[rank - 1];
  const int64_t rows = checked_numel(shape) / inner;
  std::vector<int64_t> counter(rank, 0);
  int64_t base = 0;
  for (int64_t row = 0; row < rows; ++row, x += inner) {
    if (inner_step == 0) {
      A a = acc[base];
      for (int64_t j = 0; j < inner; ++j) a = combine(a, load(x[j]));
      acc[base] = a;
    } else {
      A* out = acc + base;
      for (int64_t j = 0; j < inner; ++j) out[j] = combine(out[j], load(x[j]));
    }
    for (size_t k = rank > 0 ? rank - 1 : 0; k-- > 0;) {
      base += to_result[k];
      if (++counter[k] < shape[k]) break;
      base -= to_result[k] * shape[k];
      counter[k] = 0;
    }
  }
}

template <DType D>
Tensor reduce_fast(const Tensor& input, const Tensor& init, const ReducePlan& plan, FastBody body) {
  using T = typename ElementType<D>::type;
  using A = Compute<T>;
  Tensor result = Tensor::allocate(D, plan.result_shape, Order::kRowMajor);
  T init_value;
  std::memcpy(&init_value, to_host(init).data(), sizeof(T));
  std::vector<A> acc(static_cast<size_t>(result.numel()), load(init_value));
  if (input.numel() > 0) {
    with_combiner<D>(body, [&](auto combine) {
      fold_rows(static_cast<const T*>(input.data()), input.shape(), plan.input_to_result,
                acc.data(), combine);
    });
  }
  T* out = static_cast<T*>(result.data());
  for (size_t i = 0; i < acc.size(); ++i) out[i] = store<T>(acc[i]);
  return result;
}

// Calls the region once per input element: results hold the running values.
std::vector<Tensor> reduce_generic(const std::vector<Tensor>& inputs,
                                   const std::vector<Tensor>& inits, const ReducePlan& plan,
                                   const RegionFn& body) {
  const size_t n = inputs.size();
  std::vector<Tensor> results;
  std::vector<DType> dtypes;
  for (const Tensor& init : inits) {
    Tensor host_init = to_host(init);
    Tensor r = Tensor::allocate(init.dtype(), plan.result_shape, Order::kRowMajor);
    const size_t size = itemsize(init.dtype());
    for (int64_t i = 0; i < r.numel(); ++i) {
      std::memcpy(static_cast<char*>(r.data()) + i * size, host_init.data(), size);
    }
    results.push_back(r);
    dtypes.push_back(init.dtype());
  }
  const Shape& shape = inputs[0].shape();
  if (inputs[0].numel() == 0) return results;
  std::vector<int64_t> index(shape.size(), 0);
  int64_t flat = 0;
  do {
    int64_t target = 0;
    for (size_t k = 0; k < shape.size(); ++k) target += index[k] * plan.input_to_result[k];
    std::vector<Tensor> args;
    for (size_t i = 0; i < n; ++i) {
      const size_t size = itemsize(dtypes[i]);
      args.push_back(scalar_from(dtypes[i], static_cast<char*>(results[i].data()) + target * size));
    }
    for (size_t i = 0; i < n; ++i) {
      const size_t size = itemsize(inputs[i].dtype());
      args.push_back(
          scalar_from(inputs[i].dtype(), static_cast<const char*>(inputs[i].data()) + flat * size));
    }
    const std::vector<Tensor> returned = body(args);
    const auto values = region_values(returned, dtypes, kOp);
    for (size_t i = 0; i < n; ++i) {
      const size_t size = itemsize(dtypes[i]);
      std::memcpy(static_cast<char*>(results[i].data()) + target * size, values[i], size);
    }
    ++flat;
  } while (next_index(index, shape));
  return results;
}

}  // namespace

std::vector<Tensor> reduce(const std::vector<Tensor>& inputs,
                           const std::vector<Tensor>& init_values,
                           const std::vector<int64_t>& dimensions, const RegionFn& body,
                           FastBody fast) {
  if (inputs.empty() || inputs.size() != init_values.size()) {
    kernel_error(kOp, "needs one init value per input and at least one input.");
  }
  check_same_shapes(inputs, kOp, "inputs");
  for (const Tensor& init : init_values) check_scalar(init, kOp, "an init value");
  const ReducePlan plan = plan_reduce(inputs[0].shape(), dimensions);
  const bool fast_fits =
      fast != FastBody::kNone && inputs.size() == 1 && inputs[0].dtype() == init_values[0].dtype();
  if (fast_fits) {
    check_fast_body(fast, inputs[0].dtype(), kOp);
    if (fast != FastBody::kReplace) {
      return {reduce_associative(inputs[0], init_values[0], dimensions, plan.result_shape, fast)};
    }
    const Tensor input = dense_host(inputs[0]);
    return {dispatch(input.dtype(), [&](auto tag) {
      return reduce_fast<decltype(tag)::value>(input, init_values[0], plan, fast);
    })};
  }
  if (!body) kernel_error(kOp, "the body is missing.");
  std::vector<Tensor> dense;
  for (const Tensor& x : inputs) dense.push_back(dense_host(x));
  return reduce_generic(dense, init_values, plan, body);
}

}  // namespace ndbuf::program
