#include "src/server/request_guard.h"

#include <gtest/gtest.h>

namespace engram {
namespace {

RequestGuardOptions BoundTo(std::string host, std::vector<std::string> origins = {}) {
  return RequestGuardOptions{std::move(host), std::move(origins)};
}

TEST(RequestGuardTest, HostMustNameTheBoundAddressOrLoopback) {
  const RequestGuardOptions loopback = BoundTo("127.0.0.1");
  for (const char* ok :
       {"127.0.0.1:7411", "127.0.0.1", "localhost:7411", "LOCALHOST", "[::1]:80"}) {
    EXPECT_FALSE(CheckHost(ok, loopback).has_value()) << ok;
  }
  for (const char* bad : {"evil.example:7411", "evil.example", "127.0.0.1.evil.example",
                          "127.0.0.1:74x1", "localhost:", "[::1"}) {
    const auto refusal = CheckHost(bad, loopback);
    ASSERT_TRUE(refusal.has_value()) << bad;
    EXPECT_EQ(refusal->http_status, 403);
    EXPECT_NE(refusal->message.find(bad), std::string::npos) << refusal->message;
  }
  EXPECT_FALSE(CheckHost("", loopback).has_value());  // HTTP/1.0 sends none
  EXPECT_FALSE(CheckHost("127.0.0.2:9000", BoundTo("127.0.0.2")).has_value());
  EXPECT_TRUE(CheckHost("127.0.0.2:9000", loopback).has_value());
  EXPECT_FALSE(CheckHost("[::1]:9000", BoundTo("::1")).has_value());
  // Bound to every address (a token is then required): any name.
  EXPECT_FALSE(CheckHost("memory.corp.example", BoundTo("0.0.0.0")).has_value());
}

TEST(RequestGuardTest, OriginMustBeLoopbackOrAllowed) {
  const RequestGuardOptions guard = BoundTo("127.0.0.1", {"https://app.example.com"});
  for (const char* ok : {"", "http://127.0.0.1:7411", "http://localhost:3000", "https://[::1]",
                         "https://app.example.com", "HTTPS://APP.EXAMPLE.COM"}) {
    EXPECT_FALSE(CheckOrigin(ok, "127.0.0.1:7411", guard).has_value()) << ok;
  }
  for (const char* bad : {"https://evil.example", "null", "http://localhost.evil.example",
                          "file://", "https://app.example.com:8443"}) {
    const auto refusal = CheckOrigin(bad, "127.0.0.1:7411", guard);
    ASSERT_TRUE(refusal.has_value()) << bad;
    EXPECT_EQ(refusal->http_status, 403);
    EXPECT_NE(refusal->message.find("server.allowed_origins"), std::string::npos);
  }
}

TEST(RequestGuardTest, ThePageOfTheServerItselfMayCallItOffLoopback) {
  // Bound to every address with a token: the memory browser loaded from
  // http://memory.lan:7411 sends that origin to that host.
  const RequestGuardOptions guard = BoundTo("0.0.0.0");
  EXPECT_FALSE(CheckOrigin("http://memory.lan:7411", "memory.lan:7411", guard).has_value());
  EXPECT_FALSE(CheckOrigin("https://Memory.LAN:7411", "memory.lan:7411", guard).has_value());
  for (const auto& [origin, host] : std::vector<std::pair<const char*, const char*>>{
           {"http://memory.lan:7412", "memory.lan:7411"},
           {"http://memory.lan", "memory.lan:7411"},
           {"http://evil.example", "memory.lan:7411"},
           {"http://memory.lan:7411", ""},
           {"ftp://memory.lan:7411", "memory.lan:7411"}}) {
    EXPECT_TRUE(CheckOrigin(origin, host, guard).has_value()) << origin << " to " << host;
  }
}

TEST(RequestGuardTest, WritesMustBeJson) {
  EXPECT_FALSE(CheckContentType("POST", "application/json").has_value());
  EXPECT_FALSE(CheckContentType("PUT", "Application/JSON; charset=utf-8").has_value());
  EXPECT_FALSE(CheckContentType("GET", "").has_value());
  EXPECT_FALSE(CheckContentType("DELETE", "text/plain").has_value());
  for (const char* bad : {"text/plain", "application/x-www-form-urlencoded",
                          "multipart/form-data; boundary=x", "", "application/jsonx"}) {
    const auto refusal = CheckContentType("POST", bad);
    ASSERT_TRUE(refusal.has_value()) << bad;
    EXPECT_EQ(refusal->http_status, 415);
    EXPECT_EQ(refusal->code, "unsupported_media_type");
  }
}

TEST(RequestGuardTest, OriginListsSplitOnCommas) {
  EXPECT_EQ(SplitOriginList(" https://a.example, https://b.example ,,"),
            (std::vector<std::string>{"https://a.example", "https://b.example"}));
  EXPECT_TRUE(SplitOriginList("").empty());
}

}  // namespace
}  // namespace engram
