// Tests of the CPU device memory interface.
#include "ndbuf/memory/device_api.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/convert/buffer.hpp"
#include "ndbuf/memory/tensor.hpp"
#include "ndbuf/memory/transfer.hpp"

namespace ndbuf {
namespace {

const char kUnavailable[] = "The cuda platform is not available on this machine: ";

// Sets PJRT_CPU_DEVICE_COUNT for one test and restores it afterwards.
class CpuDevicesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* value = std::getenv("PJRT_CPU_DEVICE_COUNT");
    if (value != nullptr) saved_ = value;
    setenv("PJRT_CPU_DEVICE_COUNT", "3", 1);
  }
  void TearDown() override {
    if (saved_) {
      setenv("PJRT_CPU_DEVICE_COUNT", saved_->c_str(), 1);
    } else {
      unsetenv("PJRT_CPU_DEVICE_COUNT");
    }
  }
  std::optional<std::string> saved_;
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

bool starts_with(const std::string& text, const std::string& prefix) {
  return text.compare(0, prefix.size(), prefix) == 0;
}

TEST_F(CpuDevicesTest, CpuApiAllocatesCopiesAndSynchronises) {
  DeviceApi& api = device_api(Platform::kCpu);
  EXPECT_EQ(api.platform(), Platform::kCpu);
  EXPECT_EQ(api.count(), 3);
  EXPECT_EQ(api.allocate(0, 0), nullptr);
  auto* a = static_cast<char*>(api.allocate(2, 100));
  auto* b = static_cast<char*>(api.allocate(1, 100));
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % kHostAlignment, 0u);
  const std::string text = "device memory of the cpu platform";
  api.copy_host_to_device(2, a, text.data(), text.size());
  api.copy_device_to_device(1, b, 2, a, text.size());
  std::string back(text.size(), '\0');
  api.copy_device_to_host(1, back.data(), b, text.size());
  EXPECT_EQ(back, text);
  EXPECT_NO_THROW(api.synchronize(2));
  api.free(2, a);
  api.free(1, b);
  api.free(0, nullptr);
  size_t free_bytes = 0;
  size_t total_bytes = 0;
  api.memory_info(0, &free_bytes, &total_bytes);
  EXPECT_GT(total_bytes, 0u);
  EXPECT_LE(free_bytes, total_bytes);
  EXPECT_EQ(error_of([&] { api.allocate(3, 8); }, ErrorKind::kDevice),
            "Device index 3 out of range for platform cpu (3 devices)");
  EXPECT_EQ(error_of([&] { api.synchronize(-1); }, ErrorKind::kDevice),
            "Device index -1 out of range for platform cpu (3 devices)");
}

int g_host_allocations = 0;
std::shared_ptr<Storage> counting_allocator(size_t nbytes, Device device) {
  ++g_host_allocations;
  return default_host_allocator(nbytes, device);
}
int g_reclaims = 0;
void count_reclaim() { ++g_reclaims; }

TEST_F(CpuDevicesTest, CpuStorageComesFromTheHostAllocator) {
  g_host_allocations = 0;
  g_reclaims = 0;
  set_host_allocator(&counting_allocator);
  set_memory_reclaimer(&count_reclaim);
  const std::shared_ptr<Storage> storage = allocate_storage(24, Device{Platform::kCpu, 2});
  const Tensor tensor = buffer_empty(DType::kF32, {2, 3}, Device{Platform::kCpu, 1});
  set_host_allocator(nullptr);
  set_memory_reclaimer(nullptr);
  EXPECT_EQ(g_host_allocations, 2);
  EXPECT_EQ(g_reclaims, 0);
  EXPECT_EQ(storage->nbytes(), 24u);
  EXPECT_EQ(storage->device(), (Device{Platform::kCpu, 2}));
  EXPECT_EQ(tensor.device(), (Device{Platform::kCpu, 1}));
}

TEST_F(CpuDevicesTest, HostTensorsAreTheirOwnHostView) {
  const double values[] = {1, 2, 3, 4, 5, 6};
  const Tensor t = buffer_from_bytes(values, sizeof values, DType::kF64, {2, 3},
                                     Order::kColumnMajor, Device{Platform::kCpu, 2});
  const Tensor view = t.reversed_axes();
  const Tensor host = to_host(view);
  EXPECT_EQ(host.storage(), t.storage());
  EXPECT_EQ(host.strides(), view.strides());
  EXPECT_EQ(host.device(), (Device{Platform::kCpu, 2}));
}

TEST_F(CpuDevicesTest, CopiesBetweenCpuDevicesAreDense) {
  const int32_t values[] = {1, 2, 3, 4, 5, 6};
  const Tensor t = buffer_from_bytes(values, sizeof values, DType::kI32, {2, 3},
                                     Order::kColumnMajor, Device{Platform::kCpu, 0});
  const Tensor moved = buffer_copy_to(t, Device{Platform::kCpu, 2});
  EXPECT_EQ(moved.device(), (Device{Platform::kCpu, 2}));
  EXPECT_NE(moved.storage(), t.storage());
  EXPECT_EQ(std::memcmp(moved.data(), values, sizeof values), 0);

  const Tensor rows = copy_to(t, Device{Platform::kCpu, 1}, Order::kRowMajor);
  const int32_t row_major[] = {1, 3, 5, 2, 4, 6};
  EXPECT_EQ(std::memcmp(rows.data(), row_major, sizeof row_major), 0);
  const Tensor back = copy_to(rows.reversed_axes(), Device{}, Order::kColumnMajor);
  EXPECT_EQ(back.shape(), (Shape{3, 2}));
  EXPECT_EQ(std::memcmp(back.data(), row_major, sizeof row_major), 0);

  const Tensor empty =
      buffer_copy_to(buffer_empty(DType::kC128, {0, 4}, Device{}), Device{Platform::kCpu, 1});
  EXPECT_EQ(empty.numel(), 0);
  EXPECT_EQ(empty.device(), (Device{Platform::kCpu, 1}));
}

TEST(CudaDriverLoading, MissingLibraryNamesTheReason) {
  const std::string message =
      error_of([] { load_cuda_api("/nonexistent/dir/libcuda.so.1"); }, ErrorKind::kDevice);
  EXPECT_TRUE(starts_with(message, std::string(kUnavailable) + "no CUDA driver was found ("))
      << message;
  EXPECT_NE(message.find("/nonexistent/dir/libcuda.so.1"), std::string::npos) << message;
}

#ifdef __linux__
TEST(CudaDriverLoading, LibraryWithoutDriverFunctionsIsRejected) {
  EXPECT_EQ(error_of([] { load_cuda_api("libm.so.6"); }, ErrorKind::kDevice),
            std::string(kUnavailable) +
                "the CUDA driver library libm.so.6 has no function cuInit (the driver may be too "
                "old).");
}
#endif

TEST(CudaDriverLoading, DriverPathFromEnvironment) {
  const char* saved = std::getenv("PJRT_CUDA_DRIVER_PATH");
  const std::string restore = saved != nullptr ? saved : "";
  unsetenv("PJRT_CUDA_DRIVER_PATH");
  EXPECT_EQ(cuda_driver_path(), "libcuda.so.1");
  setenv("PJRT_CUDA_DRIVER_PATH", "", 1);
  EXPECT_EQ(cuda_driver_path(), "libcuda.so.1");
  setenv("PJRT_CUDA_DRIVER_PATH", "/opt/driver/libcuda.so", 1);
  EXPECT_EQ(cuda_driver_path(), "/opt/driver/libcuda.so");
  if (saved != nullptr) {
    setenv("PJRT_CUDA_DRIVER_PATH", restore.c_str(), 1);
  } else {
    unsetenv("PJRT_CUDA_DRIVER_PATH");
  }
}

// Without a driver (the usual CI machine) "cuda" is a clear error and nothing else changes;
// with one, ndbuf_cuda_tests covers the platform.
TEST(CudaDriverLoading, MissingPlatformIsAClearErrorEverywhere) {
  try {
    device_api(Platform::kCuda);
  } catch (const Error&) {
    for (const char* spec : {"cuda", "cuda:0", "cuda:3"}) {
      const std::string message = error_of([spec] { resolve_device(spec); }, ErrorKind::kDevice);
      EXPECT_TRUE(starts_with(message, kUnavailable)) << message;
    }
    EXPECT_TRUE(starts_with(error_of([] { list_devices(Platform::kCuda); }, ErrorKind::kDevice),
                            kUnavailable));
    EXPECT_TRUE(starts_with(error_of(
                                [] {
                                  allocate_storage(8, Device{Platform::kCuda, 0});
                                },
                                ErrorKind::kDevice),
                            kUnavailable));
    // The failure is kept: the same message every time.
    EXPECT_EQ(error_of([] { device_count(Platform::kCuda); }, ErrorKind::kDevice),
              error_of([] { device_count(Platform::kCuda); }, ErrorKind::kDevice));
    EXPECT_EQ(resolve_device("cpu"), Device{});
    return;
  }
  GTEST_SKIP() << "a CUDA driver and GPU are present";
}

TEST(FormatBytes, UnitsAndExactCount) {
  EXPECT_EQ(format_bytes(0), "0 bytes");
  EXPECT_EQ(format_bytes(1), "1 byte");
  EXPECT_EQ(format_bytes(1023), "1023 bytes");
  EXPECT_EQ(format_bytes(1024), "1.0 KiB (1024 bytes)");
  EXPECT_EQ(format_bytes(1536 * 1024), "1.5 MiB (1572864 bytes)");
  EXPECT_EQ(format_bytes(size_t{5} << 30), "5.0 GiB (5368709120 bytes)");
  EXPECT_EQ(format_bytes(size_t{3} << 40), "3.0 TiB (3298534883328 bytes)");
  EXPECT_EQ(format_bytes(1000, false), "1000 bytes");
  EXPECT_EQ(format_bytes(size_t{5} << 29, false), "2.5 GiB");
}

}  // namespace
}  // namespace ndbuf
