#pragma once
// The error every backend throws when a buffer cannot grow: it names the backend, the element
// count and size and the bytes asked for (the Simulator adds what the buffer was for), instead of
// a bare std::bad_alloc or a CUDA error code.
#include <cstddef>
#include <cstdio>
#include <stdexcept>
#include <string>

namespace dem {

class allocation_error : public std::runtime_error {
 public:
  allocation_error(const char* backend, std::size_t elements, std::size_t element_size, const std::string& reason = "")
      : std::runtime_error(message(backend, elements, element_size, reason)), bytes_(bytes_of(elements, element_size)) {}
  // An allocation outside the backends' buffers (std::bad_alloc from scratch) whose size is unknown.
  explicit allocation_error(const std::string& message) : std::runtime_error(message), bytes_(0) {}
  allocation_error(const std::string& context, const allocation_error& inner)
      : std::runtime_error(context + ": " + inner.what()), bytes_(inner.bytes_) {}
  // Bytes asked for (the largest std::size_t where the count times the size overflows; 0: unknown).
  std::size_t bytes() const { return bytes_; }

 private:
  static std::size_t bytes_of(std::size_t n, std::size_t size) { return size && n > std::size_t(-1) / size ? std::size_t(-1) : n * size; }
  static std::string message(const char* backend, std::size_t n, std::size_t size, const std::string& reason) {
    char b[160];
    std::snprintf(b, sizeof b, "dem::backend::%s: cannot allocate %zu elements of %zu bytes (%.4g bytes)", backend, n, size,
                  static_cast<double>(n) * static_cast<double>(size));
    return std::string(b) + (reason.empty() ? "" : ": " + reason);
  }
  std::size_t bytes_;
};

}  // namespace dem
