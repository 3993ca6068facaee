// What a text puts in the full-text index: the forms, and a fact's entry
// as term arrays, checked against what SQLite's FTS5 index counts for the
// same facts.
#include "src/store/index_forms.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "src/store/fact_store.h"
#include "src/text/analyzer.h"
#include "tests/store_for_test.h"
#include "tests/test_util.h"

namespace engram {
namespace {

TEST(IndexFormsTest, APortugueseTextHasEachTermsPortugueseFormBesideIt) {
  const std::vector<IndexForm> english = IndexForms("Deploying the services");
  ASSERT_EQ(english.size(), 2u);
  EXPECT_EQ(english[0].form, "deploy");
  EXPECT_FALSE(english[0].colocated);
  EXPECT_EQ(english[1].form, "servic");

  const std::vector<IndexForm> portuguese = IndexForms("A configuração do servidor");
  ASSERT_EQ(portuguese.size(), 4u);
  EXPECT_FALSE(portuguese[0].colocated);
  EXPECT_TRUE(portuguese[1].colocated);
  EXPECT_EQ(portuguese[1].form, PortugueseTextForm(portuguese[0].form));
  EXPECT_EQ(portuguese[1].begin, portuguese[0].begin);
  EXPECT_EQ(portuguese[1].end, portuguese[0].end);
}

TEST(FullTextEntryTest, CountsEveryFormAsTheSqliteIndexDoes) {
  struct Case {
    std::string id;
    std::string content;
    std::vector<std::string> tags;
  };
  const std::vector<Case> cases = {
      {"a", "Deploying the deploy service deploys twice, then deploys again", {"deploy", "ops"}},
      {"b", "A configuração do servidor de configuração fica em /etc/ledger", {"servidor"}},
      {"c", "Tags only matter here", {"rare-tag", "Tag", "tags"}},
      {"d", "Número 42 e 42 e quarenta e dois", {}},
  };
  const testing::TempDir dir;
  auto store = testing::OpenStoreForTest(dir.File("memory.db"));
  ASSERT_TRUE(store.ok()) << store.status().ToString();
  for (const Case& c : cases) {
    FactRow row;
    row.fact.id = c.id;
    row.fact.scope = kDefaultScope;
    row.fact.content = c.content;
    row.fact.tags = c.tags;
    ASSERT_TRUE((*store)->Transact([&] { return (*store)->facts().Insert(row).status(); }).ok());
  }
  for (const Case& c : cases) {
    const FullTextEntry entry = FullTextEntryOf(c.content, EncodeTags(c.tags));
    ASSERT_FALSE(entry.terms.empty()) << c.id;
    ASSERT_EQ(entry.content_tf.size(), entry.terms.size());
    ASSERT_EQ(entry.tags_tf.size(), entry.terms.size());
    auto matches = (*store)->facts().MatchFullText(entry.terms, /*content_only=*/false, {}, {});
    ASSERT_TRUE(matches.ok()) << matches.status().ToString();
    const auto match = std::find_if(matches->begin(), matches->end(),
                                    [&](const FullTextMatch& m) { return m.id == c.id; });
    ASSERT_NE(match, matches->end()) << c.id;
    for (size_t p = 0; p < entry.terms.size(); ++p) {
      EXPECT_EQ(match->tf[2 * p], entry.content_tf[p]) << c.id << " content " << entry.terms[p];
      EXPECT_EQ(match->tf[2 * p + 1], entry.tags_tf[p]) << c.id << " tags " << entry.terms[p];
    }
  }
  // The repeated words are counted, not just present.
  const FullTextEntry a = FullTextEntryOf(cases[0].content, EncodeTags(cases[0].tags));
  EXPECT_EQ(a.terms[0], "deploy");
  EXPECT_EQ(a.content_tf[0], 4);
  EXPECT_EQ(a.tags_tf[0], 1);
}

}  // namespace
}  // namespace engram
