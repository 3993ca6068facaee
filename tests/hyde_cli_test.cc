// HyDE through the engram binary against a real OpenAI-compatible server on
// 127.0.0.1: --explain shows the hypothesis and the keywords it added; with
// the server stopped the same search still answers and says which fallback
// happened; without an LLM, feedback shows the facts it read and the terms
// it added; failing calls never print a key, a secret or a signature; eval
// replays recorded hypotheses.
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>

#include <nlohmann/json.hpp>

#include "src/http/testing/loopback_server.h"
#include "tests/cli_runner.h"

namespace engram {
namespace {

using testing::CannedResponse;
using testing::CliRunner;
using testing::LoopbackServer;
using testing::ReceivedRequest;

constexpr char kApiKey[] = "sk-test-cli-SECRET-4f1d9a";

const char* const kFacts[] = {
    "Purchases table sits in Postgres on db-main",
    "Deploys go out on Thursdays after the standup",
    "The staging cluster runs in eu-west-1",
};

// An OpenAI chat completions answer whose content is `text`.
CannedResponse ChatAnswer(const std::string& text) {
  nlohmann::json body = {{"id", "chatcmpl-1"},
                         {"object", "chat.completion"},
                         {"choices",
                          {{{"index", 0},
                            {"message", {{"role", "assistant"}, {"content", text}}},
                            {"finish_reason", "stop"}}}}};
  return CannedResponse{200, body.dump(), {}, 0};
}

void UseLlm(CliRunner& cli, const LoopbackServer& server) {
  cli.SetEnv("ENGRAM_HYDE_ENABLED", "true");
  cli.SetEnv("ENGRAM_LLM_PROVIDER", "openai");
  cli.SetEnv("ENGRAM_LLM_BASE_URL", server.BaseUrl());
  cli.SetEnv("OPENAI_API_KEY", kApiKey);
  cli.SetEnv("ENGRAM_HTTP_MAX_ATTEMPTS", "2");
  cli.SetEnv("ENGRAM_HTTP_BACKOFF_INITIAL_MS", "10");
  cli.SetEnv("ENGRAM_LLM_TIMEOUT_MS", "3000");
}

TEST(HydeCliTest, ExplainShowsTheHypothesisAndFallsBackWhenTheServerStops) {
  CliRunner cli;
  for (const char* f : kFacts) ASSERT_EQ(cli.Run({"add", f}).exit_code, 0);
  LoopbackServer server([](const ReceivedRequest& r) {
    if (r.method != "POST" || r.path != "/v1/chat/completions") {
      return CannedResponse{404, R"({"error":{"message":"no route"}})", {}, 0};
    }
    return ChatAnswer(
        "The order records live in Postgres, in the purchases table of the main database.");
  });
  UseLlm(cli, server);
  const std::string query = "where did we decide to keep the order records";
  auto r = cli.Run({"search", query, "--explain", "--no-record"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("hyde (openai:gpt-4o-mini): hypothesis: The order records live in Postgres"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("expanded keywords: database live main postgres"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("vector searched: query+hypothesis"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("Purchases table sits in Postgres"), std::string::npos) << r.out;
  // The server saw the query as the user message, with the key as bearer.
  const auto requests = server.Requests();
  ASSERT_EQ(requests.size(), 1u);
  const auto body = nlohmann::json::parse(requests[0].body);
  EXPECT_EQ(body["messages"].back()["content"], query);
  EXPECT_EQ(FindHeader(requests[0].headers, "Authorization").value_or(""),
            std::string("Bearer ") + kApiKey);

  // The same query again comes from the store's cache.
  r = cli.Run({"search", query, "--explain", "--no-record"});
  EXPECT_NE(r.out.find("hypothesis (cached):"), std::string::npos) << r.out;
  EXPECT_EQ(server.Requests().size(), 1u);

  server.Stop();
  const std::string other = "where do we keep the purchases table";
  r = cli.Run({"search", other, "--explain", "--no-record"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("no hypothesis"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("fallback: llm openai:gpt-4o-mini failed (unavailable)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("warning: hyde: llm openai:gpt-4o-mini failed"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find(" 1. "), std::string::npos) << r.out;  // the search still answered
}

TEST(HydeCliTest, ExplainShowsFeedbackWithoutAnLlm) {
  CliRunner cli;
  for (const char* f : kFacts) ASSERT_EQ(cli.Run({"add", f}).exit_code, 0);
  cli.SetEnv("ENGRAM_FEEDBACK_ENABLED", "true");
  auto r = cli.Run({"search", "purchases", "--mode", "lexical", "--explain", "--no-record"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("hyde (feedback): feedback from 1 fact(s): "), std::string::npos) << r.out;
  // The one fact's terms, of equal weight, in order of term; the query's
  // own "purchas" is not new.
  EXPECT_NE(r.out.find("  expanded keywords: db main postgr sit tabl\n"), std::string::npos)
      << r.out;
  EXPECT_EQ(r.out.find("no hypothesis"), std::string::npos) << r.out;

  r = cli.Run({"search", "kubernetes", "--mode", "lexical", "--explain", "--no-record"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("fallback: the first pass found nothing to learn from"), std::string::npos)
      << r.out;
  EXPECT_NE(r.err.find("warning: hyde: the first pass found nothing to learn from"),
            std::string::npos)
      << r.err;
}

TEST(HydeCliTest, FailingCallsNeverPrintAKeyASecretOrASignature) {
  CliRunner cli;
  for (const char* f : kFacts) ASSERT_EQ(cli.Run({"add", f}).exit_code, 0);
  std::string seen_signature;
  std::mutex mutex;
  LoopbackServer server([&](const ReceivedRequest& r) {
    // Every API echoes what it was sent, as badly behaved servers do.
    const std::string auth = FindHeader(r.headers, "Authorization").value_or("");
    {
      std::lock_guard lock(mutex);
      std::smatch m;
      if (std::regex_search(auth, m, std::regex("Signature=([0-9a-f]+)"))) seen_signature = m[1];
    }
    if (r.path.find("/model/") == 0) {
      return CannedResponse{
          403,
          R"({"message":"The request signature we calculated does not match: )" + auth + R"("})",
          {{"x-amzn-ErrorType", "InvalidSignatureException"}},
          0};
    }
    return CannedResponse{401,
                          R"({"error":{"message":"Incorrect API key provided: )" + auth +
                              R"(","type":"invalid_request_error","code":"invalid_api_key"}})",
                          {},
                          0};
  });
  UseLlm(cli, server);
  cli.SetEnv("ENGRAM_EMBED_PROVIDER", "openai");
  cli.SetEnv("ENGRAM_EMBED_BASE_URL", server.BaseUrl());
  std::string output;
  auto r = cli.Run({"--verbose", "search", "order records", "--explain", "--no-record"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("failed (failed_precondition)"), std::string::npos) << r.out;
  output += r.out + r.err;
  r = cli.Run({"--verbose", "add", "A fact that cannot be embedded"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  output += r.out + r.err;
  r = cli.Run({"--verbose", "backfill"});
  EXPECT_NE(r.exit_code, 0);
  output += r.out + r.err;

  // Bedrock: SigV4 with a secret key and a session token.
  const std::string aws_secret = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYSECRETKEY";
  const std::string aws_token = "FQoGZXIvYXdzEXAMPLESESSIONTOKEN";
  cli.SetEnv("ENGRAM_EMBED_PROVIDER", "bedrock");
  cli.SetEnv("AWS_ACCESS_KEY_ID", "AKIDEXAMPLE");
  cli.SetEnv("AWS_SECRET_ACCESS_KEY", aws_secret);
  cli.SetEnv("AWS_SESSION_TOKEN", aws_token);
  r = cli.Run({"--verbose", "backfill"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("InvalidSignatureException"), std::string::npos) << r.err;
  output += r.out + r.err;

  ASSERT_FALSE(seen_signature.empty());
  for (const std::string& secret : {std::string(kApiKey), aws_secret, aws_token, seen_signature}) {
    EXPECT_EQ(output.find(secret), std::string::npos) << "leaked: " << secret << "\n" << output;
  }
  EXPECT_NE(output.find("[redacted]"), std::string::npos) << output;
}

TEST(HydeCliTest, EvalReplaysRecordedHypotheses) {
  CliRunner cli;
  const std::string dir = cli.File("ds");
  std::filesystem::create_directories(dir + "/qrels");
  testing::WriteFile(dir + "/corpus.jsonl",
                     R"({"_id": "d1", "title": "", "text": "Purchases table sits in Postgres"})"
                     "\n"
                     R"({"_id": "d2", "title": "", "text": "lunch at noon"})"
                     "\n");
  testing::WriteFile(dir + "/queries.jsonl",
                     R"({"_id": "q1", "text": "where are the order records kept"})"
                     "\n"
                     R"({"_id": "q2", "text": "when is lunch"})"
                     "\n");
  testing::WriteFile(dir + "/qrels/test.tsv", "query-id\tcorpus-id\tscore\nq1\td1\t1\nq2\td2\t1\n");
  const std::string recorded = cli.File("hypotheses.jsonl");
  testing::WriteFile(recorded,
                     R"({"query": "where are the order records kept", "hypothesis": "The order )"
                     R"(records are kept in the purchases table in Postgres."})"
                     "\n");
  auto r = cli.Run({"eval", dir, "--compare", "lexical,blended", "--llm", "scripted:" + recorded,
                    "--hyde-queries-only", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["queries"], 1);  // only the query with a recorded hypothesis
  EXPECT_EQ(j["hyde_queries_kept"], 1);
  EXPECT_EQ(j["hyde_queries_total"], 2);
  EXPECT_DOUBLE_EQ(j["results"]["lexical"]["nDCG@10"].get<double>(), 0.0);
  EXPECT_DOUBLE_EQ(j["results"]["lexical+hyde"]["nDCG@10"].get<double>(), 1.0);
  EXPECT_EQ(j["hyde"]["lexical+hyde"]["hypotheses"], 1);
  EXPECT_EQ(j["hyde"]["blended+hyde"]["fallbacks"], 0);

  // Without --hyde-queries-only every query runs; q2 falls back.
  r = cli.Run({"eval", dir, "--mode", "lexical", "--llm", "scripted:" + recorded, "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto all = nlohmann::json::parse(r.out);
  EXPECT_EQ(all["queries"], 2);
  EXPECT_EQ(all["hyde"]["lexical+hyde"]["hypotheses"], 1);
  EXPECT_EQ(all["hyde"]["lexical+hyde"]["fallbacks"], 1);

  // A missing file is a clear error, not a silent run without HyDE.
  r = cli.Run({"eval", dir, "--mode", "lexical", "--llm", "scripted:" + cli.File("nope.jsonl"),
               "--hyde-queries-only"});
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("nope.jsonl"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace engram

namespace engram {
namespace {

TEST(HydeCliTest, ConfigShowsTheQualityBlockWithSources) {
  CliRunner cli;
  ASSERT_EQ(cli.Run({"add", "Deploys go out on Thursdays"}).exit_code, 0);
  cli.SetEnv("CHATCLI_QUALITY_HYDE_ENABLED", "true");
  cli.SetEnv("ENGRAM_HYDE_NUM_KEYWORDS", "7");
  cli.SetEnv("ENGRAM_LLM_PROVIDER", "ollama:llama3.2");
  cli.SetEnv("OPENAI_API_KEY", kApiKey);
  const auto r = cli.Run({"config"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto has = [&](const std::string& line) {
    EXPECT_NE(r.out.find(line), std::string::npos) << "missing: " << line << "\n" << r.out;
  };
  has("quality:");
  has("HyDE enabled        true  (env CHATCLI_QUALITY_HYDE_ENABLED)");
  has("HyDE use vectors    true  (default)");
  has("HyDE num keywords   7  (env ENGRAM_HYDE_NUM_KEYWORDS)");
  has("HyDE LLM            ollama:llama3.2  (env ENGRAM_LLM_PROVIDER)");
  has("embed provider      local  (default)");
  has("embed model         provider default  (default)");
  has("embed dimensions    native  (default)");
  has("vector provider     local:use-lite-en:512  (flat, int8 scan index)");
  has("vector entries      1  (0 fact(s) without one)");
  EXPECT_EQ(r.out.find(kApiKey), std::string::npos);

  cli.SetEnv("ENGRAM_VECTOR_INT8_SCAN", "true");
  const auto int8 = cli.Run({"config"});
  ASSERT_EQ(int8.exit_code, 0) << int8.err;
  EXPECT_NE(int8.out.find("vector provider     local:use-lite-en:512  (flat, int8 scan index)"),
            std::string::npos)
      << int8.out;
}

}  // namespace
}  // namespace engram
