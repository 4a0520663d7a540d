// Typed errors thrown by the ndbuf core. Every message is complete and user-facing:
// the R bindings pass it through verbatim.
#pragma once

#include <stdexcept>
#include <string>

namespace ndbuf {

enum class ErrorKind {
  kInvalidArgument,  // a malformed shape, dtype name, option value
  kConversion,       // a value the target dtype cannot hold
  kIndex,            // an index or slice bound outside an axis
  kFormat,           // a malformed file (safetensors)
  kIo,               // the operating system refused a read or write
  kDevice,           // a missing platform, device or driver
  kOutOfMemory,      // an allocation failed
  kInterrupted,      // the user interrupted a long loop
};

class Error : public std::runtime_error {
 public:
  Error(ErrorKind kind, const std::string& message) : std::runtime_error(message), kind_(kind) {}
  ErrorKind kind() const noexcept { return kind_; }

 private:
  ErrorKind kind_;
};

// Raised when a value cannot be stored in the target dtype; carries the 0-based position.
class ConversionError : public Error {
 public:
  ConversionError(const std::string& message, int64_t position)
      : Error(ErrorKind::kConversion, message), position_(position) {}
  int64_t position() const noexcept { return position_; }

 private:
  int64_t position_;
};

[[noreturn]] inline void fail(ErrorKind kind, const std::string& message) {
  throw Error(kind, message);
}

}  // namespace ndbuf
