// Mapped files changing underneath: truncation and in-place rewrites become errors, never a
// dead process; and forked children of a process that ran parallel loops do not hang.
#include "ndbuf/io/mapped_file.hpp"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/io/safetensors.hpp"
#include "ndbuf/memory/parallel.hpp"
#include "safetensors_bytes.hpp"

namespace ndbuf {
namespace {

std::string temp_path(const std::string& tag) {
  return "/tmp/ndbuf-mapped-" + tag + "-" + std::to_string(::getpid());
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Runs `body` in a forked child and reports how the child ended: its exit status, or -signal,
// or 999 when it ran past `seconds` (and was killed), so a hang or a crash fails the test.
template <class Body>
int in_child(Body&& body, int seconds = 20) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    int status = 1;
    try {
      status = body();
    } catch (...) {
      status = 2;
    }
    ::_exit(status);
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return 999;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -WTERMSIG(status);
}

std::string expected_message(const std::string& path) {
  return "The file '" + path +
         "' changed on disk after it was loaded (it was truncated or rewritten in place), so "
         "buffers loaded from it cannot be read; load it again.";
}

constexpr size_t kBig = size_t{4} << 20;  // above kReadWholeFileBytes: mapped

TEST(MappedFile, TruncationIsAnErrorNotABusError) {
  const std::string path = temp_path("truncate");
  write_file(path, std::string(kBig, 'x'));
  const int outcome = in_child([&] {
    const auto file = map_file(path);
    ::truncate(path.c_str(), 0);
    const uint64_t before = mapping_fault_count();
    const volatile char* bytes = static_cast<const char*>(file->data());
    const char seen = bytes[kBig - 1];  // a page the file no longer has
    if (seen != 0) return 3;
    try {
      check_no_mapping_faults(before);
      return 4;
    } catch (const Error& e) {
      if (std::string(e.what()) != expected_message(path)) return 5;
    }
    try {
      check_mapping_intact(file->data());
      return 6;
    } catch (const Error& e) {
      return e.kind() == ErrorKind::kIo ? 0 : 7;
    }
  });
  EXPECT_EQ(outcome, 0);
  ::unlink(path.c_str());
}

TEST(MappedFile, InPlaceRewriteIsDetected) {
  const std::string path = temp_path("rewrite");
  write_file(path, std::string(kBig, 'x'));
  const auto file = map_file(path);
  EXPECT_NO_THROW(check_mapping_intact(file->data()));
  std::this_thread::sleep_for(std::chrono::milliseconds(30));  // a later modification time
  {
    std::fstream out(path, std::ios::binary | std::ios::in | std::ios::out);
    out.write("y", 1);
  }
  try {
    check_mapping_intact(static_cast<const char*>(file->data()) + 100);
    ADD_FAILURE() << "not detected";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), expected_message(path));
  }
  ::unlink(path.c_str());
}

TEST(MappedFile, ReplacingOrDeletingTheFileIsNoChange) {
  const std::string path = temp_path("replace");
  write_file(path, std::string(kBig, 'x'));
  const auto file = map_file(path);
  write_file(path + ".new", "other");
  ASSERT_EQ(::rename((path + ".new").c_str(), path.c_str()), 0);
  EXPECT_NO_THROW(check_mapping_intact(file->data()));
  ::unlink(path.c_str());
  EXPECT_NO_THROW(check_mapping_intact(file->data()));
  EXPECT_EQ(static_cast<const char*>(file->data())[kBig - 1], 'x');
}

// Whether memory lies in a mapping decides whether R may view it without a copy: the whole
// mapping (first to last byte) is in, its neighbours and read-in files are not.
TEST(MappedFile, LiesInMappedFileCoversExactlyTheMappedBytes) {
  const std::string path = temp_path("lies");
  write_file(path, std::string(kBig, 'x'));
  {
    const auto file = map_file(path);
    const char* begin = static_cast<const char*>(file->data());
    EXPECT_TRUE(lies_in_mapped_file(begin));
    EXPECT_TRUE(lies_in_mapped_file(begin + kBig - 1));
    EXPECT_FALSE(lies_in_mapped_file(begin + kBig));
    EXPECT_FALSE(lies_in_mapped_file(begin - 1));
    const auto read = read_file(path);
    EXPECT_FALSE(lies_in_mapped_file(read->data()));
  }
  ::unlink(path.c_str());
}

// The message read_file() (and map_file()) gives for `path`.
std::string refusal_of(const std::string& path) {
  try {
    read_file(path);
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kIo);
    return e.what();
  }
  return "accepted";
}

TEST(MappedFile, WhatIsNotARegularFileIsRefusedNamingWhatItIs) {
  const std::string dir = temp_path("dir");
  ASSERT_EQ(::mkdir(dir.c_str(), 0700), 0);
  EXPECT_EQ(refusal_of(dir), "Cannot read '" + dir + "': Is a directory.");
  EXPECT_EQ(refusal_of("/dev/null"),
            "Cannot read '/dev/null': it is a character device, not a regular file.");
  const std::string socket_path = dir + "/socket";
  const int fd = ::socket(AF_UNIX, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, socket_path.c_str(), sizeof address.sun_path - 1);
  ASSERT_EQ(::bind(fd, reinterpret_cast<const sockaddr*>(&address), sizeof address), 0);
  EXPECT_EQ(refusal_of(socket_path),
            "Cannot read '" + socket_path + "': it is a socket, not a regular file.");
  ::close(fd);
  ::unlink(socket_path.c_str());
  EXPECT_EQ(refusal_of(dir + "/missing"),
            "Cannot open '" + dir + "/missing': No such file or directory.");
  ::rmdir(dir.c_str());
}

// A FIFO is refused from stat() alone: it is never opened, which would release a writer
// waiting in open() (and a blocking open for reading would wait for one).
TEST(MappedFile, AFifoIsRefusedWithoutBeingOpened) {
  const std::string fifo = temp_path("fifo");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const pid_t writer = ::fork();
  if (writer == 0) {
    const int fd = ::open(fifo.c_str(), O_WRONLY);  // waits for a reader
    ::_exit(fd >= 0 ? 0 : 1);
  }
  EXPECT_EQ(refusal_of(fifo),
            "Cannot read '" + fifo + "': it is a FIFO (named pipe), not a regular file.");
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  int status = 0;
  EXPECT_EQ(::waitpid(writer, &status, WNOHANG), 0) << "the FIFO was opened for reading";
  ::kill(writer, SIGKILL);
  ::waitpid(writer, &status, 0);
  ::unlink(fifo.c_str());
}

// A fault the guard does not own reaches the previous handler: the default one ends the
// process with SIGBUS; under AddressSanitizer, ASan's handler may report it first and exit
// with 1 (GCC's runtime does for both faults below, clang 14's for the real one only). GCC
// says it instruments with __SANITIZE_ADDRESS__, clang with __has_feature.
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kUnderAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
constexpr bool kUnderAsan = true;
#else
constexpr bool kUnderAsan = false;
#endif
#else
constexpr bool kUnderAsan = false;
#endif

bool ended_by_the_fault(int outcome) { return outcome == -SIGBUS || (kUnderAsan && outcome == 1); }

TEST(MappedFile, FaultsOutsideMappingsStillEndTheProcess) {
  const int outcome = in_child([] {
    map_file("/proc/self/exe");  // installs the handler (and maps a file that stays intact)
    ::raise(SIGBUS);
    return 0;
  });
  EXPECT_TRUE(ended_by_the_fault(outcome)) << outcome;
  // A real fault in a mapping ndbuf did not make.
  const std::string path = temp_path("foreign");
  write_file(path, std::string(kBig, 'x'));
  const int foreign = in_child([&] {
    map_file("/proc/self/exe");
    const int fd = ::open(path.c_str(), O_RDONLY);
    void* p = ::mmap(nullptr, kBig, PROT_READ, MAP_PRIVATE, fd, 0);
    ::truncate(path.c_str(), 0);
    return static_cast<const volatile char*>(p)[kBig - 1] == 0 ? 3 : 4;
  });
  EXPECT_TRUE(ended_by_the_fault(foreign)) << foreign;
  ::unlink(path.c_str());
}

// Small files, and any file loaded with `copy`, are read into memory: later changes to the
// file cannot reach the loaded tensors.
TEST(MappedFile, SmallFilesAndCopiesAreImmuneToChanges) {
  for (const bool big : {false, true}) {
    const std::string path = temp_path("copy");
    const size_t n = big ? kBig : 4;
    const std::string header = "{\"a\":{\"dtype\":\"U8\",\"shape\":[" + std::to_string(n) +
                               "],\"data_offsets\":[0," + std::to_string(n) + "]}}";
    write_file(path, safetensors_bytes::file_bytes(header, std::string(n, '\3')));
    SafetensorsLoadOptions options;
    options.copy = big;  // the small file is read without asking
    const auto contents = load_safetensors(path, options);
    ::truncate(path.c_str(), 0);
    const Tensor& t = contents.tensors[0].tensor;
    EXPECT_NO_THROW(check_mapping_intact(t.data()));
    EXPECT_EQ(static_cast<const unsigned char*>(t.data())[n - 1], 3);
    ::unlink(path.c_str());
  }
}

TEST(MappedFile, LoadingAFileTruncatedMidwayIsAnError) {
  const std::string path = temp_path("midway");
  const std::string header = "{\"a\":{\"dtype\":\"U8\",\"shape\":[" + std::to_string(kBig) +
                             "],\"data_offsets\":[0," + std::to_string(kBig) + "]}}";
  write_file(path, safetensors_bytes::file_bytes(header, std::string(kBig, '\1')));
  const int outcome = in_child([&] {
    SafetensorsLoadOptions options;
    bool truncated = false;
    options.progress = [&](uint64_t, uint64_t) {
      if (!truncated) ::truncate(path.c_str(), 4096);
      truncated = true;
    };
    options.device = Device{};
    try {
      const auto contents = load_safetensors(path, options);
      // Zero-copy: nothing was read while loading; the first read must see the change.
      check_mapping_intact(contents.tensors[0].tensor.data());
      return 3;
    } catch (const Error& e) {
      return std::string(e.what()) == expected_message(path) ? 0 : 4;
    }
  });
  EXPECT_EQ(outcome, 0);
  ::unlink(path.c_str());
}

#ifndef __SANITIZE_ADDRESS__  // AddressSanitizer needs far more address space than it allows
// Each mapping counts against vm.max_map_count; running out (or out of address space, which
// a child can provoke with RLIMIT_AS) must say so rather than look like any allocation error.
TEST(MappedFile, RunningOutOfMapsSaysWhatHappened) {
  const std::string path = temp_path("nomaps");
  write_file(path, std::string(kBig, 'x'));
  const int outcome = in_child([&] {
    std::ifstream statm("/proc/self/statm");
    uint64_t pages = 0;
    statm >> pages;
    const rlim_t used = pages * static_cast<rlim_t>(::sysconf(_SC_PAGESIZE));
    const struct rlimit limit = {used + (rlim_t{1} << 20), used + (rlim_t{1} << 20)};
    if (::setrlimit(RLIMIT_AS, &limit) != 0) return 3;
    try {
      map_file(path);
      return 4;
    } catch (const Error& e) {
      const std::string expected =
          "Cannot map '" + path +
          "': the process is out of memory maps or address space (Linux allows "
          "vm.max_map_count maps per process, and each loaded file keeps one while buffers "
          "from it are alive); release buffers loaded from other files, or raise "
          "vm.max_map_count.";
      return std::string(e.what()) == expected ? 0 : 5;
    }
  });
  EXPECT_EQ(outcome, 0);
  ::unlink(path.c_str());
}
#endif

// The sum of 0..count-1 through a block-parallel loop (threads wherever count is large).
int64_t parallel_sum(int64_t count) {
  std::vector<int64_t> values(static_cast<size_t>(count));
  for_each_block(count, 16, [&](int64_t begin, int64_t end) {
    for (int64_t k = begin; k < end; ++k) values[static_cast<size_t>(k)] = k;
  });
  std::vector<char> copy(values.size() * sizeof(int64_t));
  copy_bytes(copy.data(), values.data(), copy.size());
  int64_t sum = 0;
  for (size_t k = 0; k < values.size(); ++k) {
    int64_t v = 0;
    std::memcpy(&v, copy.data() + k * sizeof v, sizeof v);
    sum += v;
  }
  return sum;
}

TEST(ForkedChild, ParallelLoopsRunSeriallyAfterTheParentUsedThreads) {
  const int64_t n = int64_t{1} << 21;
  const int64_t expected = n * (n - 1) / 2;
  EXPECT_EQ(parallel_sum(n), expected);  // the parent's thread pool now exists
  EXPECT_FALSE(in_forked_child());
  const int outcome = in_child([&] {
    if (!in_forked_child() || max_threads() != 1) return 3;
    return parallel_sum(n) == expected ? 0 : 4;
  });
  EXPECT_EQ(outcome, 0);
}

}  // namespace
}  // namespace ndbuf
