#pragma once
// The checkpoint file format: a header, named records, and an end record with a checksum.
//
//   header   "DEMCKPT\0" | u32 version | u32 0x01020304 (byte order)
//   record   u32 name length | name | u64 element size | u64 count | count * element size bytes
//   end      the record "end" holding one u64: the FNV-1a 64 hash of every byte before it
//
// Integers are little-endian (the byte-order word refuses files from other machines). Records are
// written by checkpoint_writer through an atomic_file (a crash mid-write leaves the previous
// checkpoint), and read by checkpoint_reader, which checks every length against the file before
// reading it, refuses duplicate names, a missing or misplaced end record and a wrong checksum, and
// hands out records only as the element size and count the caller expects. What the records hold
// is the Simulator's business (sim/checkpoint.hpp).
#include <cstdint>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "dem/io/atomic_file.hpp"

namespace dem::io {

namespace checkpoint_format {
inline constexpr char magic[8] = {'D', 'E', 'M', 'C', 'K', 'P', 'T', '\0'};
inline constexpr std::uint32_t version = 2;  // 2: boundaries (moving, meshes) and the wall list replace planes
inline constexpr std::uint32_t byte_order = 0x01020304u;
inline constexpr std::size_t header_size = 16;
inline constexpr std::uint32_t max_name = 256;

// FNV-1a, 64 bits, continued from `h`.
inline std::uint64_t fnv1a(const void* data, std::size_t n, std::uint64_t h = 0xcbf29ce484222325ull) {
  const auto* p = static_cast<const unsigned char*>(data);
  for (std::size_t i = 0; i < n; ++i) {
    h ^= p[i];
    h *= 0x100000001b3ull;
  }
  return h;
}

// The end record's size, and the end record with the checksum of `bytes` appended to them (what
// checkpoint_writer::finish writes; the fuzz target and its seeds use it to make inputs whole).
inline constexpr std::size_t end_record_size = 4 + 3 + 8 + 8 + 8;
inline void append_end_record(std::string& bytes) {
  const std::uint64_t sum = fnv1a(bytes.data(), bytes.size());
  const std::uint32_t len = 3;
  const std::uint64_t element = 8, count = 1;
  bytes.append(reinterpret_cast<const char*>(&len), 4).append("end", 3);
  bytes.append(reinterpret_cast<const char*>(&element), 8).append(reinterpret_cast<const char*>(&count), 8);
  bytes.append(reinterpret_cast<const char*>(&sum), 8);
}
}  // namespace checkpoint_format

class checkpoint_writer {
 public:
  explicit checkpoint_writer(const std::string& path) : file_(path) {
    put(checkpoint_format::magic, 8);
    put_u32(checkpoint_format::version);
    put_u32(checkpoint_format::byte_order);
  }

  void record(std::string_view name, const void* data, std::size_t element_size, std::size_t count) {
    if (name.empty() || name.size() > checkpoint_format::max_name || name == "end")
      throw std::invalid_argument("dem::io::checkpoint_writer: bad record name '" + std::string(name) + "'");
    put_u32(static_cast<std::uint32_t>(name.size()));
    put(name.data(), name.size());
    put_u64(element_size);
    put_u64(count);
    put(data, element_size * count);
  }
  template <class T>
  void value(std::string_view name, const T& v) {
    static_assert(std::is_trivially_copyable_v<T>, "checkpoint_writer::value: T must be trivially copyable");
    record(name, &v, sizeof(T), 1);
  }
  template <class T>
  void array(std::string_view name, const std::vector<T>& v) {
    static_assert(std::is_trivially_copyable_v<T>, "checkpoint_writer::array: T must be trivially copyable");
    record(name, v.data(), sizeof(T), v.size());
  }
  void text(std::string_view name, std::string_view s) { record(name, s.data(), 1, s.size()); }

  // The end record and the commit: the checkpoint appears under its name only now.
  void finish() {
    const std::uint64_t sum = hash_;
    put_u32(3);
    put("end", 3);
    put_u64(8);
    put_u64(1);
    put(&sum, 8);
    file_.commit();
  }

 private:
  void put(const void* p, std::size_t n) {
    file_.write(p, n);
    hash_ = checkpoint_format::fnv1a(p, n, hash_);
  }
  void put_u32(std::uint32_t v) { put(&v, 4); }
  void put_u64(std::uint64_t v) { put(&v, 8); }

  atomic_file file_;
  std::uint64_t hash_ = 0xcbf29ce484222325ull;
};

class checkpoint_reader {
 public:
  // `source` names the bytes in error messages (the path).
  checkpoint_reader(std::string bytes, std::string source) : bytes_(std::move(bytes)), source_(std::move(source)) { parse(); }
  static checkpoint_reader from_file(const std::string& path) { return checkpoint_reader(read_file(path), path); }

  const std::string& source() const { return source_; }
  bool has(const std::string& name) const { return records_.count(name) != 0; }
  std::vector<std::string> names() const {
    std::vector<std::string> n;
    for (const auto& [k, v] : records_) n.push_back(k);
    return n;
  }

  [[noreturn]] void fail(const std::string& why) const {
    throw std::runtime_error("dem::io: checkpoint '" + source_ + "': " + why);
  }

  template <class T>
  T value(const std::string& name) const {
    static_assert(std::is_trivially_copyable_v<T>, "checkpoint_reader::value: T must be trivially copyable");
    const entry& e = find(name, sizeof(T));
    if (e.count != 1) fail("record '" + name + "' holds " + std::to_string(e.count) + " values, expected 1");
    T v;
    std::memcpy(&v, bytes_.data() + e.offset, sizeof(T));
    return v;
  }
  // The record as `expected` elements of T (any count when expected is npos).
  template <class T>
  std::vector<T> array(const std::string& name, std::size_t expected = npos) const {
    static_assert(std::is_trivially_copyable_v<T>, "checkpoint_reader::array: T must be trivially copyable");
    const entry& e = find(name, sizeof(T));
    if (expected != npos && e.count != expected)
      fail("record '" + name + "' holds " + std::to_string(e.count) + " elements, expected " + std::to_string(expected));
    std::vector<T> v(static_cast<std::size_t>(e.count));
    if (!v.empty()) std::memcpy(v.data(), bytes_.data() + e.offset, v.size() * sizeof(T));
    return v;
  }
  std::string text(const std::string& name) const {
    const entry& e = find(name, 1);
    return bytes_.substr(static_cast<std::size_t>(e.offset), static_cast<std::size_t>(e.count));
  }

  static constexpr std::size_t npos = std::size_t(-1);

 private:
  struct entry {
    std::uint64_t element_size, count, offset;
  };

  const entry& find(const std::string& name, std::size_t element_size) const {
    const auto it = records_.find(name);
    if (it == records_.end()) fail("record '" + name + "' is missing");
    if (it->second.element_size != element_size)
      fail("record '" + name + "' has elements of " + std::to_string(it->second.element_size) + " bytes, expected " +
           std::to_string(element_size) + " (written by another policy combination or version?)");
    return it->second;
  }

  void parse() {
    using namespace checkpoint_format;
    const std::size_t size = bytes_.size();
    if (size < header_size) fail("too short for a checkpoint (" + std::to_string(size) + " bytes)");
    if (std::memcmp(bytes_.data(), magic, 8) != 0) fail("not a dem checkpoint (the file does not start with DEMCKPT)");
    const std::uint32_t v = u32(8), order = u32(12);
    if (order != byte_order) fail("written on a machine of another byte order");
    if (v != version)
      fail("format version " + std::to_string(v) + ", but this build reads version " + std::to_string(version));
    std::size_t at = header_size;
    bool ended = false;
    while (at < size) {
      if (ended) fail("bytes after the end record (offset " + std::to_string(at) + ")");
      const std::size_t start = at;
      need(at, 4, "a record's name length");
      const std::uint32_t len = u32(at);
      at += 4;
      if (len == 0 || len > max_name) fail("record at offset " + std::to_string(start) + " has a name of " + std::to_string(len) + " bytes");
      need(at, len, "a record's name");
      std::string name = bytes_.substr(at, len);
      at += len;
      need(at, 16, "the sizes of record '" + name + "'");
      const std::uint64_t element_size = u64(at), count = u64(at + 8);
      at += 16;
      if (element_size != 0 && count > (std::uint64_t(-1)) / element_size)
        fail("record '" + name + "': " + std::to_string(count) + " elements of " + std::to_string(element_size) + " bytes overflow");
      const std::uint64_t payload = element_size * count;
      if (payload > size - at)
        fail("truncated: record '" + name + "' needs " + std::to_string(payload) + " bytes at offset " + std::to_string(at) + ", the file has " +
             std::to_string(size - at) + " left");
      if (name == "end") {
        if (element_size != 8 || count != 1) fail("malformed end record");
        const std::uint64_t want = u64(at);
        const std::uint64_t got = fnv1a(bytes_.data(), start);
        if (want != got) fail("checksum mismatch: the file is corrupt");
        ended = true;
      } else if (!records_.emplace(std::move(name), entry{element_size, count, at}).second) {
        fail("record '" + bytes_.substr(start + 4, len) + "' appears twice");
      }
      at += static_cast<std::size_t>(payload);
    }
    if (!ended) fail("truncated: no end record (the write did not finish)");
  }

  void need(std::size_t at, std::size_t n, const std::string& what) const {
    if (n > bytes_.size() - at) fail("truncated: " + what + " at offset " + std::to_string(at) + " runs past the end of the file");
  }
  std::uint32_t u32(std::size_t at) const {
    std::uint32_t v;
    std::memcpy(&v, bytes_.data() + at, 4);
    return v;
  }
  std::uint64_t u64(std::size_t at) const {
    std::uint64_t v;
    std::memcpy(&v, bytes_.data() + at, 8);
    return v;
  }

  std::string bytes_;
  std::string source_;
  std::map<std::string, entry> records_;
};

}  // namespace dem::io
