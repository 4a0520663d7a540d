// Shared pieces of the collective ops (collective.hpp).
#include "program/ops/collective/collective.hpp"

#include <algorithm>
#include <cstring>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "program/exec/builders.hpp"
#include "program/ir/attr_access.hpp"
#include "program/ops/structure/structure.hpp"

namespace ndbuf::program {

IdGroups attr_id_groups(const Op& op, const std::string& key) {
  IdGroups groups;
  for (const std::vector<int64_t>& row : attr_int_rows(op, key)) {
    std::vector<int64_t> ids;
    for (int64_t id : row) {
      if (id != -1) ids.push_back(id);
    }
    if (!ids.empty()) groups.push_back(std::move(ids));
  }
  return groups;
}

int64_t channel_id(const Op& op) {
  if (const Attribute* handle = find_attr(op.attrs, "channel_handle")) {
    const std::vector<int64_t> id = field_ints(op, *handle, "handle");
    return id.empty() ? 0 : id[0];
  }
  return attr_int_or(op, "channel_id", 0);
}

ProcessGrid grid_of(const ExecContext& context) {
  return context.rendezvous != nullptr ? context.rendezvous->grid() : ProcessGrid{};
}

std::vector<int> my_group(const ExecContext& context, const GroupSpec& spec) {
  return group_of(grid_of(context), spec.strategy, spec.ids, context.process);
}

CollectiveParts exchange(ExecContext& context, const std::vector<int>& group, CollectivePart mine) {
  if (context.rendezvous == nullptr) {
    return std::make_shared<const std::vector<CollectivePart>>(1, std::move(mine));
  }
  return context.rendezvous->exchange(context.process, group, std::move(mine));
}

bool spans_ranks(const ExecContext& context, const std::vector<int>& group) {
  return context.rendezvous != nullptr && context.rendezvous->spans_ranks(group);
}

std::string collective_signature(const Op& op) {
  return "'" + op.name + "' (" + types_to_string(op.operand_types) + ")";
}

int64_t position_in(const std::vector<int>& group, int process) {
  return std::find(group.begin(), group.end(), process) - group.begin();
}

Tensor block_of(const Tensor& t, size_t dim, int64_t index, int64_t count) {
  const int64_t size = t.shape()[dim] / count;
  Dims start(t.rank(), 0), limit(t.shape()), step(t.rank(), 1);
  start[dim] = index * size;
  limit[dim] = (index + 1) * size;
  return slice(t, start, limit, step);
}

std::vector<Tensor> part_tensors(const CollectiveParts& parts, size_t operand) {
  std::vector<Tensor> out;
  for (const CollectivePart& part : *parts) out.push_back(part.tensors[operand]);
  return out;
}

size_t root_position(const Op& op, const Tensor* roots, size_t j, size_t members) {
  int64_t root = 0;
  if (roots != nullptr) {
    const auto at = static_cast<int64_t>(j);
    root = scalar_index(slice(*roots, {at}, {at + 1}, {1}));
  }
  if (root < 0 || static_cast<size_t>(root) >= members) {
    op_error(op, "root index " + std::to_string(root) + " is outside its group of " +
                     std::to_string(members));
  }
  return static_cast<size_t>(root);
}

Values zero_results(const Op& op, size_t count) {
  Values out;
  for (size_t j = 0; j < count; ++j) out.emplace_back(zeros_of(result_tensor(op, j)));
  return out;
}

Tensor on_this_device(const Tensor& t) {
  const Device here = current_device();
  return t.device() == here ? t : copy_to(t, here, Order::kRowMajor);
}

Tensor shared_on(const Tensor& t, const Device& device) {
  if (!is_host(t.device()) || !is_host(device)) {
    fail(ErrorKind::kDevice, "only host memory can be shared between devices");
  }
  auto alias = std::make_shared<Storage>(
      t.storage()->data(), t.storage()->nbytes(), device,
      [keep = t.storage()](void*) mutable noexcept { keep.reset(); }, /*read_only=*/true,
      /*shared_result=*/true);
  return Tensor(std::move(alias), t.dtype(), t.shape(), t.strides(), t.offset());
}

Tensor zeros_of(const Type& type) {
  Tensor zeros = Tensor::allocate(type.dtype, type.shape, Order::kRowMajor);
  std::memset(zeros.data(), 0, static_cast<size_t>(zeros.nbytes()));
  return zeros;
}

}  // namespace ndbuf::program
