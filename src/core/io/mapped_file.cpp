// Read-only maps of whole files as Storage (small files are read instead).
#include "ndbuf/io/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "io/io_error.hpp"
#include "io/mapped_guard.hpp"
#include "ndbuf/base/error.hpp"

namespace ndbuf {
namespace {

// Closes a descriptor on every path out of map_file().
class Fd {
 public:
  explicit Fd(int fd) : fd_(fd) {}
  ~Fd() {
    if (fd_ >= 0) ::close(fd_);
  }
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  int get() const { return fd_; }
  int release() {
    const int fd = fd_;
    fd_ = -1;
    return fd;
  }

 private:
  int fd_;
};

// Refuses anything but a regular file, naming what it is.
void require_regular(const std::string& path, mode_t mode) {
  if (S_ISREG(mode)) return;
  if (S_ISDIR(mode)) fail_io("read", path, EISDIR);
  const char* what = S_ISFIFO(mode)   ? "a FIFO (named pipe)"
                     : S_ISCHR(mode)  ? "a character device"
                     : S_ISBLK(mode)  ? "a block device"
                     : S_ISSOCK(mode) ? "a socket"
                                      : "a special file";
  fail(ErrorKind::kIo, "Cannot read '" + path + "': it is " + what + ", not a regular file.");
}

// Opens `path` for reading and checks that it is a regular file; fills `info`. The file is
// looked at (stat) before it is opened: opening a FIFO or a device can block or act on it.
int open_regular(const std::string& path, struct stat* info) {
  if (::stat(path.c_str(), info) == 0) require_regular(path, info->st_mode);
  int raw = -1;
  do {
    // O_NONBLOCK: should the path become a FIFO after the check above, opening it must not
    // wait for a writer (it is rejected below).
    raw = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  } while (raw < 0 && errno == EINTR);
  if (raw < 0) fail_io("open", path, errno);
  Fd fd(raw);
  if (::fstat(fd.get(), info) != 0) fail_io("inspect", path, errno);
  require_regular(path, info->st_mode);
  return fd.release();
}

std::shared_ptr<Storage> empty_storage() {
  static char empty = 0;
  return std::make_shared<Storage>(&empty, 0, Device{}, nullptr, true);
}

[[noreturn]] void fail_map(const std::string& path, int err) {
  if (err == ENOMEM) {
    fail(ErrorKind::kIo,
         "Cannot map '" + path +
             "': the process is out of memory maps or address space (Linux allows "
             "vm.max_map_count maps per process, and each loaded file keeps one while buffers "
             "from it are alive); release buffers loaded from other files, or raise "
             "vm.max_map_count.");
  }
  fail_io("map", path, err);
}

}  // namespace

std::shared_ptr<Storage> map_file(const std::string& path) {
  struct stat info;
  Fd fd(open_regular(path, &info));
  const auto size = static_cast<size_t>(info.st_size);
  if (size == 0) return empty_storage();
  void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
  if (data == MAP_FAILED) fail_map(path, errno);
  try {
    watch_mapping(data, size, path, info);
  } catch (...) {
    ::munmap(data, size);
    throw;
  }
  return std::make_shared<Storage>(
      data, size, Device{},
      [size](void* p) noexcept {
        unwatch_mapping(p);
        ::munmap(p, size);
      },
      true);
}

std::shared_ptr<Storage> read_file(const std::string& path) {
  struct stat info;
  Fd fd(open_regular(path, &info));
  const auto size = static_cast<size_t>(info.st_size);
  if (size == 0) return empty_storage();
  std::shared_ptr<Storage> memory = allocate_host(size);
  char* out = static_cast<char*>(memory->data());
  for (size_t done = 0; done < size;) {
    const ssize_t n = ::read(fd.get(), out + done, size - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) fail_io("read", path, errno);
    if (n == 0) {
      fail(ErrorKind::kIo, "Cannot read '" + path + "': it shrank while being read.");
    }
    done += static_cast<size_t>(n);
  }
  // Read-only like a mapping: the storage stands for the file.
  return std::make_shared<Storage>(
      out, size, Device{}, [keep = memory](void*) mutable noexcept { keep.reset(); }, true);
}

std::shared_ptr<Storage> open_file(const std::string& path, bool copy) {
  struct stat info;
  if (!copy && ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode) &&
      static_cast<size_t>(info.st_size) >= kReadWholeFileBytes) {
    return map_file(path);
  }
  return read_file(path);
}

std::shared_ptr<Storage> slice_storage(const std::shared_ptr<Storage>& parent, size_t offset,
                                       size_t nbytes, std::optional<Device> device) {
  if (device && device->platform != parent->device().platform) {
    fail(ErrorKind::kInvalidArgument, "A slice of storage on " + device_label(parent->device()) +
                                          " cannot live on " + device_label(*device) + ".");
  }
  if (offset > parent->nbytes() || nbytes > parent->nbytes() - offset) {
    fail(ErrorKind::kIndex, "Bytes " + std::to_string(offset) + " to " +
                                std::to_string(offset + nbytes) + " lie outside a storage of " +
                                std::to_string(parent->nbytes()) + " bytes.");
  }
  char* data = static_cast<char*>(parent->data()) + offset;
  // The deleter owns a reference to the parent; dropping it may unmap the file.
  return std::make_shared<Storage>(
      data, nbytes, device.value_or(parent->device()),
      [keep = parent](void*) mutable noexcept { keep.reset(); }, parent->read_only());
}

}  // namespace ndbuf
