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

}  // namespace engram

#endif  // ENGRAM_SRC_COMMON_HASH_H_
