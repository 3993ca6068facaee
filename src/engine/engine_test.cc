// The engine end to end on each store, a real SQLite file and a real
// PostgreSQL database: add, merge, search modes, access recording, forget,
// export/import round trip, atomic imports. What only the SQLite file does
// (a memory map, its full-text index rebuilt) is tested on it alone.
#include "engram/engine.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>

#include "src/store/sqlite/fts5_engram.h"
#include "src/store/sqlite/sqlite_db.h"
#include "src/store/testing/store_place_test.h"
#include "tests/test_util.h"

namespace engram {
namespace {

constexpr Timestamp kDay = 86400000;
constexpr Timestamp kNow = 1780000000000;  // 2026-05-28

using testing::Backend;

// The engine on a store of `backend` of its own.
class EngineTestBase : public testing::StorePlaceTest {
 protected:
  explicit EngineTestBase(Backend backend) : StorePlaceTest(backend) {}

  void SetUpStore() override { Reopen(); }
  void TearDown() override { engine_.reset(); }

  // Options that open the test's store.
  EngineOptions StoreOptions() const {
    EngineOptions o;
    place_->Apply(&o);
    o.clock = clock_;
    return o;
  }

  // Opens the engine again, with `tweak` applied to its options.
  void Reopen(const std::function<void(EngineOptions&)>& tweak = {}) {
    engine_.reset();
    EngineOptions o = StoreOptions();
    if (tweak) tweak(o);
    auto engine = Engine::Open(o);
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    engine_ = std::move(*engine);
  }

  Fact Add(const std::string& content, std::vector<std::string> tags = {},
           std::optional<Timestamp> created = std::nullopt, const std::string& scope = "default") {
    NewFact f;
    f.content = content;
    f.tags = std::move(tags);
    f.created_at = created;
    f.scope = scope;
    auto r = engine_->Add(f);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->fact : Fact{};
  }

  std::vector<std::string> Contents(const std::string& q, FusionMode mode, size_t k = 10) {
    SearchOptions o;
    o.mode = mode;
    o.k = k;
    o.record_access = false;
    auto r = engine_->Search(q, o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> out;
    for (const auto& h : r->hits) out.push_back(h.fact.content);
    return out;
  }

  // The SQLite file of a SQLite store.
  std::string SqlitePath() const { return place_->Directory() + "/memory.db"; }

  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>(kNow);
  std::unique_ptr<Engine> engine_;
};

class EngineTest : public EngineTestBase, public ::testing::WithParamInterface<Backend> {
 protected:
  EngineTest() : EngineTestBase(GetParam()) {}
};

class SqliteEngineTest : public EngineTestBase {
 protected:
  SqliteEngineTest() : EngineTestBase(Backend::kSqlite) {}
};

TEST_P(EngineTest, AddingTheSameTextMergesInsteadOfDuplicating) {
  const Fact a = Add("Postgres listens on 5433", {"db"});
  clock_->AdvanceMillis(1000);
  NewFact again;
  again.content = "postgres   listens on 5433";
  again.tags = {"ports"};
  auto r = engine_->Add(again);
  ASSERT_TRUE(r.ok());
  EXPECT_FALSE(r->created);
  EXPECT_EQ(r->fact.id, a.id);
  EXPECT_EQ(r->fact.tags, (std::vector<std::string>{"db", "ports"}));
  EXPECT_EQ(r->fact.updated_at, kNow + 1000);
  EXPECT_EQ(r->fact.created_at, kNow);
  EXPECT_EQ(engine_->Stats()->facts, 1);
  // The merged tag is searchable.
  EXPECT_EQ(Contents("ports", FusionMode::kLexical).size(), 1u);
}

TEST_P(EngineTest, LexicalModeRanksByBm25) {
  Add("The billing service deploys on Thursdays");
  Add("Deploy checklist: run migrations, then deploy the billing API, then smoke-test");
  Add("Lunch is at noon");
  const auto got = Contents("deploy checklist", FusionMode::kLexical);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0],
            "Deploy checklist: run migrations, then deploy the billing API, then smoke-test");
}

// The file mapped (EngineOptions::map_store, which the one-shot commands
// set): the process maps the database, and reads and writes answer as
// through read calls.
TEST_F(SqliteEngineTest, AMappedStoreAnswersAsAReadOne) {
  const auto mapped = [&] {
    std::ifstream maps("/proc/self/maps");
    std::stringstream text;
    text << maps.rdbuf();
    // The file itself, not its WAL's shared memory (memory.db-shm).
    return text.str().find(SqlitePath() + "\n") != std::string::npos;
  };
  Add("The billing service deploys on Thursdays");
  Add("Deploy checklist: run migrations, then deploy the billing API");
  const auto read = Contents("deploy billing", FusionMode::kLexical);
  EXPECT_FALSE(mapped());
  Reopen([](EngineOptions& o) { o.map_store = true; });
  EXPECT_EQ(Contents("deploy billing", FusionMode::kLexical), read);
  EXPECT_TRUE(mapped());
  Add("The billing API deploys on Fridays");
  const auto after = Contents("deploy billing", FusionMode::kLexical);
  EXPECT_EQ(after.size(), 3u);
  Reopen();
  EXPECT_EQ(Contents("deploy billing", FusionMode::kLexical), after);
}

TEST_P(EngineTest, BlendedPrefersRecentAmongEqualMatches) {
  // Same length in terms, one match each: BM25 ties, and the tie-break by id
  // alone would put the older one first (its id sorts lower).
  const Fact old_fact = Add("editor neovim keys", {}, kNow - 400 * kDay);
  const Fact new_fact = Add("editor vscode keys", {}, kNow - 2 * kDay);
  ASSERT_LT(old_fact.id, new_fact.id);
  EXPECT_EQ(Contents("editor", FusionMode::kLexical)[0], "editor neovim keys");
  const auto got = Contents("editor", FusionMode::kBlended);
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[0], "editor vscode keys");
}

TEST_P(EngineTest, NoMatchAnswersNothingAndSaysSo) {
  Add("the staging database listens on port 5433");
  SearchOptions o;
  o.record_access = false;
  auto r = engine_->Search("zebra quantum", o);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->no_match);
  EXPECT_FALSE(r->temporal_fallback);
  EXPECT_TRUE(r->hits.empty());
  auto matched = engine_->Search("staging port", o);
  ASSERT_TRUE(matched.ok());
  EXPECT_FALSE(matched->no_match);
  EXPECT_EQ(matched->hits.size(), 1u);
}

TEST_P(EngineTest, AQueryThatSharesOnlyAMinorWordFindsNothing) {
  Add("Caroline is planning an art show with her paintings");
  Add("the staging database listens on port 5433");
  Add("Melanie painted a lake sunrise last year");
  SearchOptions o;
  o.record_access = false;
  // "show" carries under a tenth of the query's weight: the other words are
  // in no fact of the scope.
  auto r = engine_->Search("zero-dimensional biomaterials show inductive properties", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->no_match);
  EXPECT_TRUE(r->hits.empty());
  EXPECT_EQ(r->without_evidence, 1u);
  // The same word is evidence when it is most of what the query asks.
  auto shown = engine_->Search("which show", o);
  ASSERT_TRUE(shown.ok());
  ASSERT_EQ(shown->hits.size(), 1u);
  EXPECT_FALSE(shown->no_match);
  // With the check off, the weak match is returned.
  Reopen([](EngineOptions& opts) { opts.fusion.min_lexical_coverage = 0.0; });
  auto off = engine_->Search("zero-dimensional biomaterials show inductive properties", o);
  ASSERT_TRUE(off.ok());
  ASSERT_EQ(off->hits.size(), 1u);
  EXPECT_EQ(off->without_evidence, 0u);
}

TEST_P(EngineTest, ALoneExactMatchScoresHigh) {
  Add("Deploys are frozen on Fridays", {}, kNow - 400 * kDay);
  SearchOptions o;
  o.record_access = false;
  auto r = engine_->Search("Deploys are frozen on Fridays", o);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->hits.size(), 1u);
  EXPECT_GE(r->hits[0].score, 0.5);
  // Two facts matching alike: both keep a full lexical value, not 0.
  Add("frozen deploys on Fridays", {}, kNow - 400 * kDay);
  o.explain = true;
  auto two = engine_->Search("frozen", o);
  ASSERT_TRUE(two.ok());
  ASSERT_EQ(two->hits.size(), 2u);
  for (const SearchHit& h : two->hits) EXPECT_GE(h.score, 0.5) << h.fact.content;
}

TEST_P(EngineTest, MinScoreDropsWeakBlendedHitsAndCountsThem) {
  Add("postgres listens on port 5433 in staging");
  Add("the cafeteria closes at three");
  Reopen([](EngineOptions& o) { o.fusion.min_score = 0.5; });
  SearchOptions o;
  o.record_access = false;
  auto r = engine_->Search("which port does postgres use in the cafeteria", o);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->hits.size(), 1u);
  EXPECT_EQ(r->hits[0].fact.content, "postgres listens on port 5433 in staging");
  EXPECT_EQ(r->below_min_score, 1u);
}

TEST_P(EngineTest, NoMatchFallsBackToRecencyInBlendedOnlyWhenAsked) {
  Reopen([](EngineOptions& o) { o.fusion.temporal_fallback = true; });
  Add("old fact", {}, kNow - 100 * kDay);
  Add("new fact", {}, kNow - 1 * kDay);
  SearchOptions o;
  o.record_access = false;
  auto r = engine_->Search("zebra quantum", o);
  ASSERT_TRUE(r.ok());
  EXPECT_TRUE(r->temporal_fallback);
  EXPECT_TRUE(r->no_match);
  ASSERT_EQ(r->hits.size(), 2u);
  EXPECT_EQ(r->hits[0].fact.content, "new fact");
  EXPECT_TRUE(Contents("zebra quantum", FusionMode::kLexical).empty());
}

TEST_P(EngineTest, SearchRecordsAccessUnlessToldNot) {
  const Fact f = Add("remember the milk");
  clock_->AdvanceMillis(5 * kDay);
  SearchOptions o;
  ASSERT_TRUE(engine_->Search("milk", o).ok());
  auto got = engine_->Get("default", f.id);
  ASSERT_TRUE(got.ok());
  EXPECT_EQ(got->access_count, 1);
  EXPECT_EQ(got->last_accessed, kNow + 5 * kDay);
  o.record_access = false;
  ASSERT_TRUE(engine_->Search("milk", o).ok());
  EXPECT_EQ(engine_->Get("default", f.id)->access_count, 1);
}

TEST_P(EngineTest, ExplainCarriesSignalsWeightsAndTerms) {
  Add("Use ripgrep for code search", {}, kNow - 30 * kDay);
  SearchOptions o;
  o.explain = true;
  o.record_access = false;
  auto r = engine_->Search("ripgrep search", o);
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->hits.size(), 1u);
  const Explanation& e = r->hits[0].explanation;
  EXPECT_TRUE(e.lexical.present);
  EXPECT_GT(e.lexical.raw, 0.0);
  EXPECT_NEAR(e.temporal.raw, 0.5, 1e-9);  // one half-life old, never used
  EXPECT_NEAR(e.weights.lexical + e.weights.temporal, 1.0, 1e-12);
  EXPECT_EQ(e.matched_terms, (std::vector<std::string>{"ripgrep", "search"}));
  EXPECT_DOUBLE_EQ(e.final_score, r->hits[0].score);
}

TEST_P(EngineTest, ScopesIsolateSearchesAndForgets) {
  Add("alpha secret", {}, std::nullopt, "a");
  Add("alpha public", {}, std::nullopt, "b");
  SearchOptions o;
  o.scopes = {"a"};
  auto r = engine_->Search("alpha", o);
  ASSERT_EQ(r->hits.size(), 1u);
  EXPECT_EQ(r->hits[0].fact.scope, "a");
  ForgetRequest forget;
  forget.scope = "a";
  forget.whole_scope = true;
  EXPECT_EQ(*engine_->Forget(forget), 1);
  EXPECT_EQ(engine_->Stats()->facts, 1);
}

TEST_P(EngineTest, ForgetByIdIsAllOrNothing) {
  const Fact a = Add("keep me?");
  ForgetRequest forget;
  forget.ids = {a.id, "abcdabcdabcd"};
  EXPECT_EQ(engine_->Forget(forget).status().code(), StatusCode::kNotFound);
  EXPECT_EQ(engine_->Stats()->facts, 1);
  forget.ids = {a.id.substr(0, 8)};
  EXPECT_EQ(*engine_->Forget(forget), 1);
  EXPECT_EQ(Contents("keep", FusionMode::kLexical).size(), 0u);
}

TEST_P(EngineTest, ImportIsAtomic) {
  Add("already here");
  std::vector<NewFact> batch(3);
  batch[0].content = "one";
  batch[1].content = "two";
  batch[2].content = "";  // bad
  auto r = engine_->Import(batch, {});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("fact 3"), std::string::npos);
  EXPECT_EQ(engine_->Stats()->facts, 1);
  batch.pop_back();
  r = engine_->Import(batch, {});
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->added, 2u);
  EXPECT_EQ(engine_->Stats()->facts, 3);
}

TEST_P(EngineTest, ExportThenImportRoundTripsEveryField) {
  NewFact f;
  f.content = "Revisão de código: sempre com dois aprovadores";
  f.tags = {"review", "processo"};
  f.kind = "lesson";
  f.source = "retro";
  f.confidence = 0.75;
  f.metadata = R"({"ticket":"ENG-12","weight":0.1})";
  ASSERT_TRUE(engine_->Add(f).ok());
  Add("second", {"x"}, kNow - kDay, "other");
  SearchOptions o;
  ASSERT_EQ(engine_->Search("revisão de código com aprovadores", o)->hits.size(),
            1u);  // bump counters

  std::vector<Fact> exported;
  ASSERT_TRUE(engine_
                  ->Export({},
                           [&](const Fact& x) {
                             exported.push_back(x);
                             return true;
                           })
                  .ok());
  ASSERT_EQ(exported.size(), 2u);

  auto other = testing::StorePlace::Create(backend_);
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  EngineOptions opts;
  (*other)->Apply(&opts);
  opts.clock = std::make_shared<ManualClock>(kNow + 99 * kDay);
  auto copy = Engine::Open(opts);
  ASSERT_TRUE(copy.ok());
  std::vector<NewFact> in;
  for (const Fact& x : exported) {
    NewFact n;
    n.content = x.content;
    n.scope = x.scope;
    n.tags = x.tags;
    n.kind = x.kind;
    n.source = x.source;
    n.confidence = x.confidence;
    n.metadata = x.metadata;
    n.id = x.id;
    n.created_at = x.created_at;
    n.updated_at = x.updated_at;
    n.last_accessed = x.last_accessed;
    n.access_count = x.access_count;
    in.push_back(n);
  }
  ASSERT_TRUE((*copy)->Import(in, {}).ok());
  std::vector<Fact> again;
  ASSERT_TRUE((*copy)
                  ->Export({},
                           [&](const Fact& x) {
                             again.push_back(x);
                             return true;
                           })
                  .ok());
  ASSERT_EQ(again.size(), exported.size());
  for (size_t i = 0; i < again.size(); ++i) {
    EXPECT_EQ(again[i].id, exported[i].id);
    EXPECT_EQ(again[i].scope, exported[i].scope);
    EXPECT_EQ(again[i].content, exported[i].content);
    EXPECT_EQ(again[i].tags, exported[i].tags);
    EXPECT_EQ(again[i].kind, exported[i].kind);
    EXPECT_EQ(again[i].source, exported[i].source);
    EXPECT_EQ(again[i].created_at, exported[i].created_at);
    EXPECT_EQ(again[i].updated_at, exported[i].updated_at);
    EXPECT_EQ(again[i].last_accessed, exported[i].last_accessed);
    EXPECT_EQ(again[i].access_count, exported[i].access_count);
    EXPECT_EQ(again[i].confidence, exported[i].confidence);
    EXPECT_EQ(again[i].metadata, exported[i].metadata);
  }
  EXPECT_EQ(exported[0].access_count, 1);
}

TEST_P(EngineTest, InvalidUtf8QueryIsAnErrorNotACrash) {
  Add("something");
  for (const std::string& q : {std::string("\xE4\xB8"), std::string("ok \xff")}) {
    auto r = engine_->Search(q, {});
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("query: invalid UTF-8 at byte"), std::string::npos);
  }
}

TEST_P(EngineTest, TagFiltersNormaliseLikeStoredTags) {
  Add("tagged fact", {"Deploy"});
  ListOptions list;
  list.tag = " DEPLOY ";
  auto listed = engine_->List(list);
  ASSERT_TRUE(listed.ok());
  EXPECT_EQ(listed->size(), 1u);
  ForgetRequest forget;
  forget.tag = "Deploy";
  EXPECT_EQ(*engine_->Forget(forget), 1);
}

TEST_P(EngineTest, ForgettingAnEmptyScopeIsNotFound) {
  ForgetRequest forget;
  forget.scope = "typo";
  forget.whole_scope = true;
  auto r = engine_->Forget(forget);
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("'typo'"), std::string::npos);
}

TEST_P(EngineTest, SearchReportsScopesWithoutFacts) {
  Add("present");
  SearchOptions o;
  o.scopes = {"default", "nobody"};
  auto r = engine_->Search("present", o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r->missing_scopes, (std::vector<std::string>{"nobody"}));
}

TEST_P(EngineTest, TiesAcrossScopesBreakByScope) {
  Add("same words here", {}, kNow, "b");
  Add("same words here", {}, kNow, "a");
  SearchOptions o;
  o.scopes = {"a", "b"};
  o.record_access = false;
  for (int i = 0; i < 3; ++i) {
    auto r = engine_->Search("same words", o);
    ASSERT_EQ(r->hits.size(), 2u);
    EXPECT_EQ(r->hits[0].fact.scope, "a");
  }
}

TEST_P(EngineTest, OptionsOutOfRangeAreRefusedAtOpen) {
  EngineOptions o = StoreOptions();
  o.temporal.half_life_days = 0;
  EXPECT_EQ(Engine::Open(o).status().code(), StatusCode::kInvalidArgument);
  o.temporal.half_life_days = 30;
  o.bm25.b = 1.5;
  EXPECT_NE(Engine::Open(o).status().message().find("bm25.b"), std::string::npos);
  // A store URL that is not one is refused without being shown: it may
  // carry a password.
  o.bm25.b = 0.75;
  o.store_url = "host=db.internal user=engram password=hunter2";
  const Status refused = Engine::Open(o).status();
  EXPECT_EQ(refused.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(refused.message().find("store.url"), std::string::npos) << refused.ToString();
  EXPECT_EQ(refused.message().find("hunter2"), std::string::npos) << refused.ToString();
}

TEST_P(EngineTest, TwoEnginesShareOneStore) {
  auto second = Engine::Open(StoreOptions());
  ASSERT_TRUE(second.ok()) << second.status().ToString();
  Add("written by the first");
  NewFact f;
  f.content = "written by the second";
  ASSERT_TRUE((*second)->Add(f).ok());
  EXPECT_EQ(engine_->Stats()->facts, 2);
  SearchOptions s;
  s.record_access = false;
  EXPECT_EQ((*second)->Search("written", s)->hits.size(), 2u);
}

TEST_F(SqliteEngineTest, IndexIsRebuiltWhenTheAnalyzerVersionChanges) {
  Add("deploying the billing service");
  engine_.reset();
  {
    // Simulate a store indexed by another analyzer: wrong lengths, an
    // empty index, another version.
    auto db = SqliteDb::Open(SqlitePath(), SqliteOpenMode::kReadWrite);
    ASSERT_TRUE(db.ok());
    ASSERT_TRUE(RegisterEngramFts5((*db)->handle()).ok());
    ASSERT_TRUE((*db)
                    ->Exec("UPDATE engram_meta SET value = '0' WHERE key = 'analyzer_version';"
                           "UPDATE facts SET content_terms = 999;"
                           "INSERT INTO facts_fts(facts_fts) VALUES('delete-all');")
                    .ok());
  }
  Reopen();
  EXPECT_EQ(Contents("deploy", FusionMode::kLexical).size(), 1u);
  auto db = SqliteDb::Open(SqlitePath(), SqliteOpenMode::kReadWrite);
  EXPECT_EQ(*(*db)->QueryInt("SELECT content_terms FROM facts"), 3);
}

TEST_P(EngineTest, SurvivesReopen) {
  Add("persisted fact");
  Reopen();
  EXPECT_EQ(Contents("persisted", FusionMode::kLexical).size(), 1u);
}

// Attached files live in the store, on either backend: a second engine on
// the same store (another server) lists and searches what the first
// attached, and the facts are as they were.
TEST_P(EngineTest, AttachedFilesAreKeptInTheStoreForEveryEngineOnIt) {
  Add("a fact beside the attachment");
  const std::string root = (std::filesystem::path(place_->Directory()) / "notes").string();
  std::filesystem::create_directories(root);
  testing::WriteFile(root + "/deploy.md", "Deploys go out on Tuesdays after the canary passes.\n");
  auto attached = engine_->Attach({{root}, "notes"});
  ASSERT_TRUE(attached.ok()) << attached.status().ToString();
  EXPECT_EQ(attached->files, 1u);

  auto other = Engine::Open(StoreOptions());
  ASSERT_TRUE(other.ok()) << other.status().ToString();
  const auto listed = (*other)->Attachments();
  ASSERT_TRUE(listed.ok()) << listed.status().ToString();
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].name, "notes");
  EXPECT_EQ((*listed)[0].chunks, 1u);
  const auto found = (*other)->SearchContext("when do deploys go out", {});
  ASSERT_TRUE(found.ok()) << found.status().ToString();
  ASSERT_EQ(found->hits.size(), 1u);
  EXPECT_EQ(found->hits[0].path, root + "/deploy.md");
  EXPECT_EQ(Contents("fact", FusionMode::kLexical).size(), 1u);

  ASSERT_TRUE((*other)->Detach("notes").ok());
  EXPECT_TRUE(engine_->Attachments()->empty());
}

INSTANTIATE_TEST_SUITE_P(Backends, EngineTest, ::testing::ValuesIn(testing::AllBackends()),
                         [](const auto& info) { return testing::BackendName(info.param); });

}  // namespace
}  // namespace engram
