#include "src/text/analyzer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

namespace engram {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

std::vector<std::string> Terms(const std::vector<AnalyzedToken>& tokens) {
  std::vector<std::string> terms;
  for (const AnalyzedToken& token : tokens) terms.push_back(token.term);
  return terms;
}

std::vector<std::string> Terms(std::string_view text, const AnalyzerOptions& options = {}) {
  return Terms(Analyze(text, options));
}

std::vector<std::string> Terms(std::string_view text, Language language,
                               const AnalyzerOptions& options = {}) {
  return Terms(Analyze(text, language, options));
}

TEST(AnalyzerTest, LanguageNamesAreIsoCodes) {
  EXPECT_EQ(LanguageName(Language::kEnglish), "en");
  EXPECT_EQ(LanguageName(Language::kPortuguese), "pt");
}

TEST(AnalyzerTest, EnglishInflectionsShareAStem) {
  EXPECT_THAT(Terms("running runs"), ElementsAre("run", "run"));
}

TEST(AnalyzerTest, StopWordsAndQuestionWordsAreRemoved) {
  EXPECT_THAT(Terms("What did the server do when it crashed?"), ElementsAre("server", "crash"));
  EXPECT_THAT(Terms("Quando o servidor caiu e por que?"), ElementsAre("servidor", "caiu"));
}

TEST(AnalyzerTest, OnlyTheTextsLanguageListApplies) {
  // Portuguese function words are English content words: a region, a
  // field, blood sera, a microscope.
  EXPECT_THAT(Terms("The AI team deploys to eu-west-1", Language::kEnglish),
              ElementsAre("ai", "team", "deploy", "eu", "west", "1"));
  EXPECT_THAT(Terms("sera under the SEM", Language::kEnglish), ElementsAre("sera", "sem"));
  // And the other way round.
  EXPECT_THAT(Terms("eu uso o editor it", Language::kPortuguese),
              ElementsAre("uso", "editor", "it"));
  // Detection still counts both lists' evidence.
  EXPECT_THAT(Terms("eu não uso isso"), ElementsAre("uso"));
}

TEST(AnalyzerTest, TermAsStemsOneWordInAnotherLanguage) {
  const std::string text = "preferência de idioma";
  const std::vector<AnalyzedToken> tokens = Analyze(text, Language::kPortuguese);
  ASSERT_EQ(tokens.size(), 2u);
  EXPECT_EQ(tokens[1].term, "idiom");
  EXPECT_EQ(TermAs(text, tokens[1], Language::kEnglish), "idioma");
  EXPECT_EQ(TermAs(text, tokens[1], Language::kPortuguese), "idiom");
  EXPECT_EQ(TermAs(text, tokens[0], Language::kEnglish), "preferencia");
}

TEST(AnalyzerTest, StopWordRemovalCanBeTurnedOff) {
  AnalyzerOptions options;
  options.remove_stop_words = false;
  EXPECT_THAT(Terms("what is it", Language::kEnglish, options), ElementsAre("what", "is", "it"));
}

TEST(AnalyzerTest, StemmingCanBeTurnedOff) {
  AnalyzerOptions options;
  options.stem = false;
  EXPECT_THAT(Terms("Running configurações", options), ElementsAre("running", "configuracoes"));
}

TEST(AnalyzerTest, CaseAndAccentsFoldToOneTerm) {
  EXPECT_EQ(Terms("Ação", Language::kPortuguese), Terms("acao", Language::kPortuguese));
  EXPECT_EQ(Terms("AÇÃO", Language::kPortuguese), Terms("ação", Language::kPortuguese));
  EXPECT_EQ(Terms("Café", Language::kEnglish), Terms("cafe", Language::kEnglish));
  EXPECT_THAT(Terms("Ação", Language::kPortuguese), ElementsAre("aca"));
}

TEST(AnalyzerTest, AccentedStopWordsAreRemovedInBothSpellings) {
  EXPECT_THAT(Terms("você voce não nao"), IsEmpty());
}

TEST(AnalyzerTest, DetectsPortugueseAndStemsWithItsStemmer) {
  EXPECT_EQ(DetectLanguage("As configurações do servidor"), Language::kPortuguese);
  EXPECT_THAT(Terms("As configurações do servidor"), ElementsAre("configur", "servidor"));
  EXPECT_EQ(DetectLanguage("Qual é a senha que eu uso para o banco?"), Language::kPortuguese);
}

TEST(AnalyzerTest, ReportsTheLanguageItDetected) {
  Language detected = Language::kEnglish;
  EXPECT_EQ(Analyze("As configurações do servidor", {}, &detected).size(), 2u);
  EXPECT_EQ(detected, Language::kPortuguese);
  Analyze("What is the weather in São Paulo?", {}, &detected);
  EXPECT_EQ(detected, Language::kEnglish);
}

TEST(AnalyzerTest, DetectsEnglishByDefault) {
  EXPECT_EQ(DetectLanguage(""), Language::kEnglish);
  EXPECT_EQ(DetectLanguage("kubernetes cluster"), Language::kEnglish);
  EXPECT_EQ(DetectLanguage("What is the weather in São Paulo?"), Language::kEnglish);
  // Words on both lists ("a", "as", "do", "no") are no evidence.
  EXPECT_EQ(DetectLanguage("do as a no"), Language::kEnglish);
}

TEST(AnalyzerTest, PortugueseNeedsClearlyMoreEvidenceThanEnglish) {
  // One English stop word ("the") against one Portuguese ("que"): a tie.
  EXPECT_EQ(DetectLanguage("the que"), Language::kEnglish);
  // Two Portuguese against one English: twice as many.
  EXPECT_EQ(DetectLanguage("the que uma"), Language::kPortuguese);
}

TEST(AnalyzerTest, ExplicitLanguageOverridesDetection) {
  EXPECT_THAT(Terms("configurações servidores", Language::kEnglish),
              ElementsAre("configuraco", "servidor"));
  EXPECT_THAT(Terms("configurações servidores", Language::kPortuguese),
              ElementsAre("configur", "servidor"));
}

TEST(AnalyzerTest, OffsetsPointIntoTheOriginalBytes) {
  const std::string text = "Olá, ação rápida: café!";
  const std::vector<AnalyzedToken> tokens =
      Analyze(text, Language::kPortuguese, {.remove_stop_words = true, .stem = false});
  ASSERT_EQ(tokens.size(), 4u);
  EXPECT_EQ(text.substr(tokens[0].begin, tokens[0].end - tokens[0].begin), "Olá");
  EXPECT_EQ(text.substr(tokens[1].begin, tokens[1].end - tokens[1].begin), "ação");
  EXPECT_EQ(text.substr(tokens[2].begin, tokens[2].end - tokens[2].begin), "rápida");
  EXPECT_EQ(text.substr(tokens[3].begin, tokens[3].end - tokens[3].begin), "café");
  EXPECT_EQ(tokens[1].begin, 6u);  // "Olá, " is 6 bytes
  EXPECT_EQ(tokens[1].end, 12u);   // "ação" is 6 bytes
}

TEST(AnalyzerTest, NfkcFoldsCompatibilityCharacters) {
  EXPECT_THAT(Terms("ﬁle", Language::kEnglish), ElementsAre("file"));
  EXPECT_THAT(Terms("Ｓｅｒｖｅｒ", Language::kEnglish), ElementsAre("server"));
}

TEST(AnalyzerTest, DecomposedAccentsStayInsideTheWord) {
  // "ação" in NFD: a, c + U+0327, a + U+0303, o.
  const std::string decomposed =
      "ac\xCC\xA7"
      "a\xCC\x83o";
  const std::vector<AnalyzedToken> tokens = Analyze(decomposed, Language::kPortuguese);
  ASSERT_EQ(tokens.size(), 1u);
  EXPECT_EQ(tokens[0].term, "aca");
  EXPECT_EQ(tokens[0].end, decomposed.size());
}

TEST(AnalyzerTest, SplitsOnNonWordCharactersButKeepsUnderscore) {
  EXPECT_THAT(Terms("file_name.cc", Language::kEnglish, {.stem = false}),
              ElementsAre("file_name", "cc"));
  EXPECT_THAT(Terms("__init__ ___", Language::kEnglish, {.stem = false}), ElementsAre("init"));
  EXPECT_THAT(Terms("don't", Language::kEnglish), IsEmpty());
}

TEST(AnalyzerTest, NumbersAreKept) {
  EXPECT_THAT(Terms("in 2024 at 10:30"), ElementsAre("2024", "10", "30"));
}

TEST(AnalyzerTest, InputWithoutWordsGivesNoTokens) {
  EXPECT_THAT(Analyze(""), IsEmpty());
  EXPECT_THAT(Analyze(" \t\n  "), IsEmpty());
  EXPECT_THAT(Analyze("?!... -- (…) «»"), IsEmpty());
}

}  // namespace
}  // namespace engram
