// Tests of reading and writing well-formed safetensors files.
#include "ndbuf/io/safetensors.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/io/mapped_file.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "ndbuf/memory/transfer.hpp"
#include "safetensors_bytes.hpp"

namespace ndbuf {
namespace {

// ---- helpers -------------------------------------------------------------------------------

using safetensors_bytes::as_storage;
using safetensors_bytes::file_bytes;
using safetensors_bytes::le64;

std::string read_all(const std::string& path) {  // small files only
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh folder under /tmp, removed with its files at the end of the test.
class TempDir {
 public:
  TempDir() {
    char name[] = "/tmp/ndbuf-st-XXXXXX";
    path_ = ::mkdtemp(name);
  }
  ~TempDir() {
    for (const auto& f : files()) ::unlink((path_ + "/" + f).c_str());
    ::rmdir(path_.c_str());
  }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  std::vector<std::string> files() const {
    std::vector<std::string> out;
    if (DIR* d = ::opendir(path_.c_str())) {
      while (const dirent* e = ::readdir(d)) {
        const std::string n = e->d_name;
        if (n != "." && n != "..") out.push_back(n);
      }
      ::closedir(d);
    }
    return out;
  }

 private:
  std::string path_;
};

// A column-major tensor whose bytes are random (any bit pattern: NaN payloads included).
Tensor random_tensor(DType dtype, const Shape& shape, std::mt19937_64& rng) {
  Tensor t = Tensor::allocate(dtype, shape, Order::kColumnMajor);
  auto* p = static_cast<unsigned char*>(t.data());
  for (int64_t k = 0; k < t.nbytes(); ++k) p[k] = static_cast<unsigned char>(rng());
  if (dtype == DType::kPred) {
    for (int64_t k = 0; k < t.nbytes(); ++k) p[k] &= 1;
  }
  return t;
}

std::string dense_bytes(const Tensor& t, Order order) {
  std::string out(static_cast<size_t>(t.nbytes()), '\0');
  copy_to_dense(t, out.data(), order);
  return out;
}

// Row-major bytes of a column-major tensor, computed element by element.
std::string naive_row_major(const Tensor& t) {
  const size_t item = itemsize(t.dtype());
  const Shape& shape = t.shape();
  std::string out;
  std::vector<int64_t> index(shape.size(), 0);
  const Strides cs = contiguous_strides(shape, Order::kColumnMajor);
  for (int64_t e = 0; e < t.numel(); ++e) {
    int64_t pos = 0;
    for (size_t k = 0; k < shape.size(); ++k) pos += index[k] * cs[k];
    out.append(static_cast<const char*>(t.data()) + pos * item, item);
    for (size_t k = shape.size(); k-- > 0;) {
      if (++index[k] < shape[k]) break;
      index[k] = 0;
    }
  }
  return out;
}

ErrorKind error_kind_of(const std::function<void()>& f, std::string* message) {
  try {
    f();
  } catch (const Error& e) {
    *message = e.what();
    return e.kind();
  }
  ADD_FAILURE() << "no ndbuf::Error was thrown";
  return ErrorKind::kInvalidArgument;
}

std::string fixtures_dir() {
  const char* env = std::getenv("PJRT_FIXTURES_DIR");
  if (env != nullptr && env[0] != '\0') return env;
  // The tests' data folder is <root>/src/core/tests/data; the fixtures sit beside the
  // repository, at <root>/../shared/fixtures.
  const std::string data = NDBUF_TEST_DATA_DIR;
  return data.substr(0, data.rfind("/src/core/tests/data")) + "/../shared/fixtures";
}

// ---- the fixture written by the reference implementation -----------------------------------

TEST(Safetensors, LoadsTheReferenceFixture) {
  const std::string path = fixtures_dir() + "/hello.safetensors";
  struct stat info;
  if (::stat(path.c_str(), &info) != 0) {
    GTEST_SKIP() << "fixture " << path << " is absent (set PJRT_FIXTURES_DIR)";
  }
  const auto file = map_file(path);
  const SafetensorsHeader header = parse_safetensors(file->data(), file->nbytes());
  EXPECT_EQ(header.data_start, 8u + 128u);
  const auto contents = load_safetensors(path);
  ASSERT_EQ(contents.tensors.size(), 2u);
  EXPECT_FALSE(contents.metadata.has_value());
  const struct {
    const char* name;
    Shape shape;
    float value;
  } expected[] = {{"hello", {10, 10}, 1.0f}, {"world", {5, 10}, 0.0f}};
  for (size_t k = 0; k < 2; ++k) {
    const Tensor& t = contents.tensors[k].tensor;
    EXPECT_EQ(contents.tensors[k].name, expected[k].name);
    EXPECT_EQ(t.dtype(), DType::kF32);
    EXPECT_EQ(t.shape(), expected[k].shape);
    EXPECT_TRUE(t.is_contiguous(Order::kRowMajor));  // the file's own pages, no copy
    const auto* v = static_cast<const float*>(t.data());
    for (int64_t i = 0; i < t.numel(); ++i) ASSERT_EQ(v[i], expected[k].value) << i;
  }
}

// ---- round trips ---------------------------------------------------------------------------

class SafetensorsRoundTrip : public ::testing::TestWithParam<DType> {};

TEST_P(SafetensorsRoundTrip, IsBitExactForEveryShape) {
  const DType dtype = GetParam();
  std::mt19937_64 rng(7 + static_cast<int>(dtype));
  const std::vector<Shape> shapes = {{},     {0},       {1},       {5},       {3, 4},  {1, 7},
                                     {7, 1}, {2, 3, 4}, {4, 1, 3}, {2, 0, 3}, {33, 65}};
  TempDir dir;
  std::vector<NamedTensor> tensors;
  for (size_t k = 0; k < shapes.size(); ++k) {
    tensors.push_back({"t" + std::to_string(k), random_tensor(dtype, shapes[k], rng)});
  }
  SafetensorsSaveOptions options;
  options.allow_c128 = true;
  const std::string path = dir.file("all.safetensors");
  save_safetensors(path, tensors, std::nullopt, options);

  // The file holds each tensor row-major at the offsets of its header.
  const std::string bytes = read_all(path);
  const SafetensorsHeader header = parse_safetensors(bytes.data(), bytes.size());
  ASSERT_EQ(header.tensors.size(), tensors.size());
  for (size_t k = 0; k < tensors.size(); ++k) {
    const auto& entry = header.tensors[k];
    EXPECT_EQ(entry.name, tensors[k].name);
    EXPECT_EQ(entry.dtype, dtype);
    EXPECT_EQ(entry.shape, tensors[k].tensor.shape());
    EXPECT_EQ(bytes.substr(header.data_start + entry.begin, entry.end - entry.begin),
              naive_row_major(tensors[k].tensor))
        << entry.name;
  }

  const auto loaded = load_safetensors(path);
  ASSERT_EQ(loaded.tensors.size(), tensors.size());
  for (size_t k = 0; k < tensors.size(); ++k) {
    const Tensor& t = loaded.tensors[k].tensor;
    EXPECT_EQ(loaded.tensors[k].name, tensors[k].name);
    EXPECT_EQ(t.dtype(), dtype);
    EXPECT_EQ(t.shape(), tensors[k].tensor.shape());
    EXPECT_TRUE(t.is_contiguous(Order::kColumnMajor) || t.is_contiguous(Order::kRowMajor));
    EXPECT_EQ(dense_bytes(t, Order::kColumnMajor),
              dense_bytes(tensors[k].tensor, Order::kColumnMajor))
        << tensors[k].name;
  }
}

INSTANTIATE_TEST_SUITE_P(EveryDType, SafetensorsRoundTrip,
                         ::testing::Values(DType::kPred, DType::kI8, DType::kI16, DType::kI32,
                                           DType::kI64, DType::kU8, DType::kU16, DType::kU32,
                                           DType::kU64, DType::kF16, DType::kBF16, DType::kF32,
                                           DType::kF64, DType::kC64, DType::kC128),
                         [](const auto& info) { return std::string(dtype_name(info.param)); });

TEST(Safetensors, WritesThePaddedHeaderMetadataFirstAndDataByElementSize) {
  std::mt19937_64 rng(1);
  const std::vector<NamedTensor> tensors = {{"b", random_tensor(DType::kU8, {3}, rng)},
                                            {"a", random_tensor(DType::kF64, {2}, rng)},
                                            {"c", random_tensor(DType::kI16, {1}, rng)},
                                            {"d", random_tensor(DType::kF32, {2}, rng)}};
  const SafetensorsMetadata meta = {{"format", "pt"}, {"z", "ü"}};
  TempDir dir;
  save_safetensors(dir.file("x"), tensors, meta);
  const std::string bytes = read_all(dir.file("x"));
  uint64_t n = 0;
  std::memcpy(&n, bytes.data(), 8);
  EXPECT_EQ(n % 8, 0u);
  const std::string header = bytes.substr(8, n);
  EXPECT_EQ(header,
            "{\"__metadata__\":{\"format\":\"pt\",\"z\":\"ü\"},"
            "\"b\":{\"dtype\":\"U8\",\"shape\":[3],\"data_offsets\":[26,29]},"
            "\"a\":{\"dtype\":\"F64\",\"shape\":[2],\"data_offsets\":[0,16]},"
            "\"c\":{\"dtype\":\"I16\",\"shape\":[1],\"data_offsets\":[24,26]},"
            "\"d\":{\"dtype\":\"F32\",\"shape\":[2],\"data_offsets\":[16,24]}}" +
                std::string(header.size() - header.find_last_of('}') - 1, ' '));
  const auto loaded = load_safetensors(dir.file("x"));
  ASSERT_TRUE(loaded.metadata.has_value());
  EXPECT_EQ(*loaded.metadata, meta);
  ASSERT_EQ(loaded.tensors.size(), 4u);
  EXPECT_EQ(loaded.tensors[0].name, "b");  // header order, not data order
  EXPECT_EQ(loaded.tensors[3].name, "d");
}

TEST(Safetensors, WritesAnEmptyFileAndReadsItBack) {
  TempDir dir;
  save_safetensors(dir.file("e"), {}, std::nullopt);
  EXPECT_EQ(read_all(dir.file("e")), file_bytes("{}      "));
  EXPECT_TRUE(load_safetensors(dir.file("e")).tensors.empty());
  save_safetensors(dir.file("m"), {}, SafetensorsMetadata{});
  const auto loaded = load_safetensors(dir.file("m"));
  ASSERT_TRUE(loaded.metadata.has_value());
  EXPECT_TRUE(loaded.metadata->empty());
}

TEST(Safetensors, WritesStridedViewsInRowMajorOrder) {
  std::mt19937_64 rng(3);
  const Tensor base = random_tensor(DType::kI32, {4, 6}, rng);
  // The transpose as a view: shape (6, 4), row-major strides; and a reversed, offset view.
  const Tensor transposed = base.reversed_axes();
  const Tensor reversed(base.storage(), DType::kI32, {4, 6}, {-1, -4}, 23);
  TempDir dir;
  save_safetensors(dir.file("v"), {{"t", transposed}, {"r", reversed}}, std::nullopt);
  const auto loaded = load_safetensors(dir.file("v"));
  EXPECT_EQ(dense_bytes(loaded.tensors[0].tensor, Order::kColumnMajor),
            dense_bytes(transposed, Order::kColumnMajor));
  EXPECT_EQ(dense_bytes(loaded.tensors[1].tensor, Order::kColumnMajor),
            dense_bytes(reversed, Order::kColumnMajor));
}

// ---- zero copy -----------------------------------------------------------------------------

TEST(Safetensors, ReferencesTheFilesBytesWhenAligned) {
  // F32 [3] at 0, F32 [2, 2] at 12, U8 [1, 5] at 28, U8 [] at 33.
  std::string header =
      "{\"v\":{\"dtype\":\"F32\",\"shape\":[3],\"data_offsets\":[0,12]},"
      "\"m\":{\"dtype\":\"F32\",\"shape\":[2,2],\"data_offsets\":[12,28]},"
      "\"r\":{\"dtype\":\"U8\",\"shape\":[1,5],\"data_offsets\":[28,33]},"
      "\"s\":{\"dtype\":\"U8\",\"shape\":[],\"data_offsets\":[33,34]}}";
  header.resize((header.size() + 7) / 8 * 8, ' ');
  std::string data(34, '\0');
  const float v[3] = {1, 2, 3};
  const float m[4] = {1, 2, 3, 4};  // row-major [[1, 2], [3, 4]]
  std::memcpy(&data[0], v, 12);
  std::memcpy(&data[12], m, 16);
  for (int k = 0; k < 5; ++k) data[28 + k] = static_cast<char>(10 + k);
  data[33] = 99;
  const auto file = as_storage(file_bytes(header, data));
  const char* base = static_cast<const char*>(file->data()) + 8 + header.size();
  const auto contents = load_safetensors(file);
  const Tensor& tv = contents.tensors[0].tensor;
  const Tensor& tm = contents.tensors[1].tensor;
  const Tensor& tr = contents.tensors[2].tensor;
  const Tensor& ts = contents.tensors[3].tensor;
  EXPECT_EQ(tv.data(), base);
  EXPECT_EQ(tr.data(), base + 28);
  EXPECT_EQ(ts.data(), base + 33);
  EXPECT_EQ(tm.data(), base + 12);  // a matrix too: a row-major view of the file's pages
  EXPECT_TRUE(tm.is_contiguous(Order::kRowMajor));
  std::vector<float> column_major(4);
  copy_to_dense(tm, column_major.data(), Order::kColumnMajor);
  EXPECT_EQ(column_major, (std::vector<float>{1, 3, 2, 4}));
  EXPECT_EQ(static_cast<const unsigned char*>(ts.data())[0], 99);
}

TEST(Safetensors, CopiesTensorsMisalignedForTheirElementType) {
  std::string header =
      "{\"a\":{\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]},"
      "\"b\":{\"dtype\":\"F64\",\"shape\":[2],\"data_offsets\":[1,17]}}";
  header.resize(120, ' ');
  std::string data(17, '\0');
  const double b[2] = {0.5, -2};
  std::memcpy(&data[1], b, 16);
  const auto file = as_storage(file_bytes(header, data));
  const auto contents = load_safetensors(file);
  const Tensor& tb = contents.tensors[1].tensor;
  EXPECT_EQ(reinterpret_cast<uintptr_t>(tb.data()) % alignof(double), 0u);
  EXPECT_EQ(static_cast<const double*>(tb.data())[0], 0.5);
  EXPECT_EQ(static_cast<const double*>(tb.data())[1], -2);
}

TEST(Safetensors, MappedTensorsOutliveTheirFileBeingReplaced) {
  TempDir dir;
  const std::string path = dir.file("w.safetensors");
  Tensor old_t = Tensor::allocate(DType::kF64, {1000}, Order::kColumnMajor);
  for (int k = 0; k < 1000; ++k) static_cast<double*>(old_t.data())[k] = k;
  save_safetensors(path, {{"x", old_t}}, std::nullopt);
  const auto first = load_safetensors(path);
  ASSERT_TRUE(first.tensors[0].tensor.storage()->read_only());  // the mapped pages

  Tensor new_t = Tensor::allocate(DType::kF64, {1000}, Order::kColumnMajor);
  for (int k = 0; k < 1000; ++k) static_cast<double*>(new_t.data())[k] = -k;
  save_safetensors(path, {{"x", new_t}}, std::nullopt);
  const auto second = load_safetensors(path);
  for (int k = 0; k < 1000; ++k) {
    ASSERT_EQ(static_cast<const double*>(first.tensors[0].tensor.data())[k], k);
    ASSERT_EQ(static_cast<const double*>(second.tensors[0].tensor.data())[k], -k);
  }
  // Overwrite it with the tensor mapped from it.
  save_safetensors(path, {{"y", first.tensors[0].tensor}}, std::nullopt);
  const auto third = load_safetensors(path);
  EXPECT_EQ(third.tensors[0].name, "y");
  EXPECT_EQ(dense_bytes(third.tensors[0].tensor, Order::kColumnMajor),
            dense_bytes(old_t, Order::kColumnMajor));
  EXPECT_EQ(dir.files().size(), 1u);
}

TEST(Safetensors, LoadsOntoAnyCpuDevice) {
  std::string header =
      "{\"v\":{\"dtype\":\"I32\",\"shape\":[2],\"data_offsets\":[0,8]},"
      "\"m\":{\"dtype\":\"I32\",\"shape\":[2,2],\"data_offsets\":[8,24]}}";
  header.resize((header.size() + 7) / 8 * 8, ' ');
  SafetensorsLoadOptions options;
  options.device = Device{Platform::kCpu, 1};
  const auto contents =
      load_safetensors(as_storage(file_bytes(header, std::string(24, 'x'))), options);
  for (const auto& named : contents.tensors) EXPECT_EQ(named.tensor.device(), options.device);
}

// ---- subsets, metadata, progress -----------------------------------------------------------

TEST(Safetensors, LoadsASubsetByNameInTheRequestedOrder) {
  std::mt19937_64 rng(5);
  TempDir dir;
  const std::vector<NamedTensor> tensors = {{"a", random_tensor(DType::kF32, {2, 3}, rng)},
                                            {"b", random_tensor(DType::kI8, {4}, rng)},
                                            {"c", random_tensor(DType::kU16, {3, 1}, rng)}};
  save_safetensors(dir.file("s"), tensors, std::nullopt);
  SafetensorsLoadOptions options;
  options.names = std::vector<std::string>{"c", "a"};
  const auto loaded = load_safetensors(dir.file("s"), options);
  ASSERT_EQ(loaded.tensors.size(), 2u);
  EXPECT_EQ(loaded.tensors[0].name, "c");
  EXPECT_EQ(loaded.tensors[1].name, "a");
  EXPECT_EQ(dense_bytes(loaded.tensors[1].tensor, Order::kColumnMajor),
            dense_bytes(tensors[0].tensor, Order::kColumnMajor));

  std::string message;
  options.names = std::vector<std::string>{"a", "zz"};
  EXPECT_EQ(error_kind_of([&] { load_safetensors(dir.file("s"), options); }, &message),
            ErrorKind::kInvalidArgument);
  EXPECT_EQ(message, "The file has no tensor named \"zz\"; it holds \"a\", \"b\", \"c\".");
  options.names = std::vector<std::string>{"b", "b"};
  EXPECT_EQ(error_kind_of([&] { load_safetensors(dir.file("s"), options); }, &message),
            ErrorKind::kInvalidArgument);
  EXPECT_EQ(message, "The tensor name \"b\" is requested twice.");
  options.names = std::vector<std::string>{};
  EXPECT_TRUE(load_safetensors(dir.file("s"), options).tensors.empty());
}

TEST(Safetensors, ReportsProgressUpToTheTotal) {
  TempDir dir;
  std::mt19937_64 rng(9);
  const std::vector<NamedTensor> tensors = {{"a", random_tensor(DType::kF32, {1500, 1500}, rng)},
                                            {"b", random_tensor(DType::kU8, {10}, rng)}};
  std::vector<std::pair<uint64_t, uint64_t>> calls;
  SafetensorsSaveOptions save;
  save.progress = [&](uint64_t done, uint64_t total) { calls.emplace_back(done, total); };
  save_safetensors(dir.file("p"), tensors, std::nullopt, save);
  ASSERT_FALSE(calls.empty());
  const uint64_t file_size = read_all(dir.file("p")).size();
  EXPECT_EQ(calls.back(), std::make_pair(file_size, file_size));
  for (size_t k = 1; k < calls.size(); ++k) EXPECT_GE(calls[k].first, calls[k - 1].first);

  calls.clear();
  SafetensorsLoadOptions load;
  load.progress = save.progress;
  load_safetensors(dir.file("p"), load);
  ASSERT_FALSE(calls.empty());
  EXPECT_EQ(calls.back(), std::make_pair(uint64_t{9000010}, uint64_t{9000010}));
  for (size_t k = 1; k < calls.size(); ++k) EXPECT_GE(calls[k].first, calls[k - 1].first);
}

// ---- writing safely ------------------------------------------------------------------------

TEST(Safetensors, AnInterruptedWriteLeavesThePreviousFileAndNoTemporaryFile) {
  TempDir dir;
  std::mt19937_64 rng(11);
  const std::string path = dir.file("keep.safetensors");
  save_safetensors(path, {{"a", random_tensor(DType::kU8, {10}, rng)}}, std::nullopt);
  const std::string before = read_all(path);
  SafetensorsSaveOptions options;
  options.progress = [](uint64_t done, uint64_t total) {
    if (done < total) throw std::runtime_error("interrupted");
  };
  EXPECT_THROW(save_safetensors(path, {{"b", random_tensor(DType::kF32, {4096, 2048}, rng)}},
                                std::nullopt, options),
               std::runtime_error);
  EXPECT_EQ(read_all(path), before);
  EXPECT_EQ(dir.files(), std::vector<std::string>{"keep.safetensors"});
}

// Transposed slabs of 256 KiB and more are written by a second thread while the next one is
// transposed; with one thread everything is written in turn. Both give the same file.
TEST(Safetensors, TransposedTensorsWrittenBehindKeepTheirOrderAndBytes) {
  TempDir dir;
  std::mt19937_64 rng(17);
  const std::vector<NamedTensor> tensors = {
      {"a", random_tensor(DType::kF32, {300, 400}, rng)},    // 469 KiB, written behind
      {"b", random_tensor(DType::kU8, {7, 3}, rng)},         // small, written in turn
      {"c", random_tensor(DType::kF64, {513, 129}, rng)},    // 517 KiB
      {"d", random_tensor(DType::kI16, {1024, 1025}, rng)},  // 2 MiB
      {"e", random_tensor(DType::kF32, {1000}, rng)}};       // direct
  std::string files[2];
  const int settings[2] = {2, 1};
  for (int k = 0; k < 2; ++k) {
    set_thread_setting(settings[k]);
    save_safetensors(dir.file("t" + std::to_string(k)), tensors, std::nullopt);
  }
  set_thread_setting(0);
  for (int k = 0; k < 2; ++k) files[k] = read_all(dir.file("t" + std::to_string(k)));
  EXPECT_EQ(files[0], files[1]);
  const auto loaded = load_safetensors(dir.file("t0"));
  ASSERT_EQ(loaded.tensors.size(), tensors.size());
  for (size_t k = 0; k < tensors.size(); ++k) {
    EXPECT_EQ(dense_bytes(loaded.tensors[k].tensor, Order::kRowMajor),
              naive_row_major(tensors[k].tensor))
        << tensors[k].name;
  }
}

TEST(Safetensors, AFailedWriteBehindIsReportedAndLeavesNoFile) {
  std::mt19937_64 rng(19);
  const std::vector<NamedTensor> tensors = {{"a", random_tensor(DType::kF32, {512, 512}, rng)},
                                            {"b", random_tensor(DType::kF32, {512, 512}, rng)}};
  set_thread_setting(2);
  std::string message;
  // /dev/full is written through (a character device) and fails every write with ENOSPC.
  EXPECT_EQ(error_kind_of([&] { save_safetensors("/dev/full", tensors, std::nullopt); }, &message),
            ErrorKind::kIo);
  set_thread_setting(0);
  EXPECT_NE(message.find("/dev/full"), std::string::npos) << message;
  EXPECT_NE(message.find("No space left on device"), std::string::npos) << message;
}

TEST(Safetensors, WriteErrorsNameThePathAndTheRule) {
  std::mt19937_64 rng(13);
  const Tensor t = random_tensor(DType::kF32, {2}, rng);
  std::string message;
  EXPECT_EQ(error_kind_of(
                [&] {
                  save_safetensors("/nonexistent-dir/x", {{"a", t}}, {});
                },
                &message),
            ErrorKind::kIo);
  EXPECT_NE(message.find("/nonexistent-dir/x"), std::string::npos) << message;
  EXPECT_NE(message.find("No such file or directory"), std::string::npos) << message;

  TempDir dir;
  const auto expect_invalid = [&](const std::vector<NamedTensor>& tensors,
                                  const std::optional<SafetensorsMetadata>& meta,
                                  const std::string& expected) {
    EXPECT_EQ(error_kind_of([&] { save_safetensors(dir.file("bad"), tensors, meta); }, &message),
              ErrorKind::kInvalidArgument);
    EXPECT_EQ(message, expected);
  };
  expect_invalid({{"a", t}, {"a", t}}, {}, "The tensor name \"a\" is used twice.");
  expect_invalid({{"__metadata__", t}}, {},
                 "\"__metadata__\" cannot name a tensor: safetensors reserves it for the "
                 "metadata.");
  expect_invalid({{"\xff", t}}, {}, "A tensor name is not valid UTF-8.");
  expect_invalid({{"a", t}}, SafetensorsMetadata{{"k", "\xc0\x80"}},
                 "The metadata value of \"k\" is not valid UTF-8.");
  expect_invalid({{"a", t}}, SafetensorsMetadata{{"k", "1"}, {"k", "2"}},
                 "The metadata key \"k\" is used twice.");
  expect_invalid({{"z", random_tensor(DType::kC128, {1}, rng)}}, {},
                 "Tensor \"z\" has dtype c128, which safetensors readers other than pjrt "
                 "reject; allow writing it as C128 explicitly or convert it to c64.");
  static char fake[8];
  const auto gpu = std::make_shared<Storage>(fake, 8, Device{Platform::kCuda, 0}, nullptr, false);
  expect_invalid({{"g", Tensor::dense(gpu, DType::kF32, {2}, Order::kColumnMajor)}}, {},
                 "Tensor \"g\" is on CudaDevice(id=0); copy it to the host before writing it.");
  EXPECT_TRUE(dir.files().empty());
}

TEST(Safetensors, ReplacesTheTargetOfASymbolicLinkAndKeepsPermissions) {
  TempDir dir;
  std::mt19937_64 rng(17);
  const std::string target = dir.file("real.safetensors");
  save_safetensors(target, {{"a", random_tensor(DType::kU8, {1}, rng)}}, std::nullopt);
  ASSERT_EQ(::chmod(target.c_str(), 0640), 0);
  ASSERT_EQ(::symlink(target.c_str(), dir.file("link").c_str()), 0);
  save_safetensors(dir.file("link"), {{"b", random_tensor(DType::kU8, {2}, rng)}}, std::nullopt);
  struct stat info;
  ASSERT_EQ(::lstat(dir.file("link").c_str(), &info), 0);
  EXPECT_TRUE(S_ISLNK(info.st_mode));
  ASSERT_EQ(::stat(target.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0640u);
  EXPECT_EQ(load_safetensors(target).tensors[0].name, "b");
}

// ---- large files ---------------------------------------------------------------------------

// A sparse file with a 2^31 + 16 byte tensor and a small one after it, at offsets beyond
// 2^31: cheap to make, and the big tensor is mapped, never read.
TEST(Safetensors, ReadsOffsetsBeyondTwoGiB) {
  TempDir dir;
  const uint64_t big = (uint64_t{1} << 31) + 16;
  std::string header = "{\"big\":{\"dtype\":\"U8\",\"shape\":[" + std::to_string(big) +
                       "],\"data_offsets\":[0," + std::to_string(big) +
                       "]},\"tail\":{\"dtype\":\"F64\",\"shape\":[2],\"data_offsets\":[" +
                       std::to_string(big) + "," + std::to_string(big + 16) + "]}}";
  header.resize((header.size() + 7) / 8 * 8, ' ');
  const std::string path = dir.file("big.safetensors");
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  ASSERT_GE(fd, 0);
  const std::string head = file_bytes(header);
  const double tail[2] = {3.25, -1e300};
  ASSERT_EQ(::pwrite(fd, head.data(), head.size(), 0), static_cast<ssize_t>(head.size()));
  ASSERT_EQ(::pwrite(fd, tail, 16, static_cast<off_t>(head.size() + big)), 16);
  ::close(fd);
  SafetensorsLoadOptions options;
  options.names = std::vector<std::string>{"tail", "big"};
  const auto loaded = load_safetensors(path, options);
  const Tensor& t = loaded.tensors[0].tensor;
  options.max_dim = std::numeric_limits<int32_t>::max();
  std::string message;
  EXPECT_EQ(error_kind_of([&] { load_safetensors(path, options); }, &message),
            ErrorKind::kInvalidArgument);
  EXPECT_EQ(message,
            "Tensor \"big\" has shape (2147483664), but dimensions here must not "
            "exceed 2147483647.");
  options.names = std::vector<std::string>{"tail"};
  EXPECT_EQ(load_safetensors(path, options).tensors.size(), 1u);
  EXPECT_EQ(static_cast<const double*>(t.data())[0], 3.25);
  EXPECT_EQ(static_cast<const double*>(t.data())[1], -1e300);
  EXPECT_EQ(loaded.tensors[1].tensor.numel(), static_cast<int64_t>(big));
}

// Writes and reads back more than 2 GiB (about 5 s and 2.2 GB of disk): only when
// NDBUF_BIG_TESTS is set.
TEST(Safetensors, RoundTripsMoreThanTwoGiB) {
  if (std::getenv("NDBUF_BIG_TESTS") == nullptr) GTEST_SKIP() << "set NDBUF_BIG_TESTS=1";
  TempDir dir;
  const int64_t n = (int64_t{1} << 28) + 3;  // f64: 2 GiB + 24 bytes
  Tensor big = Tensor::allocate(DType::kF64, {n}, Order::kColumnMajor);
  auto* p = static_cast<double*>(big.data());
  for (int64_t k = 0; k < n; ++k) p[k] = static_cast<double>(k) * 0.5;
  Tensor small = Tensor::allocate(DType::kI16, {3, 2}, Order::kColumnMajor);
  for (int k = 0; k < 6; ++k) static_cast<int16_t*>(small.data())[k] = static_cast<int16_t>(k);
  save_safetensors(dir.file("big"), {{"small", small}, {"big", big}}, std::nullopt);
  const auto loaded = load_safetensors(dir.file("big"));
  const auto* q = static_cast<const double*>(loaded.tensors[1].tensor.data());
  for (int64_t k = 0; k < n; ++k) ASSERT_EQ(q[k], static_cast<double>(k) * 0.5) << k;
  EXPECT_EQ(dense_bytes(loaded.tensors[0].tensor, Order::kColumnMajor),
            dense_bytes(small, Order::kColumnMajor));
  // The small tensor lies after the big one (data ordered by element size).
  std::string head(256, '\0');
  std::ifstream(dir.file("big"), std::ios::binary).read(head.data(), 256);
  EXPECT_NE(head.find("\"data_offsets\":[2147483672,2147483684]"), std::string::npos) << head;
}

}  // namespace
}  // namespace ndbuf
