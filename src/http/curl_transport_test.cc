#include "src/http/curl_transport.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "src/http/http_client.h"
#include "src/http/testing/loopback_server.h"

namespace engram {
namespace {

using ::engram::testing::CannedResponse;
using ::engram::testing::LoopbackServer;
using ::engram::testing::ReceivedRequest;
using ::engram::testing::Sequence;
using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::Pair;

// Sets (or, with nullopt, unsets) an environment variable for its lifetime.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, std::optional<std::string> value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value) {
      setenv(name, value->c_str(), 1);
    } else {
      unsetenv(name);
    }
  }
  ~ScopedEnv() {
    if (old_) {
      setenv(name_, old_->c_str(), 1);
    } else {
      unsetenv(name_);
    }
  }
  ScopedEnv(const ScopedEnv&) = delete;
  ScopedEnv& operator=(const ScopedEnv&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

int64_t MillisSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                               start)
      .count();
}

// Whatever proxy the machine has configured, loopback requests go direct.
class CurlTransportTest : public ::testing::Test {
 protected:
  ScopedEnv http_proxy_{"http_proxy", std::nullopt};
  ScopedEnv all_proxy_{"all_proxy", std::nullopt};
  ScopedEnv all_proxy_upper_{"ALL_PROXY", std::nullopt};
  ScopedEnv no_proxy_{"no_proxy", "127.0.0.1,localhost"};
  ScopedEnv no_proxy_upper_{"NO_PROXY", "127.0.0.1,localhost"};

  // Test options: short timeouts and backoff; log lines collected.
  RemoteOptions Options(int max_attempts) {
    RemoteOptions options;
    options.max_attempts = max_attempts;
    options.backoff_initial_ms = 2;
    options.backoff_max_ms = 10;
    options.connect_timeout_ms = 2000;
    options.timeout_ms = 5000;
    options.log = [this](std::string_view line) {
      std::lock_guard lock(mutex_);
      logs_.emplace_back(line);
    };
    return options;
  }

  std::vector<std::string> Logs() {
    std::lock_guard lock(mutex_);
    return logs_;
  }

 private:
  std::mutex mutex_;
  std::vector<std::string> logs_;
};

TEST_F(CurlTransportTest, MethodPathHeadersAndBodyArriveIntact) {
  LoopbackServer server([](const ReceivedRequest&) {
    return CannedResponse{201, R"({"ok":true})", {{"X-Answer", "yes  it is"}}, 0};
  });
  HttpRequest request;
  request.method = "POST";
  request.url = server.BaseUrl() + "/v1/embed%3Ax/y?model=a%20b&n=2";
  request.headers = {{"Content-Type", "application/json"},
                     {"Authorization", "Bearer t0k"},
                     {"anthropic-version", "2023-06-01"}};
  request.body = std::string(R"({"input":["caf)") + "\xC3\xA9" + R"("]})" + std::string(3000, 'z');

  Result<HttpResponse> response = CurlTransport()->Send(request, HttpTimeouts{});
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->status, 201);
  EXPECT_EQ(response->body, R"({"ok":true})");
  EXPECT_EQ(FindHeader(response->headers, "x-answer"), "yes  it is");
  EXPECT_EQ(FindHeader(response->headers, "Content-Type"), "application/json");

  const std::vector<ReceivedRequest> seen = server.Requests();
  ASSERT_EQ(seen.size(), 1U);
  EXPECT_EQ(seen[0].method, "POST");
  EXPECT_EQ(seen[0].path, "/v1/embed%3Ax/y");
  EXPECT_EQ(seen[0].query, "model=a%20b&n=2");
  EXPECT_EQ(seen[0].body, request.body);
  EXPECT_EQ(FindHeader(seen[0].headers, "Content-Type"), "application/json");
  EXPECT_EQ(FindHeader(seen[0].headers, "Authorization"), "Bearer t0k");
  EXPECT_EQ(FindHeader(seen[0].headers, "anthropic-version"), "2023-06-01");
  EXPECT_EQ(FindHeader(seen[0].headers, "Expect"), std::nullopt);
  EXPECT_EQ(FindHeader(seen[0].headers, "REMOTE_ADDR"), std::nullopt);
}

TEST_F(CurlTransportTest, OtherMethodsArriveAsSent) {
  LoopbackServer server([](const ReceivedRequest&) { return CannedResponse{200, "{}", {}, 0}; });
  for (const std::string method : {"GET", "PUT", "DELETE", "PATCH"}) {
    HttpRequest request;
    request.method = method;
    request.url = server.BaseUrl() + "/m";
    request.body = method == "GET" ? "" : "body-of-" + method;
    Result<HttpResponse> response = CurlTransport()->Send(request, HttpTimeouts{});
    ASSERT_TRUE(response.ok()) << method << ": " << response.status().ToString();
    const ReceivedRequest seen = server.Requests().back();
    EXPECT_EQ(seen.method, method);
    EXPECT_EQ(seen.body, request.body);
    // No body type that the request did not ask for.
    EXPECT_EQ(FindHeader(seen.headers, "Content-Type"), std::nullopt) << method;
  }
}

TEST_F(CurlTransportTest, AnErrorStatusIsAResponse) {
  LoopbackServer server([](const ReceivedRequest&) {
    return CannedResponse{404, R"({"error":"nope"})", {}, 0};
  });
  Result<HttpResponse> response =
      CurlTransport()->Send(HttpRequest{"GET", server.BaseUrl() + "/x", {}, "", {}}, {});
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->status, 404);
  EXPECT_EQ(response->body, R"({"error":"nope"})");
}

TEST_F(CurlTransportTest, RedirectsAreNotFollowed) {
  LoopbackServer server([](const ReceivedRequest&) {
    return CannedResponse{302, "", {{"Location", "/elsewhere"}}, 0};
  });
  Result<HttpResponse> response =
      CurlTransport()->Send(HttpRequest{"GET", server.BaseUrl() + "/x", {}, "", {}}, {});
  ASSERT_TRUE(response.ok());
  EXPECT_EQ(response->status, 302);
  EXPECT_EQ(server.Requests().size(), 1U);
}

TEST_F(CurlTransportTest, ClientWaitsForRetryAfterThenSucceeds) {
  LoopbackServer server(Sequence({CannedResponse{429, "{}", {{"Retry-After", "1"}}, 0},
                                  CannedResponse{200, R"({"n":1})", {}, 0}}));
  HttpClient client(CurlTransport(), Options(3));
  const auto start = std::chrono::steady_clock::now();
  Result<nlohmann::json> json =
      client.SendJson(HttpRequest{"POST", server.BaseUrl() + "/v1/x", {}, "{}", {}}, "test");
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  EXPECT_EQ((*json)["n"], 1);
  EXPECT_GE(MillisSince(start), 950);
  EXPECT_EQ(server.Requests().size(), 2U);
  ASSERT_EQ(Logs().size(), 1U);
  EXPECT_EQ(Logs()[0], "http: POST " + server.BaseUrl() +
                           "/v1/x: HTTP 429 (Retry-After), retry 1 of 2 in 1000 ms");
}

TEST_F(CurlTransportTest, ClientRetriesAServerErrorThenSucceeds) {
  LoopbackServer server(Sequence({CannedResponse{500, R"({"error":"boom"})", {}, 0},
                                  CannedResponse{200, R"({"n":2})", {}, 0}}));
  HttpClient client(CurlTransport(), Options(3));
  Result<nlohmann::json> json =
      client.SendJson(HttpRequest{"POST", server.BaseUrl() + "/v1/x", {}, "{}", {}}, "test");
  ASSERT_TRUE(json.ok()) << json.status().ToString();
  EXPECT_EQ((*json)["n"], 2);
  EXPECT_EQ(server.Requests().size(), 2U);
  EXPECT_EQ(Logs().size(), 1U);
}

TEST_F(CurlTransportTest, ASlowAnswerIsDeadlineExceededQuicklyAndNotRetried) {
  LoopbackServer server([](const ReceivedRequest&) { return CannedResponse{200, "{}", {}, 5000}; });
  RemoteOptions options = Options(3);
  options.timeout_ms = 200;
  HttpClient client(CurlTransport(), options);
  const auto start = std::chrono::steady_clock::now();
  Result<HttpResponse> response =
      client.Send(HttpRequest{"POST", server.BaseUrl() + "/slow", {}, "{}", {}});
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), StatusCode::kDeadlineExceeded);
  EXPECT_THAT(response.status().message(), HasSubstr("http: POST " + server.BaseUrl() + "/slow"));
  EXPECT_LT(MillisSince(start), 2000);
  EXPECT_EQ(server.Requests().size(), 1U);
  EXPECT_TRUE(Logs().empty());
}

TEST_F(CurlTransportTest, AStoppedServerIsUnavailableAfterMaxAttempts) {
  LoopbackServer server([](const ReceivedRequest&) { return CannedResponse{}; });
  const std::string url = server.BaseUrl() + "/gone";
  server.Stop();
  HttpClient client(CurlTransport(), Options(3));
  Result<HttpResponse> response = client.Send(HttpRequest{"POST", url, {}, "{}", {}});
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), StatusCode::kUnavailable);
  EXPECT_THAT(response.status().message(), HasSubstr("http: POST " + url + ": "));
  const std::vector<std::string> logs = Logs();
  ASSERT_EQ(logs.size(), 2U);
  EXPECT_THAT(logs[0], HasSubstr("retry 1 of 2"));
  EXPECT_THAT(logs[1], HasSubstr("retry 2 of 2"));
}

TEST_F(CurlTransportTest, TheProxyVariableIsHonoured) {
  LoopbackServer proxy([](const ReceivedRequest&) {
    return CannedResponse{200, R"({"via":"proxy"})", {}, 0};
  });
  ScopedEnv http_proxy("http_proxy", proxy.BaseUrl());
  ScopedEnv no_proxy("no_proxy", std::nullopt);
  ScopedEnv no_proxy_upper("NO_PROXY", std::nullopt);
  Result<HttpResponse> response = CurlTransport()->Send(
      HttpRequest{"GET", "http://engram-proxy-test.invalid/x?q=1", {}, "", {}}, {});
  ASSERT_TRUE(response.ok()) << response.status().ToString();
  EXPECT_EQ(response->body, R"({"via":"proxy"})");
  const std::vector<ReceivedRequest> seen = proxy.Requests();
  ASSERT_EQ(seen.size(), 1U);
  EXPECT_EQ(seen[0].path, "http://engram-proxy-test.invalid/x");  // absolute form
  EXPECT_EQ(seen[0].query, "q=1");
  EXPECT_EQ(FindHeader(seen[0].headers, "Host"), "engram-proxy-test.invalid");
}

TEST_F(CurlTransportTest, ABadUrlIsInvalidArgument) {
  for (const std::string url : {"ftp://127.0.0.1/x", "http://[::1/x", "not a url"}) {
    Result<HttpResponse> response = CurlTransport()->Send(HttpRequest{"GET", url, {}, "", {}}, {});
    ASSERT_FALSE(response.ok()) << url;
    EXPECT_EQ(response.status().code(), StatusCode::kInvalidArgument)
        << url << ": " << response.status().ToString();
  }
}

TEST_F(CurlTransportTest, AHeaderWithALineBreakIsRefusedWithoutEchoingIt) {
  LoopbackServer server([](const ReceivedRequest&) { return CannedResponse{}; });
  HttpRequest request{"POST", server.BaseUrl() + "/x", {{"X-Key", "k\r\nX-Evil: 1"}}, "{}", {}};
  Result<HttpResponse> response = CurlTransport()->Send(request, {});
  ASSERT_FALSE(response.ok());
  EXPECT_EQ(response.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(response.status().message(), HasSubstr("X-Key"));
  EXPECT_THAT(response.status().message(), Not(HasSubstr("Evil")));
  EXPECT_TRUE(server.Requests().empty());
}

TEST_F(CurlTransportTest, NoSecretInErrorsOrLogLines) {
  const std::string secret = "sk-test-SECRET";
  auto request_to = [&](const std::string& url) {
    HttpRequest request;
    request.url = url;
    request.headers = {{"Authorization", "Bearer " + secret}, {"Content-Type", "application/json"}};
    request.body = R"({"input":"x"})";
    request.secrets = {secret};
    return request;
  };
  auto expect_clean = [&](const Status& status, const std::vector<std::string>& logs) {
    EXPECT_FALSE(status.ok());
    EXPECT_THAT(status.message(), Not(HasSubstr("SECRET")));
    EXPECT_THAT(status.message(), Not(HasSubstr("Bearer")));
    for (const std::string& line : logs) {
      EXPECT_THAT(line, Not(HasSubstr("SECRET")));
      EXPECT_THAT(line, Not(HasSubstr("Bearer")));
    }
  };

  // No answer at all: connection refused, every attempt logged.
  {
    LoopbackServer server([](const ReceivedRequest&) { return CannedResponse{}; });
    const std::string url = server.BaseUrl() + "/v1/x?key=" + secret;
    server.Stop();
    HttpClient client(CurlTransport(), Options(3));
    Result<nlohmann::json> json = client.SendJson(request_to(url), "embed: openai");
    ASSERT_FALSE(json.ok());
    EXPECT_EQ(json.status().code(), StatusCode::kUnavailable);
    expect_clean(json.status(), Logs());
    EXPECT_EQ(Logs().size(), 2U);
  }
  // An answer that echoes the key, after a retried 503 that echoes it too.
  {
    LoopbackServer server(Sequence(
        {CannedResponse{503, R"({"error":"busy for key )" + secret + R"("})", {}, 0},
         CannedResponse{
             401, R"({"error":{"message":"bad key )" + secret + R"(","type":"auth"}})", {}, 0}}));
    HttpClient client(CurlTransport(), Options(3));
    Result<nlohmann::json> json =
        client.SendJson(request_to(server.BaseUrl() + "/v1/x?key=" + secret), "embed: openai");
    ASSERT_FALSE(json.ok());
    EXPECT_EQ(json.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_THAT(json.status().message(), HasSubstr("[redacted]"));
    expect_clean(json.status(), Logs());
    // The key did go on the wire, where it belongs.
    EXPECT_THAT(server.Requests().back().headers,
                Contains(Pair("Authorization", "Bearer " + secret)));
  }
  // A timeout.
  {
    LoopbackServer server([](const ReceivedRequest&) {
      return CannedResponse{200, "{}", {}, 3000};
    });
    RemoteOptions options = Options(3);
    options.timeout_ms = 100;
    HttpClient client(CurlTransport(), options);
    Result<HttpResponse> response = client.Send(request_to(server.BaseUrl() + "/x?key=" + secret));
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.status().code(), StatusCode::kDeadlineExceeded);
    expect_clean(response.status(), Logs());
  }
  // A malformed URL that carries the key.
  {
    HttpClient client(CurlTransport(), Options(3));
    Result<HttpResponse> response = client.Send(request_to("http://[" + secret + "/x"));
    ASSERT_FALSE(response.ok());
    EXPECT_EQ(response.status().code(), StatusCode::kInvalidArgument);
    expect_clean(response.status(), Logs());
  }
}

TEST_F(CurlTransportTest, SeveralThreadsSendAtOnce) {
  LoopbackServer server([](const ReceivedRequest& r) {
    return CannedResponse{200, r.body, {}, 0};
  });
  std::vector<std::thread> threads;
  std::vector<std::string> bodies(4);
  for (size_t t = 0; t < bodies.size(); ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 5; ++i) {
        Result<HttpResponse> response = CurlTransport()->Send(
            HttpRequest{"POST", server.BaseUrl() + "/echo", {}, std::to_string(t), {}}, {});
        if (response.ok()) bodies[t] += response->body;
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (size_t t = 0; t < bodies.size(); ++t) {
    EXPECT_EQ(bodies[t], std::string(5, static_cast<char>('0' + t)));
  }
}

}  // namespace
}  // namespace engram
