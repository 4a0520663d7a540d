// stablehlo.select_and_scatter over ops/reduction/select_and_scatter.hpp: the type rule checks the
// window, the source (one element per window) and both bodies' signatures; the builder runs a
// recognised select or scatter body natively, one that compiles to an element program as one,
// and any other through the interpreter.
#include "program/element/element_region.hpp"
#include "program/exec/builders.hpp"
#include "program/exec/region_patterns.hpp"
#include "program/ir/attr_access.hpp"
#include "program/kernels/kernel_values.hpp"
#include "program/ops/reduction/select_and_scatter.hpp"
#include "program/ops/reduction/window_attrs.hpp"
#include "program/ops/reduction/window_geometry.hpp"
#include "program/verify/type_rules.hpp"

namespace ndbuf::program {

// Windows are not dilated here, and the source holds one element per window; select takes
// two operand elements, scatter (result element, source element).
void select_and_scatter_types(const Op& op, const Module&) {
  expect_counts(op, 3, 1);
  if (op.regions.size() != 2) op_error(op, "needs a select and a scatter region");
  const Type& in = operand_tensor(op, 0);
  const WindowConfig w = window_config(op, in.shape.size());
  const Type& source = operand_tensor(op, 1);
  const Type& init = operand_tensor(op, 2);
  if (!init.shape.empty()) op_error(op, "init value " + type_to_string(init) + " must be 0-d");
  if (source.dtype != in.dtype) {
    op_error(op, "source " + type_to_string(source) + " must have the element type of operand " +
                     type_to_string(in));
  }
  const Shape windows = at_op(op, [&] {
    for (int64_t d : w.base_dilations) {
      if (d != 1) kernel_error("select_and_scatter", "base dilations must be 1.");
    }
    for (int64_t d : w.window_dilations) {
      if (d != 1) kernel_error("select_and_scatter", "window dilations must be 1.");
    }
    return window_geometry(in.shape, w, "select_and_scatter").result_shape;
  });
  if (source.shape != windows) {
    op_error(op, "source " + type_to_string(source) + " should have shape " +
                     shape_to_tuple(windows) + ", one element per window");
  }
  expect_result_type(op, 0, init.dtype, in.shape);
  const Type element = Type::tensor(in.dtype, {});
  const Type result = Type::tensor(init.dtype, {});
  expect_region_args(op, op.regions[0], {element, element});
  expect_region_returns(op, op.regions[0], {Type::tensor(DType::kPred, {})});
  expect_region_args(op, op.regions[1], {result, element});
  expect_region_returns(op, op.regions[1], {result});
}

// select_and_scatter_types has checked the operands, the window and both bodies.
OpFn build_select_and_scatter(const Op& op, const Planning& planning) {
  const WindowConfig w = window_config(op, operand_tensor(op, 0).shape.size());
  const Region* select = &op.regions[0];
  const FastComparator fast_select = recognise_comparator(*select);
  auto select_program = fast_select.direction == ComparatorOrder::kNone
                            ? region_program(*select, planning)
                            : std::nullopt;
  const RegionPlan* select_plan = &planning.plan.region(*select);
  const BodyCall scatter = body_call(op.regions[1], planning);
  return [w, select_plan, fast_select, select_program, scatter](Interpreter& in,
                                                                const Values& a) -> Values {
    const RegionFn select_fn =
        select_program ? element_region_fn(*select_program) : in.region_fn(*select_plan);
    return {Value(select_and_scatter(a[0].get(), a[1].get(), a[2].get(), w, select_fn,
                                     scatter.fn(in), fast_select, scatter.fast))};
  };
}

}  // namespace ndbuf::program
