// Tests of device names, indices and PJRT_PLATFORM.
#include "ndbuf/memory/device.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/memory/tensor.hpp"

namespace ndbuf {
namespace {

// The reason after the prefix names the driver library and why it could not be used.
const char kCudaMissingPrefix[] = "The cuda platform is not available on this machine: ";

bool cuda_available() {
  try {
    return device_count(Platform::kCuda) > 0;
  } catch (const Error&) {
    return false;
  }
}

template <class F>
void expect_cuda_missing(F f) {
  try {
    f();
    ADD_FAILURE() << "expected the missing-CUDA error";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kDevice) << e.what();
    EXPECT_EQ(std::string(e.what()).rfind(kCudaMissingPrefix, 0), 0u) << e.what();
  }
}

// Saves PJRT_PLATFORM and PJRT_CPU_DEVICE_COUNT, clears them for the test and puts them back.
class DeviceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* name : kNames) {
      const char* value = std::getenv(name);
      saved_.push_back(value ? std::optional<std::string>(value) : std::nullopt);
      unsetenv(name);
    }
  }
  void TearDown() override {
    for (size_t k = 0; k < saved_.size(); ++k) {
      if (saved_[k]) {
        setenv(kNames[k], saved_[k]->c_str(), 1);
      } else {
        unsetenv(kNames[k]);
      }
    }
  }
  static void set(const char* name, const char* value) { setenv(name, value, 1); }

  static constexpr const char* kNames[2] = {"PJRT_PLATFORM", "PJRT_CPU_DEVICE_COUNT"};
  std::vector<std::optional<std::string>> saved_;
};

template <class F>
void expect_error(F f, ErrorKind kind, const std::string& message) {
  try {
    f();
    ADD_FAILURE() << "expected an error: " << message;
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    EXPECT_EQ(std::string(e.what()), message);
  }
}

TEST_F(DeviceTest, Names) {
  EXPECT_EQ(platform_name(Platform::kCpu), "cpu");
  EXPECT_EQ(platform_name(Platform::kCuda), "cuda");
  EXPECT_EQ(platform_label(Platform::kCpu), "CPU");
  EXPECT_EQ(platform_label(Platform::kCuda), "CUDA");
  EXPECT_EQ(device_label(Device{Platform::kCpu, 0}), "CpuDevice(id=0)");
  EXPECT_EQ(device_label(Device{Platform::kCpu, 12}), "CpuDevice(id=12)");
  EXPECT_EQ(device_label(Device{Platform::kCuda, 1}), "CudaDevice(id=1)");
}

TEST_F(DeviceTest, Equality) {
  EXPECT_EQ((Device{Platform::kCpu, 0}), Device{});
  EXPECT_NE((Device{Platform::kCpu, 1}), (Device{Platform::kCpu, 0}));
  EXPECT_NE((Device{Platform::kCuda, 0}), (Device{Platform::kCpu, 0}));
  EXPECT_FALSE((Device{Platform::kCuda, 0}) != (Device{Platform::kCuda, 0}));
}

TEST_F(DeviceTest, DefaultIsTheFirstCpuDevice) {
  EXPECT_EQ(default_platform(), Platform::kCpu);
  EXPECT_EQ(resolve_device(""), (Device{Platform::kCpu, 0}));
  EXPECT_EQ(resolve_device("cpu"), (Device{Platform::kCpu, 0}));
  EXPECT_EQ(resolve_device("cpu:0"), (Device{Platform::kCpu, 0}));
  EXPECT_EQ(device_count(Platform::kCpu), 1);
  ASSERT_EQ(list_devices(Platform::kCpu).size(), 1u);
  EXPECT_EQ(list_devices(Platform::kCpu)[0], (Device{Platform::kCpu, 0}));
}

TEST_F(DeviceTest, OutOfRangeIndex) {
  expect_error([] { resolve_device("cpu:1"); }, ErrorKind::kDevice,
               "Device index 1 out of range for platform cpu (1 device)");
  expect_error([] { resolve_device("cpu:3"); }, ErrorKind::kDevice,
               "Device index 3 out of range for platform cpu (1 device)");
}

TEST_F(DeviceTest, CpuDeviceCountFromEnvironment) {
  set("PJRT_CPU_DEVICE_COUNT", "2");
  EXPECT_EQ(device_count(Platform::kCpu), 2);
  EXPECT_EQ(resolve_device("cpu:1"), (Device{Platform::kCpu, 1}));
  EXPECT_EQ(resolve_device("cpu"), (Device{Platform::kCpu, 0}));
  const auto devices = list_devices(Platform::kCpu);
  ASSERT_EQ(devices.size(), 2u);
  EXPECT_EQ(devices[0], (Device{Platform::kCpu, 0}));
  EXPECT_EQ(devices[1], (Device{Platform::kCpu, 1}));
  expect_error([] { resolve_device("cpu:3"); }, ErrorKind::kDevice,
               "Device index 3 out of range for platform cpu (2 devices)");
  expect_error([] { resolve_device("cpu:2"); }, ErrorKind::kDevice,
               "Device index 2 out of range for platform cpu (2 devices)");

  set("PJRT_CPU_DEVICE_COUNT", "8");
  EXPECT_EQ(resolve_device("cpu:7"), (Device{Platform::kCpu, 7}));
  EXPECT_EQ(list_devices(Platform::kCpu).size(), 8u);

  set("PJRT_CPU_DEVICE_COUNT", "");  // empty means the default
  EXPECT_EQ(device_count(Platform::kCpu), 1);

  unsetenv("PJRT_CPU_DEVICE_COUNT");
  expect_error([] { resolve_device("cpu:1"); }, ErrorKind::kDevice,
               "Device index 1 out of range for platform cpu (1 device)");
}

TEST_F(DeviceTest, InvalidCpuDeviceCount) {
  for (const char* bad : {"0", "-1", "two", "3x", "1025"}) {
    set("PJRT_CPU_DEVICE_COUNT", bad);
    expect_error(
        [] { device_count(Platform::kCpu); }, ErrorKind::kInvalidArgument,
        std::string("PJRT_CPU_DEVICE_COUNT must be a whole number from 1 to 1024, not \"") + bad +
            "\".");
  }
  set("PJRT_CPU_DEVICE_COUNT", "1024");
  EXPECT_EQ(device_count(Platform::kCpu), 1024);
}

TEST_F(DeviceTest, MissingCudaIsAClearError) {
  if (cuda_available()) GTEST_SKIP() << "a CUDA driver and GPU are present";
  expect_cuda_missing([] { resolve_device("cuda"); });
  expect_cuda_missing([] { resolve_device("cuda:0"); });
  expect_cuda_missing([] { device_count(Platform::kCuda); });
  expect_cuda_missing([] { list_devices(Platform::kCuda); });
}

TEST_F(DeviceTest, UnknownPlatform) {
  const std::string message = "Unknown platform \"tpu\"; valid platforms are cpu, cuda.";
  expect_error([] { resolve_device("tpu"); }, ErrorKind::kInvalidArgument, message);
  expect_error([] { resolve_device("tpu:0"); }, ErrorKind::kInvalidArgument, message);
  expect_error([] { resolve_device("CPU"); }, ErrorKind::kInvalidArgument,
               "Unknown platform \"CPU\"; valid platforms are cpu, cuda.");
  expect_error([] { resolve_device(":0"); }, ErrorKind::kInvalidArgument,
               "Unknown platform \"\"; valid platforms are cpu, cuda.");
}

TEST_F(DeviceTest, MalformedIndex) {
  for (const char* spec :
       {"cpu:x", "cpu:", "cpu:-1", "cpu:1x", "cpu:1.0", "cpu:0:0", "cpu:99999999999999999999"}) {
    expect_error([spec] { resolve_device(spec); }, ErrorKind::kInvalidArgument,
                 std::string("Device \"") + spec +
                     "\" is not of the form \"<platform>:<index>\" with a non-negative index.");
  }
}

TEST_F(DeviceTest, PlatformFromEnvironment) {
  set("PJRT_PLATFORM", "cpu");
  EXPECT_EQ(default_platform(), Platform::kCpu);
  EXPECT_EQ(resolve_device(""), (Device{Platform::kCpu, 0}));

  set("PJRT_PLATFORM", "cuda");
  EXPECT_EQ(default_platform(), Platform::kCuda);
  if (!cuda_available()) expect_cuda_missing([] { resolve_device(""); });
  // An explicit platform wins over the environment.
  EXPECT_EQ(resolve_device("cpu"), (Device{Platform::kCpu, 0}));

  set("PJRT_PLATFORM", "tpu");
  expect_error([] { default_platform(); }, ErrorKind::kInvalidArgument,
               "The environment variable PJRT_PLATFORM names an unknown platform \"tpu\"; "
               "valid platforms are cpu, cuda.");
  // An explicit device does not read the variable, so a bad value cannot break it.
  EXPECT_EQ(resolve_device("cpu:0"), (Device{Platform::kCpu, 0}));

  set("PJRT_PLATFORM", "");
  EXPECT_EQ(default_platform(), Platform::kCpu);
}

// Allocations that name no device follow the innermost scope of the calling thread only.
TEST(DeviceScope, AllocationsWithoutADeviceUseTheScopesDevice) {
  const Device cpu1{Platform::kCpu, 1};
  const Device cpu2{Platform::kCpu, 2};
  EXPECT_EQ(current_device(), Device{});
  EXPECT_EQ(Tensor::allocate(DType::kF32, {2}, Order::kRowMajor).device(), Device{});
  {
    const DeviceScope outer(cpu1);
    EXPECT_EQ(Tensor::allocate(DType::kF32, {2}, Order::kRowMajor).device(), cpu1);
    {
      const DeviceScope inner(cpu2);
      EXPECT_EQ(current_device(), cpu2);
      EXPECT_EQ(Tensor::allocate(DType::kI8, {}, Order::kRowMajor).device(), cpu2);
    }
    EXPECT_EQ(current_device(), cpu1);
    // A device named explicitly wins.
    EXPECT_EQ(Tensor::allocate(DType::kF32, {2}, Order::kRowMajor, Device{}).device(), Device{});
    Device elsewhere{Platform::kCuda, 9};
    std::thread([&] { elsewhere = current_device(); }).join();
    EXPECT_EQ(elsewhere, Device{});
  }
  EXPECT_EQ(current_device(), Device{});
}

}  // namespace
}  // namespace ndbuf
