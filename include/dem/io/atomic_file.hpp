#pragma once
// Files that survive a crash or a full disk: written under a temporary name beside the target
// (<path>.tmp-<pid>), flushed to the disk (fsync), then renamed over the target, so that the
// target is always either the previous complete file or the new complete one. A failure (disk
// full, file-size limit, missing directory) throws std::runtime_error naming the path and the
// reason, and removes the temporary; a writer destroyed before commit() removes it too.
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <string>

#include <fcntl.h>
#include <unistd.h>

namespace dem::io {

namespace detail {
// Error text "dem::io: <what> '<path>': <errno text>". errno is read first, before anything can change it.
[[noreturn]] inline void throw_errno(const char* what, const std::string& path) {
  const int e = errno;
  throw std::runtime_error("dem::io: " + std::string(what) + " '" + path + "': " + std::strerror(e));
}

inline std::string parent_directory(const std::string& path) {
  const std::size_t slash = path.find_last_of('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}
}  // namespace detail

class atomic_file {
 public:
  explicit atomic_file(std::string path) : path_(std::move(path)), tmp_(path_ + ".tmp-" + std::to_string(::getpid())) {
    f_ = std::fopen(tmp_.c_str(), "wb");
    if (!f_) detail::throw_errno("cannot open for writing", path_);  // the target's name: what the user asked for
  }
  atomic_file(const atomic_file&) = delete;
  atomic_file& operator=(const atomic_file&) = delete;
  ~atomic_file() { abandon(); }

  const std::string& path() const { return path_; }
  std::size_t bytes_written() const { return written_; }

  void write(const void* data, std::size_t n) {
    if (!f_) throw std::logic_error("dem::io::atomic_file: write after commit or failure ('" + path_ + "')");
    if (n && std::fwrite(data, 1, n, f_) != n) fail("cannot write");
    written_ += n;
  }

  // Makes the file durable and visible under its name; the previous file is replaced at once.
  void commit() {
    if (!f_) throw std::logic_error("dem::io::atomic_file: commit twice or after a failure ('" + path_ + "')");
    if (std::fflush(f_) != 0) fail("cannot write");
    if (::fsync(::fileno(f_)) != 0) fail("cannot flush to disk");
    std::FILE* f = f_;
    f_ = nullptr;
    if (std::fclose(f) != 0) {
      const int e = errno;
      ::unlink(tmp_.c_str());
      errno = e;
      detail::throw_errno("cannot write", path_);
    }
    if (std::rename(tmp_.c_str(), path_.c_str()) != 0) {
      const int e = errno;
      ::unlink(tmp_.c_str());
      errno = e;
      detail::throw_errno("cannot rename the temporary file over", path_);
    }
    // The rename itself is durable once the directory is flushed.
    const int dir = ::open(detail::parent_directory(path_).c_str(), O_RDONLY);
    if (dir >= 0) {
      ::fsync(dir);
      ::close(dir);
    }
  }

 private:
  [[noreturn]] void fail(const char* what) {
    const int e = errno;
    abandon();
    errno = e;
    detail::throw_errno(what, path_);
  }
  void abandon() noexcept {
    if (!f_) return;
    std::fclose(f_);
    f_ = nullptr;
    ::unlink(tmp_.c_str());
  }

  std::string path_, tmp_;
  std::FILE* f_ = nullptr;
  std::size_t written_ = 0;
};

// The whole file as bytes; std::runtime_error naming the path and the reason when it cannot be read.
inline std::string read_file(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) detail::throw_errno("cannot open for reading", path);
  std::string bytes;
  char b[1 << 16];
  std::size_t n;
  while ((n = std::fread(b, 1, sizeof b, f)) > 0) bytes.append(b, n);
  const bool bad = std::ferror(f) != 0;
  std::fclose(f);
  if (bad) detail::throw_errno("cannot read", path);
  return bytes;
}

}  // namespace dem::io
