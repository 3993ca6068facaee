// File helpers for persisted indexes: a fast checksum, fixed-size binary
// fields, whole-file reads and file digests (atomic writes are
// src/common/private_files.h's).
//
// Errors are IOError (NotFound when the file does not exist) with a
// message that names the file: "vindex: <operation>: <path>: <cause>".
//
// Thread-safety: Checksum is a value; the functions are safe to call from
// any thread (the file system decides what concurrent writers see).
#ifndef ENGRAM_SRC_VINDEX_INDEX_FILE_H_
#define ENGRAM_SRC_VINDEX_INDEX_FILE_H_

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

#include "engram/status.h"

namespace engram {

// A 64-bit checksum of a byte stream, fed in pieces of any size; the digest
// depends only on the bytes. Four multiply-xorshift lanes over 8-byte words,
// several GB/s. Catches truncation and corruption, not tampering.
class Checksum {
 public:
  void Update(std::string_view bytes);
  uint64_t Digest() const;

 private:
  void Block(const char* block);

  static constexpr size_t kBlockBytes = 32;
  std::array<uint64_t, 4> lanes_ = {0x9e3779b97f4a7c15ULL, 0xbf58476d1ce4e5b9ULL,
                                    0x94d049bb133111ebULL, 0x2545f4914f6cdd1dULL};
  std::array<char, kBlockBytes> pending_{};
  size_t pending_bytes_ = 0;
  uint64_t total_bytes_ = 0;
};

// The checksum of a whole string.
uint64_t ChecksumOf(std::string_view bytes);

// Appends `value`'s bytes (host order) to `out`.
template <typename T>
void PutValue(const T& value, std::string* out) {
  static_assert(std::is_trivially_copyable_v<T>);
  out->append(reinterpret_cast<const char*>(&value), sizeof(T));
}

// Reads fixed-size values (host order) off the front of a byte string;
// every read says whether there were enough bytes.
class ByteReader {
 public:
  explicit ByteReader(std::string_view bytes) : bytes_(bytes) {}

  template <typename T>
  bool Get(T* value) {
    static_assert(std::is_trivially_copyable_v<T>);
    if (bytes_.size() < sizeof(T)) return false;
    std::memcpy(value, bytes_.data(), sizeof(T));
    bytes_.remove_prefix(sizeof(T));
    return true;
  }
  bool GetBytes(size_t n, std::string* out) {
    if (bytes_.size() < n) return false;
    out->assign(bytes_.data(), n);
    bytes_.remove_prefix(n);
    return true;
  }
  size_t Remaining() const { return bytes_.size(); }

 private:
  std::string_view bytes_;
};

struct FileDigest {
  uint64_t bytes = 0;
  uint64_t checksum = 0;
};

// Size and checksum of a file, read once from start to end.
Result<FileDigest> DigestFile(const std::string& path);

// The size of a file.
Result<uint64_t> FileBytes(const std::string& path);

// The contents of a file.
Result<std::string> ReadFileBytes(const std::string& path);

}  // namespace engram

#endif  // ENGRAM_SRC_VINDEX_INDEX_FILE_H_
