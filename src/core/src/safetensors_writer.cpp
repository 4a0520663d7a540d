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

#include "ndbuf/error.hpp"
#include "ndbuf/reorder.hpp"
#include "ndbuf/safetensors.hpp"
#include "safetensors_internal.hpp"

namespace ndbuf {
namespace {

constexpr int64_t kChunkBytes = int64_t{16} << 20;

using OrderedJson = nlohmann::ordered_json;

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
    if (tensor.device().platform != Platform::kCpu) {
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

[[noreturn]] void fail_io(const std::string& what, const std::string& path, int err) {
  fail(ErrorKind::kIo, "Cannot " + what + " '" + path + "': " + std::strerror(err) + ".");
}

// A temporary file beside the destination, removed unless commit() renamed it into place.
class TempFile {
 public:
  explicit TempFile(std::string target) : target_(std::move(target)) {
    static std::atomic<unsigned> counter{0};
    for (int attempt = 0; fd_ < 0; ++attempt) {
      path_ = target_ + ".tmp" + std::to_string(::getpid()) + "-" +
              std::to_string(counter.fetch_add(1));
      fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
      if (fd_ < 0 && (errno != EEXIST || attempt > 100)) fail_io("create", path_, errno);
    }
    struct stat old;
    if (::stat(target_.c_str(), &old) == 0 && S_ISREG(old.st_mode)) {
      // Keep the replaced file's permissions; failing to is no reason to stop.
      if (::fchmod(fd_, old.st_mode & 07777) != 0) errno = 0;
    }
  }
  ~TempFile() {
    if (fd_ >= 0) ::close(fd_);
    if (!committed_) ::unlink(path_.c_str());
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;

  void write(const void* data, size_t nbytes) {
    const char* p = static_cast<const char*>(data);
    while (nbytes > 0) {
      const ssize_t n = ::write(fd_, p, std::min<size_t>(nbytes, size_t{1} << 30));
      if (n < 0) {
        if (errno == EINTR) continue;
        fail_io("write", path_, errno);
      }
      p += n;
      nbytes -= static_cast<size_t>(n);
    }
  }

  void commit() {
    const int fd = fd_;
    fd_ = -1;
    if (::close(fd) != 0) fail_io("write", path_, errno);
    if (::rename(path_.c_str(), target_.c_str()) != 0) fail_io("replace", target_, errno);
    committed_ = true;
  }

 private:
  std::string target_;
  std::string path_;
  int fd_ = -1;
  bool committed_ = false;
};

// Where to write: the file a symbolic link points to, so that renaming replaces that file.
std::string resolve_target(const std::string& path) {
  struct stat info;
  if (::lstat(path.c_str(), &info) == 0 && S_ISLNK(info.st_mode)) {
    char* real = ::realpath(path.c_str(), nullptr);
    if (real != nullptr) {
      std::string out(real);
      std::free(real);
      return out;
    }
  }
  return path;
}

using Tick = std::function<void(uint64_t bytes)>;

// One transposing buffer for a whole write, grown on demand (fresh pages cost as much as the
// transpose itself).
class Staging {
 public:
  char* get(size_t nbytes) {
    if (nbytes > size_) {
      data_.reset(new (std::nothrow) char[nbytes]);
      size_ = data_ ? nbytes : 0;
      if (!data_) {
        fail(ErrorKind::kOutOfMemory, "Cannot allocate " + std::to_string(nbytes) +
                                          " bytes to transpose a tensor for writing.");
      }
    }
    return data_.get();
  }

 private:
  std::unique_ptr<char[]> data_;
  size_t size_ = 0;
};

// Writes the tensor's elements in row-major order, transposing through a bounded buffer
// when the tensor is not already laid out that way.
void write_tensor(TempFile& file, const Tensor& t, Staging& staging, const Tick& tick) {
  const auto nbytes = static_cast<uint64_t>(t.nbytes());
  if (nbytes == 0) return;
  const char* src = static_cast<const char*>(t.data());
  if (t.is_contiguous(Order::kRowMajor)) {
    for (uint64_t done = 0; done < nbytes;) {
      const uint64_t step = std::min<uint64_t>(kChunkBytes, nbytes - done);
      file.write(src + done, step);
      done += step;
      tick(done);
    }
    return;
  }
  const Shape& shape = t.shape();
  const size_t item = itemsize(t.dtype());
  size_t slow = 0;  // the first axis longer than 1: row-major output is sliced along it
  while (shape[slow] == 1) ++slow;
  const int64_t unit = t.numel() / shape[slow];
  const int64_t per_chunk = std::max<int64_t>(1, kChunkBytes / (unit * static_cast<int64_t>(item)));
  const size_t chunk_bytes =
      static_cast<size_t>(std::min(per_chunk, shape[slow]) * unit) * item;
  char* buffer = staging.get(chunk_bytes);
  const Strides dst_strides = contiguous_strides(shape, Order::kRowMajor);
  uint64_t done = 0;
  for (int64_t i0 = 0; i0 < shape[slow]; i0 += per_chunk) {
    Shape sub = shape;
    sub[slow] = std::min(shape[slow], i0 + per_chunk) - i0;
    const auto offset = i0 * t.strides()[slow] * static_cast<int64_t>(item);
    copy_strided_parallel(src + offset, t.strides(), buffer, dst_strides, sub, item);
    const uint64_t bytes = static_cast<uint64_t>(sub[slow] * unit) * item;
    file.write(buffer, bytes);
    done += bytes;
    tick(done);
  }
}

}  // namespace

std::string safetensors_header(const std::vector<NamedTensor>& tensors,
                               const std::optional<SafetensorsMetadata>& metadata,
                               const SafetensorsSaveOptions& options) {
  check_tensors(tensors, options);
  OrderedJson header = OrderedJson::object();
  if (metadata) {
    OrderedJson meta = OrderedJson::object();
    for (const auto& [key, value] : *metadata) {
      check_utf8(key, "A metadata key");
      check_utf8(value, "The metadata value of \"" + key + "\"");
      if (meta.contains(key)) {
        fail(ErrorKind::kInvalidArgument, "The metadata key \"" + key + "\" is used twice.");
      }
      meta[key] = value;
    }
    header["__metadata__"] = std::move(meta);
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
    OrderedJson entry = OrderedJson::object();
    entry["dtype"] = std::string(dtype_info(t.dtype()).safetensors);
    entry["shape"] = OrderedJson::array();
    for (const int64_t d : t.shape()) entry["shape"].push_back(static_cast<uint64_t>(d));
    entry["data_offsets"] = OrderedJson::array({offsets[k].first, offsets[k].second});
    header[tensors[k].name] = std::move(entry);
  }
  return header.dump();
}

void save_safetensors(const std::string& path, const std::vector<NamedTensor>& tensors,
                      const std::optional<SafetensorsMetadata>& metadata,
                      const SafetensorsSaveOptions& options) {
  std::string header = safetensors_header(tensors, metadata, options);
  header.append((8 - header.size() % 8) % 8, ' ');
  uint64_t total = 8 + header.size();
  for (const auto& named : tensors) total += static_cast<uint64_t>(named.tensor.nbytes());

  TempFile file(resolve_target(path));
  unsigned char prefix[8];
  for (int k = 0; k < 8; ++k) prefix[k] = static_cast<unsigned char>(header.size() >> (8 * k));
  file.write(prefix, sizeof prefix);
  file.write(header.data(), header.size());
  uint64_t done = 8 + header.size();
  Staging staging;
  for (const size_t k : data_order(tensors)) {
    const uint64_t before = done;
    write_tensor(file, tensors[k].tensor, staging, [&](uint64_t bytes) {
      done = before + bytes;
      if (options.progress) options.progress(done, total);
    });
  }
  file.commit();
  if (options.progress) options.progress(total, total);
}

}  // namespace ndbuf
