#include "src/llm/scripted_llm.h"

#include <filesystem>
#include <fstream>
#include <string>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "engram/llm.h"

namespace engram {
namespace {

using ::testing::HasSubstr;

// A file in the test's temporary directory holding `contents`.
std::string WriteFile(const std::string& name, const std::string& contents) {
  std::string path = (std::filesystem::path(::testing::TempDir()) / name).string();
  std::ofstream(path, std::ios::binary) << contents;
  return path;
}

LlmRequest Query(const std::string& user) {
  LlmRequest request;
  request.system = "ignored";
  request.user = user;
  return request;
}

TEST(ScriptedLlmTest, AnswersEveryQueryOfTheExampleFile) {
  const std::string path = std::string(ENGRAM_TEST_DATA_DIR) + "/hyde/scripted_example.jsonl";
  Result<std::unique_ptr<Llm>> llm = CreateLlm("scripted:" + path, LlmOptions{});
  ASSERT_TRUE(llm.ok()) << llm.status().ToString();
  EXPECT_EQ((*llm)->Name(), "scripted:" + path);
  std::ifstream in(path);
  std::string line;
  int answered = 0;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const nlohmann::json entry = nlohmann::json::parse(line);
    Result<std::string> answer = (*llm)->Complete(Query(entry["query"]));
    ASSERT_TRUE(answer.ok()) << answer.status().ToString();
    EXPECT_EQ(*answer, entry["hypothesis"]);
    ++answered;
  }
  EXPECT_GE(answered, 3);
}

TEST(ScriptedLlmTest, LooksUpTheTrimmedQueryExactly) {
  const std::string path = WriteFile(
      "exact.jsonl",
      "{\"query\": \" rotate logs \", \"hypothesis\": \"  Use logrotate.\\n\", \"note\": 1}\n");
  Result<std::unique_ptr<Llm>> llm = ScriptedLlm::Load(path);
  ASSERT_TRUE(llm.ok()) << llm.status().ToString();
  Result<std::string> answer = (*llm)->Complete(Query("\trotate logs\n"));
  ASSERT_TRUE(answer.ok()) << answer.status().ToString();
  EXPECT_EQ(*answer, "Use logrotate.");
  EXPECT_EQ((*llm)->Complete(Query("Rotate logs")).status().code(), StatusCode::kNotFound);
  EXPECT_EQ((*llm)->Complete(Query("rotate  logs")).status().code(), StatusCode::kNotFound);
}

TEST(ScriptedLlmTest, UnknownQueryIsNotFoundNamingIt) {
  const std::string path = WriteFile("one.jsonl", R"({"query": "a", "hypothesis": "b"})");
  Result<std::unique_ptr<Llm>> llm = ScriptedLlm::Load(path);
  ASSERT_TRUE(llm.ok()) << llm.status().ToString();
  Result<std::string> answer = (*llm)->Complete(Query(" where is the config? "));
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(answer.status().message(),
            "llm: scripted: no hypothesis for query 'where is the config?'");
}

TEST(ScriptedLlmTest, LongQueryIsCutInTheErrorAtACharacterBoundary) {
  const std::string path = WriteFile("cut.jsonl", "");
  Result<std::unique_ptr<Llm>> llm = ScriptedLlm::Load(path);
  ASSERT_TRUE(llm.ok()) << llm.status().ToString();
  std::string query = "x";
  for (int i = 0; i < 150; ++i) query += "é";  // two bytes each
  const std::string message = (*llm)->Complete(Query(query)).status().message();
  EXPECT_LT(message.size(), 300u);
  EXPECT_THAT(message, HasSubstr("...'"));
  EXPECT_THAT(message, HasSubstr("xéé"));
  EXPECT_EQ(message.find("\xC3'"), std::string::npos) << "no half character";
}

TEST(ScriptedLlmTest, SkipsBlankLinesButCountsThem) {
  const std::string path = WriteFile("blank.jsonl",
                                     "\n"
                                     "{\"query\": \"a\", \"hypothesis\": \"b\"}\r\n"
                                     "   \n"
                                     "{\"query\": \"c\", \"hypothesis\": \"d\"}\n"
                                     "\n");
  Result<std::unique_ptr<Llm>> llm = ScriptedLlm::Load(path);
  ASSERT_TRUE(llm.ok()) << llm.status().ToString();
  EXPECT_EQ(*(*llm)->Complete(Query("a")), "b");
  EXPECT_EQ(*(*llm)->Complete(Query("c")), "d");
}

TEST(ScriptedLlmTest, MalformedLineNamesTheFileAndTheLine) {
  const std::string good = "{\"query\": \"a\", \"hypothesis\": \"b\"}\n\n";
  const char* const bad_lines[] = {
      "{\"query\": \"q\", \"hypothesis\": ",  // cut short
      "not json at all",
      "[\"query\", \"hypothesis\"]",
      "\"a string\"",
      "{\"query\": \"q\"}",
      "{\"hypothesis\": \"h\"}",
      "{\"query\": 5, \"hypothesis\": \"h\"}",
      "{\"query\": \"q\", \"hypothesis\": [\"h\"]}",
      "{\"query\": \"  \", \"hypothesis\": \"h\"}",
      "{\"query\": \"q\", \"hypothesis\": \"\"}",
      "{\"query\": \"\xff\xfe\", \"hypothesis\": \"h\"}",  // not UTF-8
  };
  for (const char* bad : bad_lines) {
    std::string contents = good;
    contents.append(bad).append("\n").append(good);
    const std::string path = WriteFile("bad.jsonl", contents);
    Result<std::unique_ptr<Llm>> llm = CreateLlm("scripted:" + path, LlmOptions{});
    ASSERT_FALSE(llm.ok()) << bad;
    EXPECT_EQ(llm.status().code(), StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(llm.status().message(), HasSubstr("llm: scripted: '" + path + "' line 3: ")) << bad;
  }
}

TEST(ScriptedLlmTest, MissingFileIsNotFound) {
  const std::string path = (std::filesystem::path(::testing::TempDir()) / "absent.jsonl").string();
  Result<std::unique_ptr<Llm>> llm = CreateLlm("scripted:" + path, LlmOptions{});
  ASSERT_FALSE(llm.ok());
  EXPECT_EQ(llm.status().code(), StatusCode::kNotFound);
  EXPECT_THAT(llm.status().message(), HasSubstr(path));
}

TEST(ScriptedLlmTest, DirectoryIsInvalidArgument) {
  Result<std::unique_ptr<Llm>> llm = ScriptedLlm::Load(::testing::TempDir());
  ASSERT_FALSE(llm.ok());
  EXPECT_EQ(llm.status().code(), StatusCode::kInvalidArgument);
}

TEST(ScriptedLlmTest, DuplicateQueryNamesBothLines) {
  const std::string path = WriteFile("dup.jsonl",
                                     "{\"query\": \"same\", \"hypothesis\": \"first\"}\n"
                                     "{\"query\": \"other\", \"hypothesis\": \"x\"}\n"
                                     "{\"query\": \" same \", \"hypothesis\": \"second\"}\n");
  Result<std::unique_ptr<Llm>> llm = ScriptedLlm::Load(path);
  ASSERT_FALSE(llm.ok());
  EXPECT_EQ(llm.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(llm.status().message(),
            "llm: scripted: '" + path + "' line 3: query 'same' is already on line 1");
}

TEST(ScriptedLlmTest, SpecNeedsAFile) {
  Result<std::unique_ptr<Llm>> llm = CreateLlm("scripted", LlmOptions{});
  ASSERT_FALSE(llm.ok());
  EXPECT_EQ(llm.status().code(), StatusCode::kInvalidArgument);
  EXPECT_THAT(llm.status().message(), HasSubstr("scripted:FILE"));
}

}  // namespace
}  // namespace engram
