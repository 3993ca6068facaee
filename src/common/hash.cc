#include "src/common/hash.h"
#include <cstring>

// SHA256_Init/Update/Final, which OpenSSL 3 deprecates in favour of EVP:
// EVP's first digest in a process reads openssl.cnf and fetches the
// algorithm from a provider, about 1.3 ms, 5% of a one-shot lexical search
// (every search checks its results' ids). The low-level functions run the
// same assembly without either.
#define OPENSSL_SUPPRESS_DEPRECATED
#include <openssl/sha.h>

namespace engram {

std::string Sha256Hex(std::string_view data) {
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256_CTX context;
  SHA256_Init(&context);
  SHA256_Update(&context, data.data(), data.size());
  SHA256_Final(digest, &context);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  out.reserve(size_t{2} * SHA256_DIGEST_LENGTH);
  for (unsigned char b : digest) {
    out.push_back(kHex[b >> 4]);
    out.push_back(kHex[b & 0xF]);
  }
  return out;
}

uint64_t Fnv1a64(std::string_view data) {
  uint64_t h = 14695981039346656037ull;
  for (unsigned char c : data) h = (h ^ c) * 1099511628211ull;
  return h ^ (h >> 29);
}

uint64_t FastChecksum64(std::string_view data) {
  constexpr uint64_t kPrime = 1099511628211ull;
  uint64_t lane[4] = {14695981039346656037ull, 0x9e3779b97f4a7c15ull, 0xc2b2ae3d27d4eb4full,
                      0x165667b19e3779f9ull};
  const size_t words = data.size() / 8;
  size_t i = 0;
  for (; i + 4 <= words; i += 4) {
    for (size_t l = 0; l < 4; ++l) {
      uint64_t w = 0;
      std::memcpy(&w, data.data() + (i + l) * 8, 8);
      lane[l] = (lane[l] ^ w) * kPrime;
    }
  }
  for (; i < words; ++i) {
    uint64_t w = 0;
    std::memcpy(&w, data.data() + i * 8, 8);
    lane[0] = (lane[0] ^ w) * kPrime;
  }
  uint64_t h = data.size();
  for (uint64_t l : lane) h = (h ^ l) * kPrime;
  for (size_t b = words * 8; b < data.size(); ++b) {
    h = (h ^ static_cast<unsigned char>(data[b])) * kPrime;
  }
  return h ^ (h >> 29);
}

}  // namespace engram
