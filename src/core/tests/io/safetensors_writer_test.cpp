// The safetensors writer's targets (links, devices, FIFOs, long names), its error messages,
// and the reader's handling of dtypes it cannot hold.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/convert/buffer.hpp"
#include "ndbuf/io/safetensors.hpp"
#include "safetensors_bytes.hpp"

namespace ndbuf {
namespace {

using safetensors_bytes::as_storage;
using safetensors_bytes::file_bytes;

// A fresh folder under /tmp, removed (with whatever is left in it) at the end of the test.
class Folder {
 public:
  Folder() {
    char name[] = "/tmp/ndbuf-wr-XXXXXX";
    path_ = ::mkdtemp(name);
  }
  ~Folder() {
    if (std::system(("rm -rf '" + path_ + "'").c_str()) != 0) ADD_FAILURE() << "left " << path_;
  }
  std::string file(const std::string& name) const { return path_ + "/" + name; }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

std::vector<NamedTensor> one_tensor() {
  const std::string bytes = "\1\2\3\4";
  return {{"a", buffer_from_bytes(bytes.data(), 4, DType::kU8, {4}, Order::kRowMajor, Device{})}};
}

std::string message_of_save(const std::string& path) {
  try {
    save_safetensors(path, one_tensor(), std::nullopt);
  } catch (const Error& e) {
    return e.what();
  }
  return "saved";
}

bool is_regular(const std::string& path) {
  struct stat info;
  return ::stat(path.c_str(), &info) == 0 && S_ISREG(info.st_mode);
}

TEST(SafetensorsWriter, FollowsLinksAndCreatesADanglingLinksTarget) {
  Folder dir;
  ASSERT_EQ(::symlink("made.safetensors", dir.file("link").c_str()), 0);
  EXPECT_EQ(message_of_save(dir.file("link")), "saved");
  struct stat info;
  ASSERT_EQ(::lstat(dir.file("link").c_str(), &info), 0);
  EXPECT_TRUE(S_ISLNK(info.st_mode));  // still the link
  EXPECT_TRUE(is_regular(dir.file("made.safetensors")));
  EXPECT_EQ(load_safetensors(dir.file("link")).tensors.size(), 1u);
}

TEST(SafetensorsWriter, RefusesASymlinkLoop) {
  Folder dir;
  ASSERT_EQ(::symlink("b", dir.file("a").c_str()), 0);
  ASSERT_EQ(::symlink("a", dir.file("b").c_str()), 0);
  EXPECT_EQ(message_of_save(dir.file("a")),
            "Cannot write '" + dir.file("a") +
                "': its symbolic links form a loop (or a chain of more than 40).");
  struct stat info;
  ASSERT_EQ(::lstat(dir.file("a").c_str(), &info), 0);
  EXPECT_TRUE(S_ISLNK(info.st_mode));
}

TEST(SafetensorsWriter, WritesThroughCharacterDevicesWithoutReplacingThem) {
  EXPECT_EQ(message_of_save("/dev/null"), "saved");
  struct stat info;
  ASSERT_EQ(::stat("/dev/null", &info), 0);
  EXPECT_TRUE(S_ISCHR(info.st_mode));
}

TEST(SafetensorsWriter, WritesThroughAFifoAndRefusesOneWithoutReader) {
  Folder dir;
  const std::string fifo = dir.file("pipe");
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_EQ(message_of_save(fifo), "Cannot write '" + fifo + "': it is a FIFO with no reader.");
  const int reader = ::open(fifo.c_str(), O_RDONLY | O_NONBLOCK);
  ASSERT_GE(reader, 0);
  EXPECT_EQ(message_of_save(fifo), "saved");
  char bytes[256];
  const ssize_t n = ::read(reader, bytes, sizeof bytes);
  ::close(reader);
  // The prefix, the 53-byte header padded to 56, and the data.
  EXPECT_EQ(n, 8 + 56 + 4);
  struct stat info;
  ASSERT_EQ(::stat(fifo.c_str(), &info), 0);
  EXPECT_TRUE(S_ISFIFO(info.st_mode));
}

TEST(SafetensorsWriter, ALongestLegalNameWorks) {
  Folder dir;
  const std::string name = std::string(251, 'n') + ".st";  // 254 bytes
  EXPECT_EQ(message_of_save(dir.file(name)), "saved");
  EXPECT_EQ(message_of_save(dir.file(name + "x")), "saved");  // 255 bytes
  EXPECT_TRUE(is_regular(dir.file(name + "x")));
}

TEST(SafetensorsWriter, ErrorsNameTheTargetNotATemporaryFile) {
  Folder dir;
  const std::string missing = dir.file("no-such-folder/out.safetensors");
  EXPECT_EQ(message_of_save(missing), "Cannot write '" + missing + "': No such file or directory.");
  EXPECT_EQ(message_of_save(dir.path()), "Cannot write '" + dir.path() + "': Is a directory.");
}

TEST(SafetensorsWriter, HeaderMatchesTheJsonLibrarysLayout) {
  const auto tensors = one_tensor();
  EXPECT_EQ(safetensors_header(tensors, SafetensorsMetadata{{"k", "v\"q"}}),
            "{\"__metadata__\":{\"k\":\"v\\\"q\"},\"a\":{\"dtype\":\"U8\",\"shape\":[4],"
            "\"data_offsets\":[0,4]}}");
  EXPECT_EQ(safetensors_header({}, std::nullopt), "{}");
}

// A file with an F8_E8M0 tensor between two supported ones.
std::string mixed_file() {
  const std::string header =
      "{\"w\":{\"dtype\":\"F8_E8M0\",\"shape\":[2,2],\"data_offsets\":[0,4]},"
      "\"s\":{\"dtype\":\"F4\",\"shape\":[4],\"data_offsets\":[4,6]},"
      "\"b\":{\"dtype\":\"U8\",\"shape\":[2],\"data_offsets\":[6,8]}}";
  return file_bytes(header, std::string("\1\2\3\4\5\6\7\10", 8));
}

TEST(SafetensorsDTypes, UnsupportedTensorsAreCheckedOnlyWhenLoaded) {
  SafetensorsLoadOptions options;
  options.names = std::vector<std::string>{"b"};
  const auto contents = load_safetensors(as_storage(mixed_file()), options);
  ASSERT_EQ(contents.tensors.size(), 1u);
  EXPECT_EQ(static_cast<const unsigned char*>(contents.tensors[0].tensor.data())[1], 8);
  const SafetensorsHeader header = parse_safetensors(mixed_file().data(), mixed_file().size());
  EXPECT_EQ(header.tensors[0].unsupported, "F8_E8M0");
  EXPECT_EQ(header.tensors[1].element_bits, 4u);
  try {
    load_safetensors(as_storage(mixed_file()));
    ADD_FAILURE() << "loaded";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kInvalidArgument);
    EXPECT_EQ(std::string(e.what()),
              "Tensor \"w\" has the unsupported dtype F8_E8M0; select the other tensors by name "
              "to load them.");
  }
}

TEST(SafetensorsDTypes, TagSizes) {
  EXPECT_EQ(safetensors_tag_bits("F8_E5M2"), 8u);
  EXPECT_EQ(safetensors_tag_bits("F8_E8M0"), 8u);
  EXPECT_EQ(safetensors_tag_bits("F6_E2M3"), 6u);
  EXPECT_EQ(safetensors_tag_bits("BF16"), 16u);
  EXPECT_EQ(safetensors_tag_bits("C64"), 64u);
  EXPECT_EQ(safetensors_tag_bits("F7"), 0u);
}

TEST(SafetensorsDTypes, MinusZeroIsTheDimensionZero) {
  const std::string bytes =
      file_bytes("{\"a\":{\"dtype\":\"F32\",\"shape\":[-0, 3],\"data_offsets\":[0,0]}}");
  const auto contents = load_safetensors(as_storage(bytes));
  EXPECT_EQ(contents.tensors[0].tensor.shape(), (Shape{0, 3}));
}

}  // namespace
}  // namespace ndbuf
