// The memory browser's files as the server answers them; how the page
// behaves in a browser is tests/node/browser_session.mjs. Every file the
// page loads is built in and served with its type and a policy that
// allows no inline script, without the token the API needs; the page's own
// code holds nothing that policy would have to allow, and never turns a
// memory's text into markup.
#include <gtest/gtest.h>
#include <httplib.h>

#include <regex>
#include <set>
#include <string>

#include "src/server/server_test_util.h"
#include "src/server/web_assets.h"

namespace engram {
namespace {

using testing::ServedStore;

std::string Body(std::string_view name) {
  const WebFile* file = FindWebFile(name);
  EXPECT_NE(file, nullptr) << name;
  return file == nullptr ? std::string() : std::string(file->body);
}

// Every match of `pattern`'s first group in `text`.
std::set<std::string> Captures(const std::string& text, const std::string& pattern) {
  std::set<std::string> out;
  const std::regex re(pattern);
  for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
       ++it) {
    out.insert((*it)[1].str());
  }
  return out;
}

TEST(WebPageTest, EveryFileThePageLoadsIsBuiltInAndEveryBuiltInFileIsLoaded) {
  std::set<std::string> loaded = Captures(Body("index.html"), R"re((?:src|href)="/ui/([^"]+)")re");
  for (const WebFile& file : WebFiles()) {
    if (file.name.ends_with(".js")) {
      for (const std::string& imported :
           Captures(std::string(file.body), R"re(from "\./([^"]+)")re")) {
        loaded.insert(imported);
      }
    }
  }
  for (const std::string& name : loaded) {
    EXPECT_NE(FindWebFile(name), nullptr) << name << " is loaded by the page but not built in";
  }
  for (const WebFile& file : WebFiles()) {
    if (file.name == "index.html") continue;
    EXPECT_EQ(loaded.count(std::string(file.name)), 1u) << file.name << " is built in but unused";
  }
}

TEST(WebPageTest, NothingNeedsAnInlineScriptOrStyleAndNoTextBecomesMarkup) {
  const std::string page = Body("index.html");
  const std::regex script_tag(R"(<script\b[^>]*>)");
  for (auto it = std::sregex_iterator(page.begin(), page.end(), script_tag);
       it != std::sregex_iterator(); ++it) {
    EXPECT_NE(it->str().find(" src="), std::string::npos) << "inline script: " << it->str();
  }
  EXPECT_EQ(page.find("<style"), std::string::npos);
  EXPECT_FALSE(std::regex_search(page, std::regex(R"(\s(style|on[a-z]+)=)")))
      << "an inline style or event handler attribute";
  for (const WebFile& file : WebFiles()) {
    if (!file.name.ends_with(".js")) continue;
    const std::string code(file.body);
    for (const char* markup : {"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write",
                               "eval(", "new Function", "setAttribute(\"style\""}) {
      EXPECT_EQ(code.find(markup), std::string::npos) << file.name << " uses " << markup;
    }
  }
}

TEST(WebPageTest, FilesAreServedWithTheirType) {
  EXPECT_EQ(WebContentType("index.html"), "text/html; charset=utf-8");
  EXPECT_EQ(WebContentType("app.js"), "text/javascript; charset=utf-8");
  EXPECT_EQ(WebContentType("style.css"), "text/css; charset=utf-8");
  EXPECT_EQ(WebContentType("icon.svg"), "image/svg+xml");
  EXPECT_EQ(WebContentType("js"), "application/octet-stream");
}

TEST(HttpServerPageTest, ThePageAndItsFilesComeWithAPolicyThatAllowsNoInlineScript) {
  ServedStore store;
  store.Serve();
  auto client = store.Client();
  auto page = client->Get("/");
  ASSERT_TRUE(page);
  EXPECT_EQ(page->status, 200);
  EXPECT_EQ(page->get_header_value("Content-Type"), "text/html; charset=utf-8");
  EXPECT_EQ(page->body, Body("index.html"));
  const std::string policy = page->get_header_value("Content-Security-Policy");
  for (const char* directive : {"default-src 'none'", "script-src 'self'", "style-src 'self'",
                                "connect-src 'self'", "frame-ancestors 'none'"}) {
    EXPECT_NE(policy.find(directive), std::string::npos) << policy;
  }
  EXPECT_EQ(policy.find("unsafe"), std::string::npos) << policy;
  EXPECT_EQ(page->get_header_value("X-Content-Type-Options"), "nosniff");
  EXPECT_EQ(page->get_header_value("X-Frame-Options"), "DENY");
  for (const WebFile& file : WebFiles()) {
    if (file.name == "index.html") continue;
    auto res = client->Get("/ui/" + std::string(file.name));
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200) << file.name;
    EXPECT_EQ(res->body, file.body) << file.name;
    EXPECT_EQ(res->get_header_value("Content-Type"), WebContentType(file.name));
    EXPECT_EQ(res->get_header_value("Content-Security-Policy"), policy);
  }
  for (const char* missing : {"/ui/nothing.js", "/ui/index.html", "/ui/../v1/facts"}) {
    const testing::JsonReply r = store.Get(missing);
    EXPECT_EQ(r.status, 404) << missing;
    EXPECT_EQ(r.body["error"]["code"], "not_found") << missing;
  }
}

TEST(HttpServerPageTest, OffLoopbackThePageNeedsNoTokenButEveryCallItMakesDoes) {
  const std::string token = "page-token-value";
  ServedStore store;
  store.Serve("127.0.0.2", token);
  auto client = store.Client();
  for (const char* path : {"/", "/ui/app.js"}) {
    auto res = client->Get(path);
    ASSERT_TRUE(res);
    EXPECT_EQ(res->status, 200) << path;
  }
  EXPECT_EQ(store.Get("/v1/facts").status, 401);
  EXPECT_EQ(store.Call("POST", "/", "{}").status, 401) << "only reading the page is public";
  // The page's calls carry its own origin, which is this server's.
  const std::string own = "http://127.0.0.2:" + std::to_string(store.server().port());
  auto authed = store.Client(token);
  auto added = authed->Post("/v1/facts", {{"Origin", own}}, R"({"content": "from the page"})",
                            "application/json");
  ASSERT_TRUE(added);
  EXPECT_EQ(added->status, 201) << added->body;
  auto foreign = authed->Post("/v1/facts", {{"Origin", "http://evil.example"}},
                              R"({"content": "from elsewhere"})", "application/json");
  ASSERT_TRUE(foreign);
  EXPECT_EQ(foreign->status, 403);
  EXPECT_EQ(store.Call("GET", "/v1/facts", "", token).body["count"], 1);
}

}  // namespace
}  // namespace engram
