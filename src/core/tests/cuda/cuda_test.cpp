// The CUDA platform through the public core API. Built twice: ndbuf_cuda_tests uses the real
// driver (libcuda.so.1) and skips every test, saying why, where there is no driver or GPU
// (PJRT_TEST_REQUIRE_CUDA=1 turns those skips, and a lack of memory for the 4 GiB test, into
// failures, for tools/gpu-check.sh);
// ndbuf_cuda_fake_tests uses the fake driver of fake_cuda_driver.cpp, so the same code path
// (and out-of-memory, driver failures, context and leak bookkeeping) runs on any machine.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/convert/buffer.hpp"
#include "ndbuf/memory/device_api.hpp"
#include "ndbuf/memory/tensor.hpp"
#include "ndbuf/memory/transfer.hpp"

namespace ndbuf {
namespace {

constexpr Device kGpu0{Platform::kCuda, 0};
constexpr Device kGpu1{Platform::kCuda, 1};
constexpr Device kCpu0{Platform::kCpu, 0};

#ifdef NDBUF_FAKE_CUDA_DRIVER
constexpr bool kFake = true;

// A test hook of the fake driver, looked up in the copy ndbuf has loaded.
template <class Fn>
Fn fake_hook(const char* name) {
  void* library = dlopen(NDBUF_FAKE_CUDA_DRIVER, RTLD_NOW | RTLD_NOLOAD);
  void* symbol = library != nullptr ? dlsym(library, name) : nullptr;
  if (symbol == nullptr) std::abort();
  Fn fn;
  std::memcpy(&fn, &symbol, sizeof fn);
  return fn;
}
int fake_live_blocks() { return fake_hook<int (*)()>("ndbuf_fake_cuda_live_blocks")(); }
int fake_context_depth() { return fake_hook<int (*)()>("ndbuf_fake_cuda_context_depth")(); }
int fake_retains(int d) { return fake_hook<int (*)(int)>("ndbuf_fake_cuda_primary_retains")(d); }
size_t fake_used(int d) { return fake_hook<size_t (*)(int)>("ndbuf_fake_cuda_used_bytes")(d); }
void fake_fail_next_copy(int code) {
  fake_hook<void (*)(int)>("ndbuf_fake_cuda_fail_next_copy")(code);
}
#else
constexpr bool kFake = false;
#endif

class CudaTest : public ::testing::Test {
 protected:
  void SetUp() override {
    try {
      gpus_ = device_api(Platform::kCuda).count();
    } catch (const Error& e) {
      if (std::getenv("PJRT_TEST_REQUIRE_CUDA") != nullptr) FAIL() << e.what();
      GTEST_SKIP() << "CUDA is not available, so this test is skipped: " << e.what();
    }
  }
  void TearDown() override {
#ifdef NDBUF_FAKE_CUDA_DRIVER
    EXPECT_EQ(fake_context_depth(), 0) << "a context was pushed and not popped";
#endif
    set_memory_reclaimer(nullptr);
  }
  int gpus_ = 0;
};

template <class F>
std::string error_of(F f, ErrorKind kind) {
  try {
    f();
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    return e.what();
  }
  ADD_FAILURE() << "expected an error";
  return "";
}

// Bytes of `numel` elements of `dtype` with every bit pattern likely (pred: 0 or 1).
std::vector<uint8_t> random_bytes(DType dtype, int64_t numel, unsigned seed) {
  std::mt19937 rng(seed);
  std::vector<uint8_t> bytes(static_cast<size_t>(numel) * itemsize(dtype));
  for (auto& b : bytes) b = static_cast<uint8_t>(dtype == DType::kPred ? rng() & 1 : rng());
  return bytes;
}

std::vector<uint8_t> dense_bytes(const Tensor& t, Order order) {
  std::vector<uint8_t> out(static_cast<size_t>(t.nbytes()));
  copy_to_dense(t, out.data(), order);
  return out;
}

// An i32 tensor 0, 1, 2, ... of `shape` on `device`, column-major.
Tensor iota(const Shape& shape, Device device) {
  Tensor host = Tensor::allocate(DType::kI32, shape, Order::kColumnMajor);
  auto* values = static_cast<int32_t*>(host.data());
  for (int64_t i = 0; i < host.numel(); ++i) values[i] = static_cast<int32_t>(i);
  return copy_to(host, device, Order::kColumnMajor);
}

TEST_F(CudaTest, ListsAndResolvesDevices) {
  EXPECT_GE(gpus_, 1);
  if (kFake) {
    EXPECT_EQ(gpus_, 2);
  }
  EXPECT_EQ(device_count(Platform::kCuda), gpus_);
  EXPECT_EQ(resolve_device("cuda"), kGpu0);
  EXPECT_EQ(resolve_device("cuda:0"), kGpu0);
  const auto devices = list_devices(Platform::kCuda);
  ASSERT_EQ(devices.size(), static_cast<size_t>(gpus_));
  EXPECT_EQ(devices.back(), (Device{Platform::kCuda, gpus_ - 1}));
  const std::string n = std::to_string(gpus_);
  EXPECT_EQ(error_of([&] { resolve_device("cuda:" + n); }, ErrorKind::kDevice),
            "Device index " + n + " out of range for platform cuda (" + n +
                (gpus_ == 1 ? " device)" : " devices)"));
  EXPECT_EQ(error_of(
                [&] {
                  allocate_storage(8, Device{Platform::kCuda, gpus_});
                },
                ErrorKind::kDevice),
            "Device index " + n + " out of range for platform cuda (" + n +
                (gpus_ == 1 ? " device)" : " devices)"));
}

TEST_F(CudaTest, EveryDTypeRoundTripsThroughGpuMemory) {
  const Shape shape{3, 5, 7};
  for (const auto& info : kDTypeTable) {
    SCOPED_TRACE(std::string(info.name));
    const auto bytes = random_bytes(info.dtype, 105, static_cast<unsigned>(info.dtype) + 1);
    const auto nbytes = static_cast<int64_t>(bytes.size());
    const Tensor host =
        buffer_from_bytes(bytes.data(), nbytes, info.dtype, shape, Order::kColumnMajor, kCpu0);

    const Tensor gpu = copy_to(host, kGpu0, Order::kColumnMajor);
    EXPECT_EQ(gpu.device(), kGpu0);
    EXPECT_EQ(gpu.dtype(), info.dtype);
    EXPECT_EQ(gpu.shape(), shape);
    EXPECT_EQ(dense_bytes(gpu, Order::kColumnMajor), bytes);
    EXPECT_EQ(dense_bytes(gpu, Order::kRowMajor), dense_bytes(host, Order::kRowMajor));
    EXPECT_EQ(dense_bytes(to_host(gpu), Order::kColumnMajor), bytes);
    EXPECT_EQ(dense_bytes(make_dense(gpu, Order::kColumnMajor), Order::kColumnMajor), bytes);

    // Raw bytes straight to the GPU, in both orders.
    const Tensor direct =
        buffer_from_bytes(bytes.data(), nbytes, info.dtype, shape, Order::kColumnMajor, kGpu0);
    EXPECT_EQ(direct.device(), kGpu0);
    EXPECT_EQ(dense_bytes(direct, Order::kColumnMajor), bytes);
    const auto row_major = dense_bytes(host, Order::kRowMajor);
    const Tensor from_rows =
        buffer_from_bytes(row_major.data(), nbytes, info.dtype, shape, Order::kRowMajor, kGpu0);
    EXPECT_EQ(dense_bytes(from_rows, Order::kColumnMajor), bytes);

    // Back to a CPU buffer.
    const Tensor back = buffer_copy_to(gpu, kCpu0);
    EXPECT_EQ(back.device(), kCpu0);
    EXPECT_EQ(std::memcmp(back.data(), bytes.data(), bytes.size()), 0);
  }
}

TEST_F(CudaTest, RVectorsConvertOnTheHostThenUploadOnce) {
  const std::vector<double> values{1.5, -2.25, 1e40, 0.0};
  const RVectorView doubles{RVectorType::kDouble, values.data(), 4};
  int aliased = 0;
  std::vector<double> source = values;
  const AliasStorage alias = [&]() {
    ++aliased;
    return std::make_shared<Storage>(source.data(), source.size() * sizeof(double), kCpu0, nullptr,
                                     true);
  };

  // Converting: f32 on the GPU.
  const BufferFromR f32 =
      buffer_from_r(doubles, DType::kF32, {2, 2}, MissingCheck::kWarn, kGpu0, alias);
  EXPECT_EQ(f32.tensor.device(), kGpu0);
  const Tensor f32_host = to_host(f32.tensor);
  const auto* floats = static_cast<const float*>(f32_host.data());
  EXPECT_EQ(floats[0], 1.5f);
  EXPECT_EQ(floats[1], -2.25f);
  EXPECT_TRUE(std::isinf(floats[2]));
  EXPECT_EQ(aliased, 0);

  // Zero-copy on the host, then one upload: the GPU copy does not follow the R vector.
  const RVectorView same{RVectorType::kDouble, source.data(), 4};
  const BufferFromR f64 = buffer_from_r(same, DType::kF64, {4}, MissingCheck::kWarn, kGpu0, alias);
  EXPECT_EQ(aliased, 1);
  EXPECT_EQ(f64.tensor.device(), kGpu0);
  source[0] = 99.0;
  std::vector<double> uploaded(4);
  copy_to_dense(f64.tensor, uploaded.data(), Order::kColumnMajor);
  EXPECT_EQ(uploaded, values);

  // NA at i32 arrives as INT_MIN and is counted, as on the CPU.
  const std::vector<int32_t> ints{7, kRIntegerNA, 9};
  const RVectorView integers{RVectorType::kInteger, ints.data(), 3};
  const AliasStorage int_alias = [&]() {
    return std::make_shared<Storage>(const_cast<int32_t*>(ints.data()), 12, kCpu0, nullptr, true);
  };
  const BufferFromR i32 =
      buffer_from_r(integers, DType::kI32, {3}, MissingCheck::kWarn, kGpu0, int_alias);
  EXPECT_EQ(i32.missing_stored, 1);
  std::vector<int32_t> back(3);
  copy_to_dense(i32.tensor, back.data(), Order::kColumnMajor);
  EXPECT_EQ(back, ints);

  // A value that does not fit fails before anything reaches the GPU.
#ifdef NDBUF_FAKE_CUDA_DRIVER
  const size_t used = fake_used(0);
#endif
  EXPECT_THROW(buffer_from_r(doubles, DType::kU8, {4}, MissingCheck::kWarn, kGpu0, alias),
               ConversionError);
#ifdef NDBUF_FAKE_CUDA_DRIVER
  EXPECT_EQ(fake_used(0), used);
#endif

  // A length-1 vector is recycled.
  const RVectorView one{RVectorType::kDouble, values.data(), 1};
  const BufferFromR filled =
      buffer_from_r(one, DType::kF64, {5}, MissingCheck::kWarn, kGpu0, alias);
  std::vector<double> five(5);
  copy_to_dense(filled.tensor, five.data(), Order::kColumnMajor);
  EXPECT_EQ(five, std::vector<double>(5, 1.5));
}

TEST_F(CudaTest, DeviceToDeviceCopies) {
  const Tensor a = iota({6, 7}, kGpu0);
  const auto expected = dense_bytes(a, Order::kColumnMajor);
  const Tensor same_gpu = buffer_copy_to(a, kGpu0);
  EXPECT_NE(same_gpu.storage(), a.storage());
  EXPECT_NE(same_gpu.data(), a.data());
  EXPECT_EQ(dense_bytes(same_gpu, Order::kColumnMajor), expected);
  // A non-contiguous source goes through the host.
  const Tensor transposed = copy_to(a.reversed_axes(), kGpu0, Order::kColumnMajor);
  EXPECT_EQ(dense_bytes(transposed, Order::kColumnMajor), dense_bytes(a, Order::kRowMajor));
  if (gpus_ < 2) GTEST_SKIP() << "one GPU: copies between GPUs are not tested";
  const Tensor other = buffer_copy_to(a, kGpu1);
  EXPECT_EQ(other.device(), kGpu1);
  EXPECT_EQ(dense_bytes(other, Order::kColumnMajor), expected);
  const Tensor round = buffer_copy_to(other, kGpu0);
  EXPECT_EQ(dense_bytes(round, Order::kColumnMajor), expected);
  EXPECT_EQ(dense_bytes(buffer_copy_to(other, kCpu0), Order::kColumnMajor), expected);
}

TEST_F(CudaTest, StridedViewsOfGpuMemoryReadBack) {
  const Tensor gpu = iota({4, 5}, kGpu0);
  const Tensor host = to_host(gpu);
  const auto views = [](const Tensor& t) {
    return std::vector<Tensor>{
        t.reversed_axes(),
        Tensor(t.storage(), DType::kI32, {2, 3}, {2, 8}, 1),     // every other row, some columns
        Tensor(t.storage(), DType::kI32, {4}, {-1}, 3),          // reversed first column
        Tensor(t.storage(), DType::kI32, {3, 2}, {-4, -1}, 19),  // both axes reversed
        Tensor(t.storage(), DType::kI32, {}, {}, 7),             // one element
        Tensor(t.storage(), DType::kI32, {5}, {4}, 2),           // a row
    };
  };
  const auto on_gpu = views(gpu);
  const auto on_host = views(host);
  for (size_t k = 0; k < on_gpu.size(); ++k) {
    SCOPED_TRACE(k);
    for (Order order : {Order::kColumnMajor, Order::kRowMajor}) {
      EXPECT_EQ(dense_bytes(on_gpu[k], order), dense_bytes(on_host[k], order));
    }
    const Tensor read = to_host(on_gpu[k]);
    EXPECT_TRUE(is_host(read.device()));
    EXPECT_EQ(read.strides(), on_gpu[k].strides());
    EXPECT_EQ(dense_bytes(read, Order::kColumnMajor), dense_bytes(on_host[k], Order::kColumnMajor));
    const Tensor copied = copy_to(on_gpu[k], kGpu0, Order::kColumnMajor);
    EXPECT_EQ(dense_bytes(copied, Order::kColumnMajor),
              dense_bytes(on_host[k], Order::kColumnMajor));
  }
}

TEST_F(CudaTest, EmptyAndZeroDimensionalBuffers) {
  for (const Shape& shape : {Shape{0}, Shape{3, 0}, Shape{0, 0, 2}}) {
    const Tensor empty = buffer_empty(DType::kF32, shape, kGpu0);
    EXPECT_EQ(empty.device(), kGpu0);
    EXPECT_EQ(empty.numel(), 0);
    EXPECT_EQ(to_host(empty).numel(), 0);
    EXPECT_EQ(buffer_copy_to(empty, kCpu0).numel(), 0);
    EXPECT_EQ(buffer_copy_to(empty, kGpu0).numel(), 0);
    EXPECT_TRUE(dense_bytes(empty, Order::kRowMajor).empty());
  }
  const double value = 2.5;
  const Tensor scalar = buffer_from_bytes(&value, 8, DType::kF64, {}, Order::kRowMajor, kGpu0);
  double back = 0.0;
  copy_to_dense(scalar, &back, Order::kRowMajor);
  EXPECT_EQ(back, 2.5);
}

std::shared_ptr<Storage> g_held;
int g_reclaims = 0;
void release_held() {
  ++g_reclaims;
  g_held.reset();
}

TEST_F(CudaTest, OutOfMemoryReclaimsOnceThenFailsClearly) {
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  device_api(Platform::kCuda).memory_info(0, &free_bytes, &total_bytes);
  EXPECT_LE(free_bytes, total_bytes);
  const size_t too_much = total_bytes * 2 + (size_t{1} << 30);

  const std::string plain =
      error_of([&] { allocate_storage(too_much, kGpu0); }, ErrorKind::kOutOfMemory);
  EXPECT_EQ(plain.rfind("Cannot allocate " + format_bytes(too_much) +
                            " on CudaDevice(id=0): "
                            "the GPU is out of memory (",
                        0),
            0u)
      << plain;

  g_reclaims = 0;
  set_memory_reclaimer(&release_held);
  const std::string after =
      error_of([&] { buffer_empty(DType::kU8, {static_cast<int64_t>(too_much)}, kGpu0); },
               ErrorKind::kOutOfMemory);
  EXPECT_EQ(g_reclaims, 1);
  const std::string tail = ", even after unused buffers were released.";
  ASSERT_GT(after.size(), tail.size());
  EXPECT_EQ(after.substr(after.size() - tail.size()), tail) << after;
}

TEST_F(CudaTest, OutOfMemoryRetriesAfterReclaiming) {
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  device_api(Platform::kCuda).memory_info(0, &free_bytes, &total_bytes);
  const size_t share = free_bytes / 10 * 6;
  g_held = allocate_storage(share, kGpu0);
  g_reclaims = 0;
  set_memory_reclaimer(&release_held);
  const std::shared_ptr<Storage> second = allocate_storage(share, kGpu0);
  EXPECT_EQ(g_reclaims, 1);
  EXPECT_EQ(g_held, nullptr);
  EXPECT_EQ(second->nbytes(), share);
  EXPECT_EQ(second->device(), kGpu0);
}

TEST_F(CudaTest, SynchronizeAndMemoryInfo) {
  DeviceApi& api = device_api(Platform::kCuda);
  EXPECT_EQ(api.platform(), Platform::kCuda);
  EXPECT_NO_THROW(api.synchronize(0));
  size_t free_before = 0;
  size_t total = 0;
  api.memory_info(0, &free_before, &total);
  EXPECT_GT(total, 0u);
  if (!kFake) return;
  {
    const Tensor t = buffer_empty(DType::kF64, {1024}, kGpu0);
    size_t free_during = 0;
    api.memory_info(0, &free_during, &total);
    EXPECT_EQ(free_before - free_during, 8192u);
  }
  size_t free_after = 0;
  api.memory_info(0, &free_after, &total);
  EXPECT_EQ(free_after, free_before);
}

#ifdef NDBUF_FAKE_CUDA_DRIVER

TEST_F(CudaTest, NoLeaksAndOnePrimaryContextPerGpu) {
  (void)iota({2}, kGpu0);
  (void)iota({2}, kGpu1);
  const int retains0 = fake_retains(0);
  const int retains1 = fake_retains(1);
  const int blocks = fake_live_blocks();
  {
    const Tensor a = iota({100, 3}, kGpu0);
    const Tensor b = buffer_copy_to(a, kGpu1);
    const Tensor c = copy_to(b.reversed_axes(), kGpu0, Order::kRowMajor);
    const Tensor d = buffer_copy_to(c, kCpu0);
    EXPECT_EQ(fake_live_blocks(), blocks + 3);
  }
  EXPECT_EQ(fake_live_blocks(), blocks);
  EXPECT_EQ(fake_used(0), 0u);
  EXPECT_EQ(fake_retains(0), retains0);
  EXPECT_EQ(fake_retains(1), retains1);
}

TEST_F(CudaTest, DriverFailuresAreClearErrorsAndLeakNothing) {
  const Tensor host = Tensor::allocate(DType::kF32, {8}, Order::kColumnMajor);
  std::memset(host.data(), 0, 32);
  const int blocks = fake_live_blocks();
  fake_fail_next_copy(700);
  EXPECT_EQ(error_of([&] { copy_to(host, kGpu0, Order::kColumnMajor); }, ErrorKind::kDevice),
            "The CUDA driver call cuMemcpyHtoD_v2 failed on CudaDevice(id=0): "
            "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered.");
  EXPECT_EQ(fake_live_blocks(), blocks);

  const Tensor gpu = copy_to(host, kGpu1, Order::kColumnMajor);
  fake_fail_next_copy(12345);  // a code the driver has no name for
  EXPECT_EQ(error_of([&] { to_host(gpu); }, ErrorKind::kDevice),
            "The CUDA driver call cuMemcpyDtoH_v2 failed on CudaDevice(id=1): CUDA error 12345.");
  fake_fail_next_copy(700);
  EXPECT_EQ(error_of([&] { buffer_copy_to(gpu, kGpu0); }, ErrorKind::kDevice),
            "The CUDA driver call cuMemcpyPeer failed on CudaDevice(id=0): "
            "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered.");
  EXPECT_EQ(fake_live_blocks(), blocks + 1);
}

TEST_F(CudaTest, UnavailableDriverMessages) {
  const std::string prefix = "The cuda platform is not available on this machine: ";
  setenv("NDBUF_FAKE_CUDA_INIT_ERROR", "100", 1);
  EXPECT_EQ(error_of([] { load_cuda_api(NDBUF_FAKE_CUDA_DRIVER); }, ErrorKind::kDevice),
            prefix +
                "the CUDA driver found no GPU (CUDA_ERROR_NO_DEVICE: no CUDA-capable "
                "device is detected).");
  setenv("NDBUF_FAKE_CUDA_INIT_ERROR", "3", 1);
  EXPECT_EQ(error_of([] { load_cuda_api(NDBUF_FAKE_CUDA_DRIVER); }, ErrorKind::kDevice),
            prefix +
                "the CUDA driver could not be initialised (CUDA_ERROR_NOT_INITIALIZED: "
                "initialization error).");
  unsetenv("NDBUF_FAKE_CUDA_INIT_ERROR");
  // A second instance over the same driver shares its primary contexts.
  const auto api = load_cuda_api(NDBUF_FAKE_CUDA_DRIVER);
  EXPECT_EQ(api->count(), 2);
  void* ptr = api->allocate(1, 64);
  EXPECT_NE(ptr, nullptr);
  api->free(1, ptr);
  EXPECT_EQ(api->allocate(0, 0), nullptr);
}

#endif  // NDBUF_FAKE_CUDA_DRIVER

// 64-bit sizes and offsets end to end: host -> GPU -> GPU -> host with more than 4 GiB.
TEST_F(CudaTest, BufferLargerThan4GiB) {
  if (kFake) GTEST_SKIP() << "needs a real GPU (the fake driver keeps memory on the host)";
  const int64_t numel = (int64_t{1} << 32) + 4099;
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  device_api(Platform::kCuda).memory_info(0, &free_bytes, &total_bytes);
  const double host_bytes =
      static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
  if (free_bytes < 2 * static_cast<size_t>(numel) + (size_t{1} << 28) ||
      host_bytes < 3.0 * static_cast<double>(numel)) {
    const char* why = "needs 8.5 GiB of free GPU memory and 12 GiB of host memory";
    if (std::getenv("PJRT_TEST_REQUIRE_CUDA") != nullptr) FAIL() << why;
    GTEST_SKIP() << why;
  }
  const Tensor host = Tensor::allocate(DType::kU8, {numel}, Order::kColumnMajor);
  auto* bytes = static_cast<uint8_t*>(host.data());
  for (int64_t i = 0; i < numel; ++i) {
    bytes[i] = static_cast<uint8_t>((static_cast<uint64_t>(i) * 2654435761u) >> 13);
  }
  Tensor gpu = copy_to(host, kGpu0, Order::kColumnMajor);
  const Tensor copy = buffer_copy_to(gpu, kGpu0);
  gpu = Tensor(copy.storage(), DType::kU8, {5}, {-1}, numel - 1);  // the last five, reversed
  const Tensor tail = to_host(gpu);
  for (int64_t k = 0; k < 5; ++k) {
    EXPECT_EQ(static_cast<const uint8_t*>(tail.data())[-k], bytes[numel - 1 - k]);
  }
  const Tensor back = Tensor::allocate(DType::kU8, {numel}, Order::kColumnMajor);
  copy_to_dense(copy, back.data(), Order::kColumnMajor);
  EXPECT_EQ(std::memcmp(back.data(), bytes, static_cast<size_t>(numel)), 0);
}

}  // namespace
}  // namespace ndbuf

int main(int argc, char** argv) {
#ifdef NDBUF_FAKE_CUDA_DRIVER
  setenv("PJRT_CUDA_DRIVER_PATH", NDBUF_FAKE_CUDA_DRIVER, 1);
  setenv("NDBUF_FAKE_CUDA_DEVICES", "2", 1);
  setenv("NDBUF_FAKE_CUDA_MEMORY_MB", "64", 1);
#endif
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
