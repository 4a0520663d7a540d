// Collective parts to bytes and back (part_codec.hpp).
#include "program/spmd/part_codec.hpp"

#include <cstdint>
#include <cstring>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/transfer.hpp"

namespace ndbuf::program {
namespace {

void put_int(std::string& out, int64_t value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof value);
}

void put_bytes(std::string& out, const void* data, size_t size) {
  put_int(out, static_cast<int64_t>(size));
  out.append(static_cast<const char*>(data), size);
}

class Reader {
 public:
  Reader(const std::string& bytes, const std::string& from) : bytes_(bytes), from_(from) {}

  int64_t integer() {
    int64_t value = 0;
    std::memcpy(&value, take(sizeof value), sizeof value);
    return value;
  }
  // A length-prefixed run of bytes.
  std::pair<const char*, size_t> run() {
    const int64_t size = integer();
    if (size < 0) damaged();
    return {take(static_cast<size_t>(size)), static_cast<size_t>(size)};
  }
  bool done() const { return at_ == bytes_.size(); }
  [[noreturn]] void damaged() const {
    fail(ErrorKind::kDevice, "a collective's message from " + from_ + " is damaged");
  }

 private:
  const char* take(size_t size) {
    if (size > bytes_.size() - at_) damaged();
    const char* p = bytes_.data() + at_;
    at_ += size;
    return p;
  }

  const std::string& bytes_;
  const std::string& from_;
  size_t at_ = 0;
};

Tensor read_tensor(Reader& in) {
  const int64_t code = in.integer();
  if (code < 0 || code >= static_cast<int64_t>(kNumDTypes + kNumProgramOnlyDTypes)) in.damaged();
  const auto dtype = static_cast<DType>(code);
  const int64_t rank = in.integer();
  if (rank < 0 || rank > 64) in.damaged();
  Shape shape;
  int64_t numel = 1;
  for (int64_t d = 0; d < rank; ++d) {
    const int64_t extent = in.integer();
    if (extent < 0 || (extent > 0 && numel > INT64_MAX / extent)) in.damaged();
    numel *= extent;
    shape.push_back(extent);
  }
  const auto [data, size] = in.run();
  if (numel > INT64_MAX / static_cast<int64_t>(itemsize(dtype)) ||
      static_cast<size_t>(numel) * itemsize(dtype) != size) {
    in.damaged();
  }
  Tensor t = Tensor::allocate(dtype, shape, Order::kRowMajor);
  if (size > 0) std::memcpy(t.data(), data, size);
  return t;
}

}  // namespace

std::string encode_parts(const std::vector<const PlacedPart*>& parts) {
  std::string out;
  put_int(out, static_cast<int64_t>(parts.size()));
  for (const PlacedPart* placed : parts) {
    put_int(out, placed->first);
    const CollectivePart& part = placed->second;
    put_bytes(out, part.what.data(), part.what.size());
    put_int(out, static_cast<int64_t>(part.tensors.size()));
    for (const Tensor& t : part.tensors) {
      const Tensor dense = make_dense(t, Order::kRowMajor);
      put_int(out, static_cast<int64_t>(dense.dtype()));
      put_int(out, static_cast<int64_t>(dense.rank()));
      for (int64_t extent : dense.shape()) put_int(out, extent);
      put_bytes(out, dense.data(), static_cast<size_t>(dense.nbytes()));
    }
  }
  return out;
}

std::vector<PlacedPart> decode_parts(const std::string& bytes, const std::string& from) {
  Reader in(bytes, from);
  const int64_t count = in.integer();
  if (count < 0 || count > 1 << 20) in.damaged();
  std::vector<PlacedPart> parts;
  for (int64_t k = 0; k < count; ++k) {
    PlacedPart placed;
    placed.first = static_cast<int>(in.integer());
    const auto [what, size] = in.run();
    placed.second.what.assign(what, size);
    const int64_t tensors = in.integer();
    if (tensors < 0 || tensors > 1 << 20) in.damaged();
    for (int64_t j = 0; j < tensors; ++j) placed.second.tensors.push_back(read_tensor(in));
    parts.push_back(std::move(placed));
  }
  if (!in.done()) in.damaged();
  return parts;
}

}  // namespace ndbuf::program
