// Writing safetensors files: the header and the tensor bytes, via a temporary file renamed.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <new>
#include <nlohmann/json.hpp>
#include <string>
#include <unordered_set>

#include "io/io_error.hpp"
#include "io/safetensors_internal.hpp"
#include "io/write_behind.hpp"
#include "ndbuf/base/error.hpp"
#include "ndbuf/io/mapped_file.hpp"
#include "ndbuf/io/safetensors.hpp"
#include "ndbuf/memory/copy.hpp"
#include "ndbuf/memory/parallel.hpp"

namespace ndbuf {
namespace {

// A JSON string literal (quotes and escapes) for valid UTF-8 text.
std::string json_string(const std::string& s) { return nlohmann::json(s).dump(); }

void check_utf8(const std::string& s, const std::string& what) {
  const auto* p = reinterpret_cast<const unsigned char*>(s.data());
  if (valid_utf8_prefix(p, s.size()) != s.size()) {
    fail(ErrorKind::kInvalidArgument, what + " is not valid UTF-8.");
  }
}

void check_tensors(const std::vector<NamedTensor>& tensors, const SafetensorsSaveOptions& options) {
  std::unordered_set<std::string> names;
  for (const auto& [name, tensor] : tensors) {
    check_utf8(name, "A tensor name");
    if (name == "__metadata__") {
      fail(ErrorKind::kInvalidArgument,
           "\"__metadata__\" cannot name a tensor: safetensors reserves it for the metadata.");
    }
    if (!names.insert(name).second) {
      fail(ErrorKind::kInvalidArgument, "The tensor name \"" + name + "\" is used twice.");
    }
    if (tensor.dtype() == DType::kC128 && !options.allow_c128) {
      fail(ErrorKind::kInvalidArgument,
           "Tensor \"" + name +
               "\" has dtype c128, which safetensors readers other than pjrt reject; allow "
               "writing it as C128 explicitly or convert it to c64.");
    }
    if (!is_host(tensor.device())) {
      fail(ErrorKind::kInvalidArgument, "Tensor \"" + name + "\" is on " +
                                            device_label(tensor.device()) +
                                            "; copy it to the host before writing it.");
    }
  }
}

// Offsets in the data section, by decreasing element size and otherwise in the given order.
std::vector<size_t> data_order(const std::vector<NamedTensor>& tensors) {
  std::vector<size_t> order(tensors.size());
  for (size_t k = 0; k < order.size(); ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return itemsize(tensors[a].tensor.dtype()) > itemsize(tensors[b].tensor.dtype());
  });
  return order;
}

// The file a write to `path` lands in: symbolic links are followed to their target, and a
// dangling one names the file to create there (as shell redirection does). Errors name `path`.
std::string resolve_target(const std::string& path) {
  constexpr int kMaxLinks = 40;  // Linux's own limit when resolving a path
  std::string current = path;
  for (int hops = 0;; ++hops) {
    struct stat info;
    if (::lstat(current.c_str(), &info) != 0 || !S_ISLNK(info.st_mode)) return current;
    if (hops == kMaxLinks) {
      fail(ErrorKind::kIo, "Cannot write '" + path +
                               "': its symbolic links form a loop (or a chain of more than " +
                               std::to_string(kMaxLinks) + ").");
    }
    std::string dest(PATH_MAX, '\0');
    const ssize_t n = ::readlink(current.c_str(), dest.data(), dest.size());
    if (n < 0) fail_io("follow the symbolic link", path, errno);
    dest.resize(static_cast<size_t>(n));
    const size_t slash = current.rfind('/');
    if (dest.empty() || dest[0] != '/') {
      dest.insert(0, slash == std::string::npos ? std::string() : current.substr(0, slash + 1));
    }
    current = std::move(dest);
  }
}

// Regular files (and new ones) are replaced atomically; character devices and FIFOs are
// written through, as shell redirection does (replacing /dev/null would be a disaster);
// anything else is refused.
bool writes_through(const std::string& target, const std::string& path) {
  struct stat info;
  if (::stat(target.c_str(), &info) != 0 || S_ISREG(info.st_mode)) return false;
  if (S_ISCHR(info.st_mode) || S_ISFIFO(info.st_mode)) return true;
  if (S_ISDIR(info.st_mode)) fail_io("write", path, EISDIR);
  fail(ErrorKind::kIo, "Cannot write '" + path + "': it is a " +
                           (S_ISBLK(info.st_mode) ? "block device" : "socket or special file") +
                           ", which is neither replaced nor written to.");
}

// Where the bytes go: a temporary file beside the target, renamed over it by commit() and
// removed otherwise; or, for devices and FIFOs, the target itself. Errors name `shown` (the
// path the caller gave), never the temporary file.
class Output {
 public:
  Output(const std::string& path, std::string target)
      : shown_(path), target_(std::move(target)), through_(writes_through(target_, path)) {
    if (through_) {
      open_through();
      return;
    }
    // A short name of its own, so any legal target name works.
    static std::atomic<unsigned> counter{0};
    const size_t slash = target_.rfind('/');
    const std::string dir = slash == std::string::npos ? "" : target_.substr(0, slash + 1);
    for (int attempt = 0; fd_ < 0; ++attempt) {
      temp_ = dir + ".pjrt-" + std::to_string(::getpid()) + "-" +
              std::to_string(counter.fetch_add(1)) + ".tmp";
      fd_ = ::open(temp_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd_ < 0 && (errno != EEXIST || attempt > 100)) fail_io("write", shown_, errno);
    }
    struct stat old;
    if (::stat(target_.c_str(), &old) == 0 && S_ISREG(old.st_mode)) {
      // Keep the replaced file's permissions; failing to is no reason to stop.
      if (::fchmod(fd_, old.st_mode & 07777) != 0) errno = 0;
    }
  }
  ~Output() {
    if (fd_ >= 0) ::close(fd_);
    if (!through_ && !committed_) ::unlink(temp_.c_str());
  }
  Output(const Output&) = delete;
  Output& operator=(const Output&) = delete;

  void write(const void* data, size_t nbytes) {
    const char* p = static_cast<const char*>(data);
    while (nbytes > 0) {
      const ssize_t n = ::write(fd_, p, std::min<size_t>(nbytes, size_t{1} << 30));
      if (n < 0) {
        if (errno == EINTR) continue;
        fail_io("write", shown_, errno);
      }
      p += n;
      nbytes -= static_cast<size_t>(n);
    }
  }

  void commit() {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail_io("write", shown_, errno);
    if (!through_ && ::rename(temp_.c_str(), target_.c_str()) != 0) {
      fail_io("replace", shown_, errno);
    }
    committed_ = true;
  }

 private:
  // O_NONBLOCK: a FIFO without a reader is an error now rather than a wait forever.
  void open_through() {
    do {
      fd_ = ::open(target_.c_str(), O_WRONLY | O_CLOEXEC | O_NONBLOCK);
    } while (fd_ < 0 && errno == EINTR);
    if (fd_ < 0 && errno == ENXIO) {
      fail(ErrorKind::kIo, "Cannot write '" + shown_ + "': it is a FIFO with no reader.");
    }
    if (fd_ < 0) fail_io("write", shown_, errno);
    const int flags = ::fcntl(fd_, F_GETFL);
    if (flags >= 0) ::fcntl(fd_, F_SETFL, flags & ~O_NONBLOCK);
  }

  std::string shown_;
  std::string target_;
  std::string temp_;
  bool through_;
  int fd_ = -1;
  bool committed_ = false;
};

using Tick = std::function<void(uint64_t bytes)>;

// Two transposing buffers for a whole write, used in turn (one may still be being written
// behind while the other is filled), each grown on demand (fresh pages cost as much as the
// transpose itself, so they are kept for the whole write).
class Staging {
 public:
  char* next(size_t nbytes) {
    turn_ ^= 1;
    std::unique_ptr<char[]>& data = data_[turn_];
    size_t& size = size_[turn_];
    if (nbytes > size) {
      data.reset(new (std::nothrow) char[nbytes]);
      size = data ? nbytes : 0;
      if (!data) {
        fail(ErrorKind::kOutOfMemory, "Cannot allocate " + std::to_string(nbytes) +
                                          " bytes to transpose a tensor for writing.");
      }
    }
    return data.get();
  }

 private:
  std::unique_ptr<char[]> data_[2];
  size_t size_[2] = {0, 0};
  int turn_ = 0;
};

// Transposed slabs from this size on are written by a second thread while the next one is
// transposed (when more than one thread may run); smaller ones are not worth the hand-off.
constexpr size_t kWriteBehindBytes = size_t{256} << 10;

// Where a tensor's bytes go: straight to the file, or behind through `behind`.
struct Destination {
  Output& file;
  WriteBehind& behind;
  bool overlap;
};

// Writes the tensor's elements in row-major order, slab by slab: straight from the tensor when
// it is already laid out that way, else transposed through a bounded buffer.
void write_tensor(Destination& to, const Tensor& t, Staging& staging, const Tick& tick) {
  const char* src = static_cast<const char*>(t.data());
  const auto item = static_cast<int64_t>(itemsize(t.dtype()));
  const bool direct = t.is_contiguous(Order::kRowMajor);
  const Strides dst_strides = contiguous_strides(t.shape(), Order::kRowMajor);
  for_each_slab(t.strides(), dst_strides, t.shape(), itemsize(t.dtype()), [&](const Slab& slab) {
    const char* from = src + slab.src_offset * item;
    const auto nbytes = static_cast<size_t>(slab.nbytes);
    if (direct) {
      to.behind.drain();
      to.file.write(from, nbytes);
    } else {
      char* buffer = staging.next(nbytes);
      copy_elements(from, slab.src_strides, buffer, slab.dst_strides, slab.shape,
                    itemsize(t.dtype()));
      if (to.overlap && nbytes >= kWriteBehindBytes) {
        to.behind.submit(buffer, nbytes);
      } else {
        to.behind.drain();
        to.file.write(buffer, nbytes);
      }
    }
    tick(static_cast<uint64_t>(slab.bytes_done));
  });
}

}  // namespace

std::string safetensors_header(const std::vector<NamedTensor>& tensors,
                               const std::optional<SafetensorsMetadata>& metadata,
                               const SafetensorsSaveOptions& options) {
  check_tensors(tensors, options);
  // Written out by hand (names escaped by the JSON library): an ordered JSON object looks
  // keys up linearly, which made headers of many tensors quadratic.
  std::string out = "{";
  if (metadata) {
    std::unordered_set<std::string> keys;
    out += "\"__metadata__\":{";
    for (const auto& [key, value] : *metadata) {
      check_utf8(key, "A metadata key");
      check_utf8(value, "The metadata value of \"" + key + "\"");
      if (!keys.insert(key).second) {
        fail(ErrorKind::kInvalidArgument, "The metadata key \"" + key + "\" is used twice.");
      }
      if (keys.size() > 1) out += ',';
      out += json_string(key) + ':' + json_string(value);
    }
    out += '}';
  }
  std::vector<std::pair<uint64_t, uint64_t>> offsets(tensors.size());
  uint64_t position = 0;
  for (const size_t k : data_order(tensors)) {
    const auto nbytes = static_cast<uint64_t>(tensors[k].tensor.nbytes());
    offsets[k] = {position, position + nbytes};
    position += nbytes;
  }
  for (size_t k = 0; k < tensors.size(); ++k) {
    const Tensor& t = tensors[k].tensor;
    if (out.size() > 1) out += ',';
    out += json_string(tensors[k].name) + ":{\"dtype\":\"";
    out += dtype_info(t.dtype()).safetensors;
    out += "\",\"shape\":[";
    for (size_t d = 0; d < t.shape().size(); ++d) {
      out += (d == 0 ? "" : ",") + std::to_string(t.shape()[d]);
    }
    out += "],\"data_offsets\":[" + std::to_string(offsets[k].first) + ',' +
           std::to_string(offsets[k].second) + "]}";
  }
  out += '}';
  return out;
}

void save_safetensors(const std::string& path, const std::vector<NamedTensor>& tensors,
                      const std::optional<SafetensorsMetadata>& metadata,
                      const SafetensorsSaveOptions& options) {
  std::string header = safetensors_header(tensors, metadata, options);
  header.append((8 - header.size() % 8) % 8, ' ');
  uint64_t total = 8 + header.size();
  for (const auto& named : tensors) total += static_cast<uint64_t>(named.tensor.nbytes());

  const uint64_t faults_before = mapping_fault_count();
  for (const auto& named : tensors) check_mapping_intact(named.tensor.storage()->data());
  Output file(path, resolve_target(path));
  unsigned char prefix[8];
  for (int k = 0; k < 8; ++k) prefix[k] = static_cast<unsigned char>(header.size() >> (8 * k));
  file.write(prefix, sizeof prefix);
  file.write(header.data(), header.size());
  uint64_t done = 8 + header.size();
  Staging staging;
  // Declared after the staging buffers and the file it writes: destroyed (joined) first.
  WriteBehind behind([&file](const void* data, size_t nbytes) { file.write(data, nbytes); });
  Destination to{file, behind, max_threads() > 1};
  // The transposes leave a core to the writing thread.
  const ThreadReservation for_writing(to.overlap ? 1 : 0);
  for (const size_t k : data_order(tensors)) {
    const uint64_t before = done;
    write_tensor(to, tensors[k].tensor, staging, [&](uint64_t bytes) {
      done = before + bytes;
      if (options.progress) options.progress(done, total);
    });
  }
  behind.drain();
  // Bytes read from a file truncated under a mapped tensor were zeros: never commit them.
  check_no_mapping_faults(faults_before);
  file.commit();
  if (options.progress) options.progress(total, total);
}

}  // namespace ndbuf
