// What every backend's FactStore promises (src/store/fact_store.h), run on
// each: SQLite and PostgreSQL.
#include "src/store/fact_store.h"

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "src/store/fact_id.h"
#include "src/store/testing/store_backends.h"
#include "tests/store_for_test.h"

namespace engram {
namespace {

using testing::Backend;

FactRow Row(const std::string& content, const std::string& scope = "default",
            std::vector<std::string> tags = {}) {
  return testing::FactRowForTest(content, scope, std::move(tags));
}

class FactStoreTest : public ::testing::TestWithParam<Backend> {
 protected:
  void SetUp() override {
    auto made = testing::StoreForTest::Create(GetParam());
    ASSERT_TRUE(made.ok()) << made.status().ToString();
    made_ = std::move(*made);
    store_ = &made_->store();
  }
  void Put(const FactRow& row) {
    const Status put = store_->Transact([&] { return store_->facts().Insert(row).status(); });
    EXPECT_TRUE(put.ok()) << put.ToString();
  }
  // The totals FullTextTotalsOf gives each scope of `scopes` that holds a
  // fact: "scope:facts,content terms,tags terms,Portuguese facts;".
  std::string Totals(const std::vector<std::string>& scopes) {
    std::string out;
    const std::vector<std::string> missing = *store_->facts().MissingScopes(scopes);
    for (const std::string& scope : scopes) {
      if (std::find(missing.begin(), missing.end(), scope) != missing.end()) continue;
      const FullTextTotals t = *store_->facts().FullTextTotalsOf({scope});
      out += scope + ":" + std::to_string(t.facts) + "," +
             std::to_string(static_cast<int64_t>(t.content_terms)) + "," +
             std::to_string(static_cast<int64_t>(t.tags_terms)) + "," +
             std::to_string(t.portuguese_facts) + ";";
    }
    return out;
  }

  std::unique_ptr<testing::StoreForTest> made_;
  Store* store_ = nullptr;
};

// More facts than one page of PostgreSQL's ForEach, many created at the
// same moment: each once, by scope, created_at and id, stopping when the
// sink says so.
TEST_P(FactStoreTest, ForEachGivesEveryFactOnceInOrderAndStopsWhenAsked) {
  constexpr int kFacts = 2345;
  ASSERT_TRUE(store_
                  ->Transact([&]() -> Status {
                    for (int i = 0; i < kFacts; ++i) {
                      FactRow row =
                          Row("fact number " + std::to_string(i), i % 3 == 0 ? "alpha" : "beta");
                      row.fact.created_at = 1000 + i % 7;
                      ENGRAM_RETURN_IF_ERROR(store_->facts().Insert(row).status());
                    }
                    return Status::OK();
                  })
                  .ok());
  std::vector<std::tuple<std::string, Timestamp, std::string>> seen;
  ASSERT_TRUE(store_->facts()
                  .ForEach({},
                           [&](const StoredFact& f) {
                             seen.emplace_back(f.fact.scope, f.fact.created_at, f.fact.id);
                             return true;
                           })
                  .ok());
  ASSERT_EQ(seen.size(), static_cast<size_t>(kFacts));
  EXPECT_TRUE(std::adjacent_find(seen.begin(), seen.end(),
                                 [](const auto& a, const auto& b) { return !(a < b); }) ==
              seen.end())
      << "not strictly in (scope, created_at, id) order";
  size_t alpha = 0;
  ASSERT_TRUE(store_->facts()
                  .ForEach({"alpha"},
                           [&](const StoredFact& f) {
                             EXPECT_EQ(f.fact.scope, "alpha");
                             ++alpha;
                             return true;
                           })
                  .ok());
  EXPECT_EQ(alpha, static_cast<size_t>((kFacts + 2) / 3));
  size_t calls = 0;
  ASSERT_TRUE(store_->facts().ForEach({}, [&](const StoredFact&) { return ++calls < 1500; }).ok());
  EXPECT_EQ(calls, 1500u);
}

TEST_P(FactStoreTest, InsertThenUpdateTagsKeepsCounters) {
  Put(Row("Prefers tabs", "default", {"style"}));
  auto got = store_->facts().Get("default", FactId("Prefers tabs"));
  ASSERT_TRUE(got.ok());
  ASSERT_TRUE(
      store_
          ->Transact([&] {
            return store_->facts().RecordAccess({{"default", got->rowid, got->fact.id, 1, 5000}});
          })
          .ok());
  ASSERT_TRUE(
      store_
          ->Transact([&] {
            return store_->facts().UpdateTags("default", got->rowid, {"go", "style"}, 9000, 2);
          })
          .ok());
  const Fact f = store_->facts().Get("default", FactId("Prefers tabs"))->fact;
  EXPECT_EQ(f.tags, (std::vector<std::string>{"go", "style"}));
  EXPECT_EQ(f.updated_at, 9000);
  EXPECT_EQ(f.access_count, 1);
  EXPECT_EQ(f.last_accessed, 5000);
  EXPECT_EQ(store_->facts().CountFacts()->facts, 1);
}

// Every insert and update of a fact gives it the store's next change
// number; a scope's largest and its count say whether anything changed;
// deleting the scope's last fact and adding another gives a number above
// every earlier one. PostgreSQL does not number changes.
TEST_P(FactStoreTest, EveryInsertAndUpdateOfAFactTakesTheNextChangeNumber) {
  FactStore& facts = store_->facts();
  if (GetParam() == Backend::kPostgres) {
    EXPECT_EQ(facts.ChangesOf("default").status().code(), StatusCode::kNotSupported);
    return;
  }
  // The facts of `scope` changed since `after`, "content@number" by rowid.
  const auto since = [&](const std::string& scope, int64_t after) {
    std::vector<std::pair<std::string, int64_t>> out;
    const Status s = facts.ForEachChangedSince(scope, after, [&](const StoredFact& f, int64_t n) {
      out.emplace_back(f.fact.content, n);
      return true;
    });
    EXPECT_TRUE(s.ok()) << s.ToString();
    return out;
  };
  const auto changes = [&](const std::string& scope) { return *facts.ChangesOf(scope); };
  EXPECT_EQ(changes("default").last, 0);
  EXPECT_EQ(changes("default").facts, 0);

  Put(Row("Prefers tabs"));
  const ScopeChanges one = changes("default");
  EXPECT_GT(one.last, 0);
  EXPECT_EQ(one.facts, 1);
  Put(Row("Deploys on Fridays", "default", {"ops"}));
  const ScopeChanges two = changes("default");
  EXPECT_GT(two.last, one.last);
  EXPECT_EQ(two.facts, 2);
  EXPECT_EQ(two.store, two.last);
  ASSERT_EQ(since("default", one.last).size(), 1u);
  EXPECT_EQ(since("default", one.last)[0],
            std::make_pair(std::string("Deploys on Fridays"), two.last));
  ASSERT_EQ(since("default", -1).size(), 2u);
  EXPECT_EQ(since("default", -1)[0].first, "Prefers tabs");  // by rowid

  const StoredFact tabs = *facts.Get("default", FactId("Prefers tabs"));
  const StoredFact deploys = *facts.Get("default", FactId("Deploys on Fridays"));
  // An access counted, tags rewritten, a fact superseded: each a change.
  int64_t last = two.last;
  for (const auto& change : std::vector<std::function<Status()>>{
           [&] {
             return facts.RecordAccess({{"default", tabs.rowid, tabs.fact.id, 1, 5000}});
           },
           [&] {
             return facts.UpdateTags("default", deploys.rowid, {"ci", "ops"}, 9000, 2);
           },
           [&] { return facts.SetSuperseded("default", tabs.rowid, "someone", 9500); }}) {
    ASSERT_TRUE(store_->Transact(change).ok());
    const ScopeChanges now = changes("default");
    EXPECT_GT(now.last, last);
    EXPECT_EQ(now.facts, 2);
    ASSERT_EQ(since("default", last).size(), 1u);
    last = now.last;
  }
  EXPECT_EQ(since("default", last).size(), 0u);
  EXPECT_EQ(since("default", two.last)[0].first, "Prefers tabs");
  EXPECT_TRUE(facts.Get("default", tabs.fact.id)->fact.IsSuperseded());

  // Another scope's facts leave this one's as they were.
  Put(Row("Prefers tabs", "other"));
  EXPECT_EQ(changes("default").last, last);
  EXPECT_GT(changes("other").last, last);

  // A deletion shows in the count; a scope emptied and filled again
  // numbers above everything before.
  ASSERT_TRUE(store_
                  ->Transact([&] {
                    return facts.DeleteRowids({"default"}, {tabs.rowid, deploys.rowid}).status();
                  })
                  .ok());
  EXPECT_EQ(changes("default").last, 0);
  EXPECT_EQ(changes("default").facts, 0);
  EXPECT_EQ(changes("default").store, changes("other").last);  // deletions take no number
  Put(Row("Prefers spaces"));
  EXPECT_GT(changes("default").last, changes("other").last);
  EXPECT_EQ(changes("default").facts, 1);
}

// Merged counts add up, the time never moves back, and a count whose row
// holds another fact now (its own was removed and the row reused), or that
// names another scope, is skipped.
TEST_P(FactStoreTest, RecordAccessAddsMergedCountsToTheFactItNames) {
  Put(Row("Prefers tabs"));
  const StoredFact tabs = *store_->facts().Get("default", FactId("Prefers tabs"));
  ASSERT_TRUE(
      store_
          ->Transact([&] {
            return store_->facts().RecordAccess({{"default", tabs.rowid, tabs.fact.id, 3, 7000}});
          })
          .ok());
  ASSERT_TRUE(store_
                  ->Transact([&] {
                    return store_->facts().RecordAccess(
                        {{"default", tabs.rowid, tabs.fact.id, 2, 6000},
                         {"default", tabs.rowid, "not-its-id", 5, 9000},
                         {"elsewhere", tabs.rowid, tabs.fact.id, 5, 9000}});
                  })
                  .ok());
  const Fact f = store_->facts().Get("default", FactId("Prefers tabs"))->fact;
  EXPECT_EQ(f.access_count, 5);
  EXPECT_EQ(f.last_accessed, 7000);
}

// A fact found by its row is looked for in the scopes named with it (on
// PostgreSQL, the scopes' shards): in another scope it is not there, and
// writes by row leave it as it was.
TEST_P(FactStoreTest, ARowIsFoundAndWrittenOnlyInTheScopesNamedWithIt) {
  Put(Row("kept in a", "a"));
  const StoredFact fact = *store_->facts().Get("a", FactId("kept in a"));
  FactVisibility all;
  all.include_superseded = true;
  EXPECT_EQ(store_->facts().RankInputsOf({"b"}, {fact.rowid}, all)->size(), 0u);
  EXPECT_EQ(store_->facts().RankInputsOf({"b", "a"}, {fact.rowid}, all)->size(), 1u);
  EXPECT_EQ(store_->facts().GetByRowids({"b"}, {fact.rowid}).status().code(),
            StatusCode::kNotFound);
  ASSERT_TRUE(store_->facts().GetByRowids({"a"}, {fact.rowid}).ok());
  const std::string totals = Totals({"a"});
  ASSERT_TRUE(
      store_
          ->Transact([&]() -> Status {
            ENGRAM_RETURN_IF_ERROR(store_->facts().SetSuperseded("b", fact.rowid, "someone", 5));
            ENGRAM_RETURN_IF_ERROR(store_->facts().UpdateTags("b", fact.rowid, {"moved"}, 6, 1));
            Fact other_scope = fact.fact;
            other_scope.scope = "b";
            other_scope.kind = "lesson";
            ENGRAM_RETURN_IF_ERROR(store_->facts().UpdateDescription(fact.rowid, other_scope));
            ENGRAM_ASSIGN_OR_RETURN(const int64_t deleted,
                                    store_->facts().DeleteRowids({"b"}, {fact.rowid}));
            return deleted == 0 ? Status::OK() : Internal("deleted from another scope");
          })
          .ok());
  const Fact after = store_->facts().Get("a", FactId("kept in a"))->fact;
  EXPECT_EQ(after.superseded_by, "");
  EXPECT_TRUE(after.tags.empty());
  EXPECT_EQ(after.kind, fact.fact.kind);
  EXPECT_EQ(Totals({"a"}), totals);
  // Its vector, the same: stored and named only with its own scope.
  const std::vector<float> v = {1.0f, 0.0f};
  bool elsewhere = true;
  bool own = false;
  ASSERT_TRUE(store_
                  ->Transact([&]() -> Status {
                    ENGRAM_ASSIGN_OR_RETURN(const int64_t space,
                                            store_->vectors().EnsureSpace({"test", "x", 2}, 0));
                    ENGRAM_ASSIGN_OR_RETURN(
                        elsewhere, store_->vectors().Put(space, "b", fact.rowid, fact.fact.id, v));
                    ENGRAM_ASSIGN_OR_RETURN(
                        own, store_->vectors().Put(space, "a", fact.rowid, fact.fact.id, v));
                    return Status::OK();
                  })
                  .ok());
  EXPECT_FALSE(elsewhere);
  EXPECT_TRUE(own);
  EXPECT_EQ(store_->vectors().FactIdOf("b", fact.rowid).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(*store_->vectors().FactIdOf("a", fact.rowid), fact.fact.id);
  ASSERT_TRUE(
      store_->Transact([&] { return store_->facts().DeleteRowids({"a"}, {fact.rowid}).status(); })
          .ok());
  EXPECT_EQ(store_->facts().CountFacts()->facts, 0);
}

TEST_P(FactStoreTest, InsertingTheSameScopeAndIdTwiceFails) {
  Put(Row("once"));
  EXPECT_FALSE(store_->Transact([&] { return store_->facts().Insert(Row("once")).status(); }).ok());
  EXPECT_EQ(store_->facts().CountFacts()->facts, 1);
}

TEST_P(FactStoreTest, MetaValuesPersistAndMissingOnesAreNotFound) {
  EXPECT_EQ(store_->GetMeta("nope").status().code(), StatusCode::kNotFound);
  ASSERT_TRUE(store_->SetMeta("k", "v1").ok());
  ASSERT_TRUE(store_->SetMeta("k", "v2").ok());
  EXPECT_EQ(*store_->GetMeta("k"), "v2");
}

TEST_P(FactStoreTest, MissingScopesAreReported) {
  Put(Row("here", "a"));
  EXPECT_EQ(*store_->facts().MissingScopes({"a", "b"}), (std::vector<std::string>{"b"}));
}

TEST_P(FactStoreTest, SameTextInTwoScopesIsTwoFacts) {
  Put(Row("shared text", "a"));
  Put(Row("shared text", "b"));
  EXPECT_EQ(store_->facts().CountFacts()->facts, 2);
  EXPECT_EQ(store_->facts().CountFacts()->scopes.size(), 2u);
}

TEST_P(FactStoreTest, GetByUniquePrefixAndRejectsAmbiguousOrMissing) {
  Put(Row("alpha"));
  const std::string id = FactId("alpha");
  auto got = store_->facts().Get("default", id.substr(0, 6));
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ(got->fact.content, "alpha");
  EXPECT_EQ(store_->facts().Get("other", id).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(store_->facts().Get("default", "zz").status().code(), StatusCode::kInvalidArgument);
  // The minimum prefix is 4 hex digits; among 600 facts (ids are fixed by
  // their text) two share one.
  for (int i = 0; i < 600; ++i) Put(Row("fact number " + std::to_string(i)));
  std::map<std::string, int> prefixes;
  ListOptions all;
  all.limit = 0;
  auto listed = store_->facts().List(all, {});
  ASSERT_TRUE(listed.ok());
  for (const Fact& x : *listed) ++prefixes[x.id.substr(0, 4)];
  const auto dup =
      std::find_if(prefixes.begin(), prefixes.end(), [](const auto& p) { return p.second > 1; });
  ASSERT_NE(dup, prefixes.end());
  auto amb = store_->facts().Get("default", dup->first);
  EXPECT_EQ(amb.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(amb.status().message().find("several"), std::string::npos);
}

// Find answers as Get does within the scope, and says "absent" with
// nullopt instead of looking through every scope to name where the id is.
TEST_P(FactStoreTest, FindIsGetWithinTheScopeAndAbsenceIsNoError) {
  Put(Row("alpha"));
  const std::string id = FactId("alpha");
  auto found = store_->facts().Find("default", id.substr(0, 6));
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ((*found)->fact.content, "alpha");
  EXPECT_EQ((*found)->rowid, store_->facts().Get("default", id)->rowid);
  auto absent = store_->facts().Find("other", id);
  ASSERT_TRUE(absent.ok()) << absent.status().ToString();
  EXPECT_FALSE(absent->has_value());
  const Status elsewhere = store_->facts().Get("other", id).status();
  EXPECT_EQ(elsewhere.code(), StatusCode::kNotFound);
  EXPECT_NE(elsewhere.message().find("it is in scope 'default'"), std::string::npos)
      << elsewhere.message();
  EXPECT_EQ(store_->facts().Find("default", "zz").status().code(), StatusCode::kInvalidArgument);
}

TEST_P(FactStoreTest, DeletesByTagAndScopeOnlyWithinScope) {
  Put(Row("one", "a", {"tmp"}));
  Put(Row("two", "a", {"keep"}));
  Put(Row("three", "b", {"tmp"}));
  int64_t n = 0;
  ASSERT_TRUE(store_
                  ->Transact([&] {
                    auto r = store_->facts().DeleteTag("a", "tmp");
                    n = r.ok() ? *r : -1;
                    return r.status();
                  })
                  .ok());
  EXPECT_EQ(n, 1);
  ASSERT_TRUE(store_
                  ->Transact([&] {
                    auto r = store_->facts().DeleteScope("a");
                    n = r.ok() ? *r : -1;
                    return r.status();
                  })
                  .ok());
  EXPECT_EQ(n, 1);
  EXPECT_EQ(store_->facts().CountFacts()->facts, 1);
}

TEST_P(FactStoreTest, ScopeStatsFollowEveryWrite) {
  auto counted = [](const std::string& content, const std::string& scope,
                    std::vector<std::string> tags) {
    FactRow row = Row(content, scope, std::move(tags));
    row.text.content_terms = static_cast<int64_t>(content.size());
    row.text.tags_terms = static_cast<int64_t>(row.fact.tags.size());
    return row;
  };
  auto expect_in_step = [&](const char* after, const std::string& want) {
    EXPECT_EQ(Totals({"a", "b"}), want) << "after " << after;
    std::vector<std::string> problems;
    std::vector<std::string> skipped;
    ASSERT_TRUE(store_->CheckIntegrity(&problems, &skipped).ok());
    EXPECT_TRUE(problems.empty()) << "after " << after << ": " << problems[0];
  };
  Put(counted("one two", "a", {"tmp"}));
  FactRow portuguese = counted("three", "a", {"keep", "x"});
  portuguese.text.portuguese = true;
  Put(portuguese);
  Put(counted("four", "b", {"tmp"}));
  expect_in_step("inserts", "a:2,12,3,1;b:1,4,1,0;");
  const int64_t three = store_->facts().Get("a", FactId("three"))->rowid;
  ASSERT_TRUE(
      store_->Transact([&] { return store_->facts().UpdateTags("a", three, {"k"}, 2000, 1); })
          .ok());
  expect_in_step("a tag update", "a:2,12,2,1;b:1,4,1,0;");
  ASSERT_TRUE(store_
                  ->Transact([&] {
                    return store_->facts().RecordAccess({{"a", three, FactId("three"), 1, 3000}});
                  })
                  .ok());
  expect_in_step("an access", "a:2,12,2,1;b:1,4,1,0;");
  ASSERT_TRUE(
      store_->Transact([&] { return store_->facts().DeleteTag("a", "tmp").status(); }).ok());
  expect_in_step("a delete by tag", "a:1,5,1,1;b:1,4,1,0;");
  ASSERT_TRUE(
      store_->Transact([&] { return store_->facts().DeleteRowids({"a"}, {three}).status(); }).ok());
  expect_in_step("the scope's last fact went", "b:1,4,1,0;");
  EXPECT_EQ(*store_->facts().MissingScopes({"a", "b"}), std::vector<std::string>{"a"});
  Status failed = store_->Transact([&]() -> Status {
    ENGRAM_RETURN_IF_ERROR(store_->facts().Insert(counted("five", "b", {})).status());
    return IOError("disk full (simulated)");
  });
  ASSERT_FALSE(failed.ok());
  expect_in_step("a rolled-back insert", "b:1,4,1,0;");
  ASSERT_TRUE(store_->Transact([&] { return store_->facts().DeleteScope("b").status(); }).ok());
  expect_in_step("a scope delete", "");
}

TEST_P(FactStoreTest, FailedTransactionLeavesNothing) {
  Status s = store_->Transact([&]() -> Status {
    ENGRAM_RETURN_IF_ERROR(store_->facts().Insert(Row("first")).status());
    return IOError("disk full (simulated)");
  });
  EXPECT_FALSE(s.ok());
  EXPECT_EQ(store_->facts().CountFacts()->facts, 0);
}

INSTANTIATE_TEST_SUITE_P(Backends, FactStoreTest, ::testing::ValuesIn(testing::AllBackends()),
                         [](const auto& info) { return testing::BackendName(info.param); });

}  // namespace
}  // namespace engram
