// Hashing helpers (OpenSSL). Thread-safe.
#ifndef ENGRAM_SRC_COMMON_HASH_H_
#define ENGRAM_SRC_COMMON_HASH_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace engram {

// Lower-case hex of the SHA-256 of `data` (64 chars).
std::string Sha256Hex(std::string_view data);

// FNV-1a, 64-bit, with a final xor-shift so the low bits mix well enough to
// index power-of-two tables. Not for anything adversarial.
uint64_t Fnv1a64(std::string_view data);

// A checksum for large files: FNV-1a over 8-byte little-endian words, four
// interleaved lanes combined at the end, the tail bytes folded in last.
// About ten times faster than Fnv1a64 on megabytes; catches truncation and
// corruption the same way. Not for hashing keys.
uint64_t FastChecksum64(std::string_view data);

}  // namespace engram

#endif  // ENGRAM_SRC_COMMON_HASH_H_
