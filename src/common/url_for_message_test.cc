#include "src/common/url_for_message.h"

#include <gtest/gtest.h>

namespace engram {
namespace {

TEST(UrlForMessageTest, DropsUserInfoQueryAndFragment) {
  EXPECT_EQ(UrlForMessage("https://u:p@host:8443/v1/x?key=k#f"), "https://host:8443/v1/x");
  EXPECT_EQ(UrlForMessage("http://host?key=k"), "http://host");
  EXPECT_EQ(UrlForMessage("http://127.0.0.1:9/a/b"), "http://127.0.0.1:9/a/b");
}

TEST(UrlForMessageTest, KeepsNoPasswordOfAStoreUrl) {
  EXPECT_EQ(UrlForMessage("postgresql://engram:s3cret@db.local:5433/memory?sslmode=require"),
            "postgresql://db.local:5433/memory");
  EXPECT_EQ(UrlForMessage("postgresql:///memory?host=/run/pg&password=s3cret"),
            "postgresql:///memory");
}

}  // namespace
}  // namespace engram
