#include "src/common/hash.h"

#include <gtest/gtest.h>

#include <string>

namespace engram {
namespace {

TEST(HashTest, Sha256MatchesKnownVectors) {
  EXPECT_EQ(Sha256Hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(Sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(HashTest, FastChecksumSeesEveryByteLengthAndOrder) {
  std::string data(1000, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>(i * 7);
  const uint64_t base = FastChecksum64(data);
  EXPECT_EQ(FastChecksum64(data), base);  // deterministic
  for (size_t i : {size_t{0}, size_t{7}, size_t{8}, size_t{31}, size_t{500}, size_t{999}}) {
    std::string flipped = data;
    flipped[i] = static_cast<char>(flipped[i] ^ 1);
    EXPECT_NE(FastChecksum64(flipped), base) << "byte " << i;
  }
  EXPECT_NE(FastChecksum64(data.substr(0, 999)), base);  // truncated
  std::string swapped = data;
  std::swap(swapped[0], swapped[8]);  // two words exchanged
  EXPECT_NE(FastChecksum64(swapped), base);
  EXPECT_NE(FastChecksum64(""), FastChecksum64(std::string(1, '\0')));
}

}  // namespace
}  // namespace engram
