// stablehlo.map: the region applied to each element position of the operands. The type rule
// checks the region's signature against the operands; the builder compiles the region into an
// element program when it can, else runs it through the interpreter element by element.
#include <cstring>
#include <utility>

#include "ndbuf/memory/transfer.hpp"
#include "program/exec/builders.hpp"
#include "program/exec/region_patterns.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/elementwise/map_program.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {

// The body maps one 0-d element per operand to one of the result's element type.
void map_types(const Op& op, const Module&) {
  if (op.regions.size() != 1 || op.operands.empty() || op.result_types.size() != 1) {
    op_error(op, "needs operands, one region and one result");
  }
  const Type& result = result_tensor(op, 0);
  std::vector<Type> scalars;
  for (size_t k = 0; k < op.operands.size(); ++k) {
    const Type& t = operand_tensor(op, k);
    if (t.shape != result.shape) op_error(op, "operands must all have the result's shape");
    scalars.push_back(Type::tensor(t.dtype, {}));
  }
  // The spec maps every axis (dimensions = [0, ..., rank - 1]); nothing else is defined.
  std::vector<int64_t> all(result.shape.size());
  for (size_t k = 0; k < all.size(); ++k) all[k] = static_cast<int64_t>(k);
  if (attr_ints_or(op, "dimensions", all) != all) {
    op_error(op,
             "dimensions must list the result's " + std::to_string(all.size()) + " axes in order");
  }
  const Region& region = op.regions[0];
  if (region.arg_types != scalars) op_error(op, "region must take one 0-d tensor per operand");
  if (region.ops.back().operand_types != std::vector<Type>{Type::tensor(result.dtype, {})}) {
    op_error(op, "region must return one 0-d tensor of the result's element type");
  }
}

// map_types has checked the operands, the dimensions and the region's signature.
OpFn build_map(const Op& op, const Planning& planning) {
  const Type result = result_tensor(op, 0);
  const Region& region = op.regions[0];
  if (auto program = region_program(region, planning)) {
    return [result, program = std::move(*program)](Interpreter&, const Values& a) -> Values {
      return one_value(map_program(tensors_of(a), result.dtype, program));
    };
  }
  const RegionPlan* body = &planning.plan.region(region);
  return [body, result](Interpreter& in, const Values& a) -> Values {
    std::vector<Tensor> dense;
    for (const Value& v : a) dense.push_back(make_dense(v.get(), Order::kRowMajor));
    Tensor out = Tensor::allocate(result.dtype, result.shape, Order::kRowMajor);
    const size_t out_item = itemsize(result.dtype);
    for (int64_t i = 0; i < out.numel(); ++i) {
      Values scalars(dense.size());  // fresh per element: moved into the region
      for (size_t k = 0; k < dense.size(); ++k) {
        const size_t item = itemsize(dense[k].dtype());
        Tensor s = Tensor::allocate(dense[k].dtype(), {}, Order::kRowMajor);
        std::memcpy(s.data(), static_cast<const char*>(dense[k].data()) + i * item, item);
        scalars[k] = Value(s);
      }
      const Tensor r = in.run_region(*body, std::move(scalars))[0].get();
      std::memcpy(static_cast<char*>(out.data()) + i * out_item, r.data(), out_item);
    }
    return one_value(std::move(out));
  };
}

}  // namespace ndbuf::program
