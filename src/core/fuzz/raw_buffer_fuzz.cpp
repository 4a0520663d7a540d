// libFuzzer target for raw-buffer creation, as pjrt_buffer(<raw>, dtype, shape, row_major)
// and pjrt_empty(dtype, shape) reach it: a fuzzed dtype (by enum or by name), a shape with
// small, zero, negative, huge and overflowing dims, a byte order, and the rest of the input as
// the bytes. Every call must either throw the ndbuf::Error an independent model predicts, or
// give a buffer whose bytes read back as given in both orders; reading it into R's
// representation, printing it and viewing it as an HArray must then work for any bit pattern.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/convert/buffer.hpp"
#include "ndbuf/convert/convert.hpp"
#include "ndbuf/format/format_buffer.hpp"
#include "ndbuf/format/format_nested.hpp"
#include "ndbuf/harray/harray.hpp"
#include "ndbuf/memory/transfer.hpp"

namespace {

[[noreturn]] void violated(const char* what) {
  std::fprintf(stderr, "raw_buffer_fuzz: invariant violated: %s\n", what);
  __builtin_trap();
}
#define REQUIRE(cond) ((cond) ? (void)0 : violated(#cond))

class Input {
 public:
  Input(const uint8_t* data, size_t size) : data_(data), size_(size) {}
  uint8_t byte() { return pos_ < size_ ? data_[pos_++] : 0; }
  const uint8_t* rest() const { return data_ + pos_; }
  size_t rest_size() const { return size_ - pos_; }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

// Mostly small dims (0 to 4, which keep the byte count reachable), sometimes extremes: the
// shapes R code can hand over after as_shape() (below 2^31) and the ones only C++ callers can.
int64_t fuzzed_dim(Input& in) {
  static const int64_t kExtremes[] = {
      -1,
      INT32_MAX,
      int64_t{1} << 31,
      int64_t{1} << 32,
      3037000500,
      int64_t{1} << 62,
      INT64_MAX,
      INT64_MIN,
      int64_t{1} << 61,
      1,
  };
  const uint8_t kind = in.byte();
  if (kind < 224) return kind % 5;
  return kExtremes[kind % (sizeof kExtremes / sizeof kExtremes[0])];
}

// The model of buffer_from_bytes' checks: which error kind, if any, the core must throw.
enum class Expect { kOk, kInvalid, kConversion };

Expect model_shape(const ndbuf::Shape& shape, size_t itemsize, int64_t* needed) {
  bool has_zero = false;
  for (int64_t d : shape) {
    if (d < 0) return Expect::kInvalid;
    has_zero = has_zero || d == 0;
  }
  int64_t numel = 1;
  if (has_zero) {
    numel = 0;
  } else {
    for (int64_t d : shape) {
      if (__builtin_mul_overflow(numel, d, &numel)) return Expect::kInvalid;
    }
  }
  if (__builtin_mul_overflow(numel, static_cast<int64_t>(itemsize), needed)) {
    return Expect::kInvalid;
  }
  return Expect::kOk;
}

size_t r_item_size(ndbuf::DType dtype) {
  switch (ndbuf::r_vector_type_for(dtype)) {
    case ndbuf::RVectorType::kLogical:
    case ndbuf::RVectorType::kInteger:
      return 4;
    case ndbuf::RVectorType::kComplex:
      return 16;
    case ndbuf::RVectorType::kDouble:
    case ndbuf::RVectorType::kInteger64:
      break;
  }
  return 8;
}

ndbuf::DType fuzzed_dtype(Input& in) {
  const uint8_t kind = in.byte();
  if (kind < 240) return static_cast<ndbuf::DType>(kind % ndbuf::kNumDTypes);
  // A name of up to 7 bytes: the parser must accept exactly the names and aliases.
  std::string name;
  for (int k = kind % 8; k > 0; --k) name.push_back(static_cast<char>(in.byte() % 128));
  try {
    const ndbuf::DType d = ndbuf::parse_dtype_or_throw(name);
    REQUIRE(ndbuf::parse_dtype(name) == d);
    return d;
  } catch (const ndbuf::Error& e) {
    REQUIRE(e.kind() == ndbuf::ErrorKind::kInvalidArgument);
    REQUIRE(!ndbuf::parse_dtype(name).has_value());
    return ndbuf::DType::kU8;
  }
}

// Reading, printing and viewing a buffer of arbitrary bytes must work.
void exercise(const ndbuf::Tensor& t, Input& options) {
  const int64_t n = t.numel();
  std::vector<char> r(static_cast<size_t>(n) * r_item_size(t.dtype()) + 1);
  const int64_t ambiguous = ndbuf::convert_to_r(t.dtype(), t.data(), r.data(), n);
  REQUIRE(ambiguous >= 0 && ambiguous <= n);
  ndbuf::BufferPrintOptions print;
  print.max_rows = static_cast<int8_t>(options.byte());
  print.max_width = static_cast<int8_t>(options.byte());
  print.max_rows_slice = static_cast<int8_t>(options.byte());
  const std::vector<std::string> lines = ndbuf::format_buffer(t, print);
  REQUIRE(!lines.empty());
  if (ndbuf::is_harray_dtype(t.dtype())) {
    const ndbuf::HArray h = ndbuf::HArray::from_buffer(t);
    ndbuf::NestedFormatOptions nested;
    nested.elide_from = options.byte() % 64;
    (void)ndbuf::format_nested(h.tensor(), nested);
    ndbuf::copy_to_r_row_major(h.tensor(), r.data());
    REQUIRE(h.to_buffer().data() == t.data());  // a dense HArray goes back without a copy
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Input in(data, size);
  const ndbuf::DType dtype = fuzzed_dtype(in);
  const uint8_t flags = in.byte();
  const auto order = flags & 1 ? ndbuf::Order::kRowMajor : ndbuf::Order::kColumnMajor;
  const auto other = flags & 1 ? ndbuf::Order::kColumnMajor : ndbuf::Order::kRowMajor;
  ndbuf::Shape shape(flags / 2 % 6);
  for (int64_t& d : shape) d = fuzzed_dim(in);
  const uint8_t skip = in.byte();  // leaves some bytes for the print options
  Input options(data, size);
  for (int k = 0; k < skip % 4; ++k) options.byte();
  const uint8_t* bytes = in.rest();
  const auto nbytes = static_cast<int64_t>(in.rest_size());

  int64_t needed = -1;
  Expect expect = model_shape(shape, ndbuf::itemsize(dtype), &needed);
  int64_t bad_pred = -1;
  if (expect == Expect::kOk && needed != nbytes) expect = Expect::kInvalid;
  if (expect == Expect::kOk && dtype == ndbuf::DType::kPred) {
    for (int64_t i = 0; i < nbytes && bad_pred < 0; ++i) bad_pred = bytes[i] > 1 ? i : -1;
    if (bad_pred >= 0) expect = Expect::kConversion;
  }

  // pjrt_empty(): the same shape checks, without the byte count. Allocations stay small.
  Expect empty_expect = model_shape(shape, ndbuf::itemsize(dtype), &needed);
  if (empty_expect == Expect::kOk && needed <= (int64_t{1} << 20)) {
    const ndbuf::Tensor e = ndbuf::buffer_empty(dtype, shape, ndbuf::Device{});
    REQUIRE(e.nbytes() == needed && e.shape() == shape);
  } else if (empty_expect != Expect::kOk) {
    try {
      (void)ndbuf::buffer_empty(dtype, shape, ndbuf::Device{});
      violated("buffer_empty accepted a bad shape");
    } catch (const ndbuf::Error& e) {
      REQUIRE(e.kind() == ndbuf::ErrorKind::kInvalidArgument);
    }
  }

  ndbuf::Tensor t = [&]() -> ndbuf::Tensor {
    try {
      ndbuf::Tensor made = ndbuf::buffer_from_bytes(bytes, nbytes, dtype, shape, order, {});
      REQUIRE(expect == Expect::kOk);
      return made;
    } catch (const ndbuf::ConversionError& e) {
      REQUIRE(expect == Expect::kConversion && e.position() == bad_pred);
      REQUIRE(std::string(e.what()).find("position " + std::to_string(bad_pred + 1)) !=
              std::string::npos);
    } catch (const ndbuf::Error& e) {
      REQUIRE(expect == Expect::kInvalid && e.kind() == ndbuf::ErrorKind::kInvalidArgument);
    }
    return ndbuf::buffer_empty(ndbuf::DType::kU8, {0}, {});
  }();
  if (expect != Expect::kOk) return 0;

  REQUIRE(t.dtype() == dtype && t.shape() == shape && t.nbytes() == nbytes);
  REQUIRE(t.is_contiguous(ndbuf::Order::kColumnMajor));
  // The bytes read back as given, in the order they were given.
  std::vector<uint8_t> back(static_cast<size_t>(nbytes) + 1);
  ndbuf::copy_to_dense(t, back.data(), order);
  REQUIRE(nbytes == 0 || std::memcmp(back.data(), bytes, static_cast<size_t>(nbytes)) == 0);
  // Through the other order and back: the same buffer.
  ndbuf::copy_to_dense(t, back.data(), other);
  const ndbuf::Tensor again =
      ndbuf::buffer_from_bytes(back.data(), nbytes, dtype, shape, other, {});
  std::vector<uint8_t> twice(static_cast<size_t>(nbytes) + 1);
  ndbuf::copy_to_dense(again, twice.data(), order);
  REQUIRE(nbytes == 0 || std::memcmp(twice.data(), bytes, static_cast<size_t>(nbytes)) == 0);

  exercise(t, options);
  return 0;
}
