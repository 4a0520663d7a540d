#include "ndbuf/mapped_file.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>

#include "ndbuf/error.hpp"

namespace ndbuf {
namespace {

[[noreturn]] void fail_io(const std::string& what, const std::string& path, int err) {
  fail(ErrorKind::kIo, "Cannot " + what + " '" + path + "': " + std::strerror(err) + ".");
}

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

 private:
  int fd_;
};

}  // namespace

std::shared_ptr<Storage> map_file(const std::string& path) {
  int raw = -1;
  do {
    // O_NONBLOCK: opening a FIFO must not wait for a writer (it is rejected below).
    raw = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  } while (raw < 0 && errno == EINTR);
  if (raw < 0) fail_io("open", path, errno);
  Fd fd(raw);
  struct stat info;
  if (::fstat(fd.get(), &info) != 0) fail_io("inspect", path, errno);
  if (S_ISDIR(info.st_mode)) fail_io("read", path, EISDIR);
  if (!S_ISREG(info.st_mode)) {
    fail(ErrorKind::kIo, "Cannot map '" + path + "': it is not a regular file.");
  }
  const auto size = static_cast<size_t>(info.st_size);
  if (size == 0) {
    static char empty = 0;
    return std::make_shared<Storage>(&empty, 0, Device{}, nullptr, true);
  }
  void* data = ::mmap(nullptr, size, PROT_READ, MAP_PRIVATE, fd.get(), 0);
  if (data == MAP_FAILED) fail_io("map", path, errno);
  return std::make_shared<Storage>(
      data, size, Device{}, [size](void* p) noexcept { ::munmap(p, size); }, true);
}

std::shared_ptr<Storage> slice_storage(const std::shared_ptr<Storage>& parent, size_t offset,
                                       size_t nbytes, std::optional<Device> device) {
  if (device && device->platform != parent->device().platform) {
    fail(ErrorKind::kInvalidArgument, "A slice of storage on " +
                                          device_label(parent->device()) + " cannot live on " +
                                          device_label(*device) + ".");
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
      [keep = parent](void*) mutable noexcept { keep.reset(); },
      parent->read_only());
}

}  // namespace ndbuf
