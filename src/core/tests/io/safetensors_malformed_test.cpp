// The reader against malformed files: every rule of the format broken at least once, every
// truncation of a valid file, random bytes and random mutations. Each must be an
// ndbuf::Error with a clear message, never a crash (the fuzz target goes further).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "ndbuf/base/error.hpp"
#include "ndbuf/io/safetensors.hpp"
#include "safetensors_bytes.hpp"

namespace ndbuf {
namespace {

using safetensors_bytes::as_storage;
using safetensors_bytes::file_bytes;
using safetensors_bytes::le64;

// A tensor entry.
std::string entry(const std::string& name, const std::string& dtype, const std::string& shape,
                  const std::string& offsets) {
  return "\"" + name + "\":{\"dtype\":\"" + dtype + "\",\"shape\":" + shape +
         ",\"data_offsets\":" + offsets + "}";
}

struct Case {
  const char* rule;
  std::string bytes;
  std::string message;  // after "Invalid safetensors file: "
};

const std::string kF32x2 = entry("a", "F32", "[2]", "[0,8]");

std::vector<Case> corpus() {
  const std::string d8(8, '\0');
  return {
      {"empty file", "", "it has 0 bytes, fewer than the 8 bytes of its header length"},
      {"shorter than 8 bytes", std::string(7, '\x02'),
       "it has 7 bytes, fewer than the 8 bytes of its header length"},
      {"header length over the limit", le64(100000001) + "{}",
       "its header length 100000001 exceeds the limit of 100000000 bytes"},
      {"header length 2^64 - 1", le64(~uint64_t{0}) + "{}",
       "its header length 18446744073709551615 exceeds the limit of 100000000 bytes"},
      {"header past the end", le64(100) + "{}",
       "its header length 100 runs past the end of the file (10 bytes)"},
      {"header not UTF-8", file_bytes("{\"\xff\":1}"),
       "its header is not valid UTF-8 (byte 0xFF at header position 3)"},
      {"overlong UTF-8", file_bytes("{\"\xc0\x80\":1}"),
       "its header is not valid UTF-8 (byte 0xC0 at header position 3)"},
      {"UTF-8 surrogate", file_bytes("{\"\xed\xa0\x80\":1}"),
       "its header is not valid UTF-8 (byte 0xED at header position 3)"},
      {"empty header", file_bytes(""), "its header must be a JSON object beginning with '{'"},
      {"header an array", file_bytes("[]"), "its header must be a JSON object beginning with '{'"},
      {"leading space", file_bytes(" {}"), "its header must be a JSON object beginning with '{'"},
      {"invalid JSON", file_bytes("{\"a\":}"),
       "its header is not valid JSON: parse error at line 1, column 6: syntax error while "
       "parsing value - unexpected '}'; expected '[', '{', or a literal"},
      {"truncated JSON", file_bytes("{\"a\":{\"dtype\""),
       "its header is not valid JSON: parse error at line 1, column 14: syntax error while "
       "parsing object separator - unexpected end of input; expected ':'"},
      {"text after the object", file_bytes("{} x"),
       "its header is not valid JSON: parse error at line 1, column 4: syntax error while "
       "parsing value - invalid literal; last read: '{} x'; expected end of input"},
      {"NUL padding", file_bytes(std::string("{}\0\0\0\0\0\0", 8)),
       "its header is not valid JSON: a NUL byte at header position 3"},
      {"NUL inside a key", file_bytes(std::string("{\"a\0\":1}", 8)),
       "its header is not valid JSON: a NUL byte at header position 4"},
      {"tensor not an object", file_bytes("{\"a\":[1]}"),
       "tensor \"a\" must be a JSON object with dtype, shape and data_offsets"},
      {"unknown dtype", file_bytes("{" + entry("a", "F17", "[2]", "[0,8]") + "}", d8),
       "tensor \"a\" has the dtype \"F17\", which is not one of BOOL, I8, I16, I32, I64, U8, "
       "U16, U32, U64, F16, BF16, F32, F64, C64, C128, F8_E4M3, F8_E5M2, F8_E8M0, F6_E2M3, "
       "F6_E3M2, F4"},
      {"float8 of the wrong size", file_bytes("{" + entry("a", "F8_E4M3", "[8]", "[0,4]") + "}"),
       "tensor \"a\" of shape (8) and dtype F8_E4M3 needs 8 bytes, but its data_offsets span 4 "
       "bytes"},
      {"float4 of an odd count", file_bytes("{" + entry("a", "F4", "[3]", "[0,2]") + "}", "ab"),
       "tensor \"a\" of shape (3) and dtype F4 fills 12 bits, not a whole number of bytes"},
      {"lower-case dtype", file_bytes("{" + entry("a", "f32", "[2]", "[0,8]") + "}", d8),
       "tensor \"a\" has the dtype \"f32\", which is not one of BOOL, I8, I16, I32, I64, U8, "
       "U16, U32, U64, F16, BF16, F32, F64, C64, C128, F8_E4M3, F8_E5M2, F8_E8M0, F6_E2M3, "
       "F6_E3M2, F4"},
      {"dtype not a string",
       file_bytes("{\"a\":{\"dtype\":4,\"shape\":[2],\"data_offsets\":[0,8]}}", d8),
       "the dtype of tensor \"a\" must be a string"},
      {"negative dimension", file_bytes("{" + entry("a", "F32", "[-2]", "[0,8]") + "}", d8),
       "the shape of tensor \"a\" has the negative dimension -2"},
      {"fractional dimension", file_bytes("{" + entry("a", "F32", "[2.0]", "[0,8]") + "}", d8),
       "the shape of tensor \"a\" must be an array of non-negative integers"},
      {"shape not an array", file_bytes("{" + entry("a", "F32", "2", "[0,8]") + "}", d8),
       "the shape of tensor \"a\" must be an array of non-negative integers"},
      {"nested shape", file_bytes("{" + entry("a", "F32", "[[2]]", "[0,8]") + "}", d8),
       "the shape of tensor \"a\" must be an array of non-negative integers"},
      {"string in shape", file_bytes("{" + entry("a", "F32", "[\"2\"]", "[0,8]") + "}", d8),
       "the shape of tensor \"a\" must be an array of non-negative integers"},
      {"dimension beyond 2^63",
       file_bytes("{" + entry("a", "U8", "[9223372036854775808]", "[0,8]") + "}", d8),
       "the shape of tensor \"a\" has the dimension 9223372036854775808, beyond 2^63 - 1"},
      {"dimension beyond 2^64",
       file_bytes("{" + entry("a", "U8", "[18446744073709551616]", "[0,8]") + "}", d8),
       "the shape of tensor \"a\" must be an array of non-negative integers"},
      {"one offset", file_bytes("{" + entry("a", "F32", "[2]", "[8]") + "}", d8),
       "the data_offsets of tensor \"a\" must be an array of two non-negative integers"},
      {"three offsets", file_bytes("{" + entry("a", "F32", "[2]", "[0,8,8]") + "}", d8),
       "the data_offsets of tensor \"a\" must be an array of two non-negative integers"},
      {"negative offset", file_bytes("{" + entry("a", "F32", "[2]", "[-8,0]") + "}", d8),
       "the data_offsets of tensor \"a\" must be an array of two non-negative integers"},
      {"offsets not an array", file_bytes("{" + entry("a", "F32", "[2]", "{}") + "}", d8),
       "the data_offsets of tensor \"a\" must be an array of two non-negative integers"},
      {"no dtype", file_bytes("{\"a\":{\"shape\":[2],\"data_offsets\":[0,8]}}", d8),
       "tensor \"a\" lacks \"dtype\""},
      {"no shape", file_bytes("{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,8]}}", d8),
       "tensor \"a\" lacks \"shape\""},
      {"no offsets", file_bytes("{\"a\":{\"dtype\":\"F32\",\"shape\":[2]}}", d8),
       "tensor \"a\" lacks \"data_offsets\""},
      {"metadata not an object", file_bytes("{\"__metadata__\":\"x\"}"),
       "__metadata__ must be a JSON object of strings"},
      {"metadata value a number", file_bytes("{\"__metadata__\":{\"k\":1}}"),
       "the __metadata__ value of \"k\" must be a string"},
      {"metadata value an object", file_bytes("{\"__metadata__\":{\"k\":{}}}"),
       "the __metadata__ value of \"k\" must be a string"},
      {"duplicate tensor",
       file_bytes("{" + kF32x2 + "," + entry("a", "F32", "[2]", "[8,16]") + "}", d8 + d8),
       "the name \"a\" appears twice in its header"},
      {"duplicate metadata", file_bytes("{\"__metadata__\":{},\"__metadata__\":{}}"),
       "the name \"__metadata__\" appears twice in its header"},
      {"duplicate field",
       file_bytes("{\"a\":{\"dtype\":\"F32\",\"dtype\":\"F32\",\"shape\":[2],"
                  "\"data_offsets\":[0,8]}}",
                  d8),
       "tensor \"a\" has \"dtype\" twice"},
      {"duplicate metadata key", file_bytes("{\"__metadata__\":{\"k\":\"1\",\"k\":\"2\"}}"),
       "__metadata__ has the key \"k\" twice"},
      {"first tensor not at 0",
       file_bytes("{" + entry("a", "F32", "[2]", "[4,12]") + "}", d8 + "1234"),
       "tensor \"a\" begins at byte 4 of the data, but the first tensor must begin at byte 0"},
      {"gap between tensors",
       file_bytes("{" + kF32x2 + "," + entry("b", "U8", "[1]", "[9,10]") + "}", d8 + "12"),
       "tensor \"b\" begins at byte 9 of the data, leaving a gap after tensor \"a\", which ends "
       "at byte 8"},
      {"overlapping tensors",
       file_bytes("{" + kF32x2 + "," + entry("b", "U8", "[4]", "[4,8]") + "}", d8),
       "tensor \"b\" begins at byte 4 of the data, overlapping tensor \"a\", which ends at byte 8"},
      {"offsets backwards", file_bytes("{" + entry("a", "F32", "[2]", "[8,0]") + "}", d8),
       "the data_offsets of tensor \"a\" end (0) before they begin (8)"},
      {"size not matching offsets",
       file_bytes("{" + entry("a", "F32", "[2]", "[0,4]") + "}", "1234"),
       "tensor \"a\" of shape (2) and dtype F32 needs 8 bytes, but its data_offsets span 4 bytes"},
      {"size overflow",
       file_bytes("{" + entry("a", "F32", "[4611686018427387904,4]", "[0,8]") + "}", d8),
       "the size of tensor \"a\" (shape (4611686018427387904, 4) of F32) overflows a 64-bit "
       "count"},
      {"bytes overflow",
       file_bytes("{" + entry("a", "F64", "[4611686018427387904]", "[0,8]") + "}", d8),
       "the size of tensor \"a\" (shape (4611686018427387904) of F64) overflows a 64-bit count"},
      {"empty but huge",
       file_bytes("{" + entry("a", "U8", "[0,4294967296,4294967296]", "[0,0]") + "}"),
       "the size of tensor \"a\" (shape (0, 4294967296, 4294967296) of U8) overflows a 64-bit "
       "count"},
      {"data past the end", file_bytes("{" + entry("a", "F32", "[2]", "[0,8]") + "}", "1234"),
       "tensor \"a\" ends at byte 8 of the data, but the file has only 4 bytes of data after "
       "its header"},
      {"one byte of data", file_bytes("{" + entry("a", "F32", "[2]", "[0,8]") + "}", "1"),
       "tensor \"a\" ends at byte 8 of the data, but the file has only 1 byte of data after "
       "its header"},
      {"offsets near 2^64",
       file_bytes("{" + entry("a", "U8", "[1]", "[0,18446744073709551615]") + "}"),
       "tensor \"a\" of shape (1) and dtype U8 needs 1 byte, but its data_offsets span "
       "18446744073709551615 bytes"},
      {"trailing bytes", file_bytes("{" + kF32x2 + "}", d8 + "xyz"),
       "the file has 3 bytes after the end of its last tensor"},
      {"trailing bytes, no tensors", file_bytes("{}", "x"),
       "the file has 1 byte after the end of its last tensor"},
      {"BOOL byte not 0 or 1",
       file_bytes("{" + entry("p", "BOOL", "[2,2]", "[0,4]") + "}", std::string("\1\0\2\1", 4)),
       "tensor \"p\" (BOOL) holds the byte 2 at position 3, but BOOL bytes must be 0 or 1"},
  };
}

TEST(SafetensorsMalformed, EveryRuleHasItsOwnClearError) {
  for (const auto& c : corpus()) {
    try {
      load_safetensors(as_storage(c.bytes));
      ADD_FAILURE() << c.rule << ": accepted";
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kFormat) << c.rule;
      EXPECT_EQ(std::string(e.what()), "Invalid safetensors file: " + c.message + ".") << c.rule;
    }
  }
}

TEST(SafetensorsMalformed, ErrorsFromAPathNameThePath) {
  const std::string path = "/tmp/ndbuf-malformed-" + std::to_string(::getpid());
  std::ofstream(path, std::ios::binary) << le64(100) << "{}";
  try {
    load_safetensors(path);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "Invalid safetensors file '" + path +
                                         "': its header length 100 runs past the end of the "
                                         "file (10 bytes).");
  }
  std::remove(path.c_str());
  try {
    load_safetensors(path);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kIo);
    EXPECT_EQ(std::string(e.what()), "Cannot open '" + path + "': No such file or directory.");
  }
  try {
    load_safetensors(std::string("/tmp"));
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()), "Cannot read '/tmp': Is a directory.");
  }
}

TEST(SafetensorsMalformed, AcceptsWhatTheReferenceAccepts) {
  // Unknown fields in an entry are skipped; null metadata means none; whitespace and
  // escapes are JSON; zero-size tensors may share an offset.
  const std::string header =
      "{\"__metadata__\":null,\"a\":{\"extra\":{\"x\":[1,{\"y\":null}]},\"dtype\":\"U8\","
      "\"shape\":[0,3],\"data_offsets\":[0,0]},\n\"b\\u00e9\" : {\"dtype\":\"U8\",\"shape\":[],"
      "\"data_offsets\":[0,1], \"z\": true},\"c\":{\"shape\":[0],\"dtype\":\"F64\","
      "\"data_offsets\":[0,0]}}   ";
  const auto contents = load_safetensors(as_storage(file_bytes(header, "Q")));
  EXPECT_FALSE(contents.metadata.has_value());
  ASSERT_EQ(contents.tensors.size(), 3u);
  EXPECT_EQ(contents.tensors[1].name, "b\xc3\xa9");
  EXPECT_EQ(contents.tensors[1].tensor.shape(), Shape{});
  EXPECT_EQ(static_cast<const char*>(contents.tensors[1].tensor.data())[0], 'Q');
  EXPECT_EQ(contents.tensors[0].tensor.shape(), (Shape{0, 3}));
}

TEST(SafetensorsMalformed, DeepNestingInAnUnknownFieldIsSkippedWithoutRecursion) {
  const int depth = 1000000;
  const std::string header = "{\"a\":{\"x\":" + std::string(depth, '[') + std::string(depth, ']') +
                             ",\"dtype\":\"U8\",\"shape\":[1],\"data_offsets\":[0,1]}}";
  EXPECT_EQ(load_safetensors(as_storage(file_bytes(header, "z"))).tensors.size(), 1u);
  const std::string open_only = "{\"a\":{\"x\":" + std::string(depth, '[');
  EXPECT_THROW(load_safetensors(as_storage(file_bytes(open_only))), Error);
}

TEST(SafetensorsMalformed, RejectsWhatIsNotARegularFile) {
  const std::string fifo = "/tmp/ndbuf-fifo-" + std::to_string(::getpid());
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  try {
    load_safetensors(fifo);
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "Cannot read '" + fifo + "': it is a FIFO (named pipe), not a regular file.");
  }
  ::unlink(fifo.c_str());
  try {
    load_safetensors(std::string("/dev/zero"));
    ADD_FAILURE() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.kind(), ErrorKind::kIo);
    EXPECT_EQ(std::string(e.what()),
              "Cannot read '/dev/zero': it is a character device, not a regular file.");
  }
}

std::string valid_file() {
  std::string header =
      "{\"__metadata__\":{\"format\":\"pt\"}," + entry("w", "F32", "[2,3]", "[0,24]") + "," +
      entry("b", "I64", "[2]", "[24,40]") + "," + entry("e", "BF16", "[0]", "[40,40]") + "}";
  std::string data(40, '\0');
  for (size_t k = 0; k < data.size(); ++k) data[k] = static_cast<char>(k * 7);
  return file_bytes(header, data);
}

TEST(SafetensorsMalformed, EveryTruncationIsRejected) {
  const std::string full = valid_file();
  ASSERT_EQ(load_safetensors(as_storage(full)).tensors.size(), 3u);
  for (size_t n = 0; n < full.size(); ++n) {
    EXPECT_THROW(load_safetensors(as_storage(full.substr(0, n))), Error) << n;
  }
}

TEST(SafetensorsMalformed, RandomBytesAndMutationsNeverEscapeAsOtherErrors) {
  std::mt19937_64 rng(2024);
  const std::string full = valid_file();
  int accepted = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string bytes;
    if (round % 2 == 0) {
      bytes.resize(rng() % 200);
      for (auto& c : bytes) c = static_cast<char>(rng());
      if (bytes.size() >= 8 && round % 4 == 0) {  // a plausible length prefix
        const std::string n = le64(bytes.size() - 8 - rng() % 4);
        bytes.replace(0, 8, n);
      }
    } else {
      bytes = full;
      for (int flips = 1 + static_cast<int>(rng() % 3); flips > 0; --flips) {
        bytes[rng() % bytes.size()] = static_cast<char>(rng());
      }
    }
    try {
      const auto contents = load_safetensors(as_storage(bytes));
      ++accepted;
      for (const auto& t : contents.tensors) {
        volatile char sink = 0;
        const auto* p = static_cast<const char*>(t.tensor.data());
        for (int64_t k = 0; k < t.tensor.nbytes(); ++k) sink = static_cast<char>(sink ^ p[k]);
      }
    } catch (const Error& e) {
      EXPECT_EQ(e.kind(), ErrorKind::kFormat) << e.what();
    }
  }
  EXPECT_GT(accepted, 0);  // some mutations only touch data bytes
}

}  // namespace
}  // namespace ndbuf
