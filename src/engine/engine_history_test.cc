// Facts that change: explicit updates and their history through every
// engine call that sees it (search, list, export, import, forget), merges
// that bring new fields, and version links found on write.
#include <gtest/gtest.h>

#include <functional>
#include <set>
#include <sstream>

#include "engram/engine.h"
#include "src/store/fact_codec.h"
#include "src/store/testing/store_backends.h"
#include "tests/test_embedders.h"
#include "tests/test_util.h"

namespace engram {
namespace {

constexpr Timestamp kDay = 86400000;
constexpr Timestamp kNow = 1780000000000;  // 2026-05-28

NewFact Text(const std::string& content) {
  NewFact f;
  f.content = content;
  return f;
}

class EngineHistoryTest : public ::testing::TestWithParam<testing::Backend> {
 protected:
  void SetUp() override { Open(); }
  void TearDown() override { engine_.reset(); }

  // Opens the engine again with `tweak` applied to its options, on a new,
  // empty store of the test's backend when `new_store` (or on first use).
  void Open(const std::function<void(EngineOptions&)>& tweak = {}, bool new_store = false) {
    engine_.reset();
    if (places_.empty() || new_store) {
      auto place = testing::StorePlace::Create(GetParam());
      ASSERT_TRUE(place.ok()) << place.status().ToString();
      places_.push_back(std::move(*place));
    }
    EngineOptions o;
    places_.back()->Apply(&o);
    o.clock = clock_;
    o.vector.background_backfill = false;
    if (tweak) tweak(o);
    auto engine = Engine::Open(o);
    ASSERT_TRUE(engine.ok()) << engine.status().ToString();
    engine_ = std::move(*engine);
  }

  Fact Add(const std::string& content, const std::string& kind = kDefaultKind) {
    NewFact f;
    f.content = content;
    f.kind = kind;
    auto r = engine_->Add(f);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? r->fact : Fact{};
  }

  Result<UpdateOutcome> Update(const std::string& id, const std::string& content) {
    UpdateRequest request;
    request.id = id;
    request.replacement.content = content;
    clock_->AdvanceMillis(kDay);
    return engine_->Update(request);
  }

  std::vector<std::string> Listed(bool include_superseded = false) {
    ListOptions o;
    o.include_superseded = include_superseded;
    auto facts = engine_->List(o);
    EXPECT_TRUE(facts.ok());
    std::vector<std::string> out;
    for (const Fact& f : *facts) out.push_back(f.content);
    return out;
  }

  std::vector<std::string> Found(const std::string& query, bool include_superseded = false) {
    SearchOptions o;
    o.record_access = false;
    o.include_superseded = include_superseded;
    auto r = engine_->Search(query, o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::vector<std::string> out;
    for (const SearchHit& h : r->hits) out.push_back(h.fact.content);
    return out;
  }

  std::string Exported() {
    std::ostringstream out;
    EXPECT_TRUE(engine_
                    ->Export({},
                             [&](const Fact& f) {
                               out << FactToJsonLine(f) << "\n";
                               return true;
                             })
                    .ok());
    return out.str();
  }

  std::vector<std::unique_ptr<testing::StorePlace>> places_;  // the last is open
  std::shared_ptr<ManualClock> clock_ = std::make_shared<ManualClock>(kNow);
  std::unique_ptr<Engine> engine_;
};

TEST_P(EngineHistoryTest, AnUpdateKeepsTheOldFactSupersededAndOutOfSearchAndList) {
  const Fact old = Add("standup is at 9:30 in the kestrel room");
  auto updated = Update(old.id.substr(0, 6), "standup moved to 10:15 on google meet");
  ASSERT_TRUE(updated.ok()) << updated.status().ToString();
  EXPECT_TRUE(updated->created);
  EXPECT_EQ(updated->superseded.id, old.id);
  EXPECT_EQ(updated->superseded.superseded_by, updated->fact.id);
  EXPECT_EQ(updated->superseded.valid_until, kNow + kDay);

  EXPECT_EQ(Listed(), (std::vector<std::string>{"standup moved to 10:15 on google meet"}));
  EXPECT_EQ(Listed(true).size(), 2u);
  EXPECT_EQ(Found("standup"), (std::vector<std::string>{"standup moved to 10:15 on google meet"}));
  // Asked for, the old one is there, below the version that replaced it.
  EXPECT_EQ(Found("standup kestrel room", true),
            (std::vector<std::string>{"standup moved to 10:15 on google meet",
                                      "standup is at 9:30 in the kestrel room"}));
  auto stored = engine_->Get("default", old.id);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->superseded_by, updated->fact.id);
}

TEST_P(EngineHistoryTest, UpdatingAReplacedFactOrToTheSameTextIsRefused) {
  const Fact old = Add("the laptop has 16 GB of RAM");
  ASSERT_TRUE(Update(old.id, "the laptop has 64 GB of RAM").ok());
  auto again = Update(old.id, "the laptop has 32 GB of RAM");
  ASSERT_FALSE(again.ok());
  EXPECT_EQ(again.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(again.status().message().find("already replaced"), std::string::npos);
  const Fact current = engine_->List({}).value().front();
  auto same = Update(current.id, "The laptop has 64 GB of RAM ");
  ASSERT_FALSE(same.ok());
  EXPECT_EQ(same.status().code(), StatusCode::kInvalidArgument);
  auto missing = Update("abcdef", "anything");
  EXPECT_EQ(missing.status().code(), StatusCode::kNotFound);
  EXPECT_EQ(Listed(true).size(), 2u) << "nothing changed by the refusals";
}

TEST_P(EngineHistoryTest, HistoryListsEveryVersionOldestFirstAndAReversalIsCurrentAgain) {
  const Fact a = Add("new services log in json");
  auto b = Update(a.id, "new services log in logfmt");
  ASSERT_TRUE(b.ok());
  auto back = Update(b->fact.id, "new services log in json");
  ASSERT_TRUE(back.ok());
  EXPECT_FALSE(back->created);
  EXPECT_EQ(back->fact.id, a.id);
  EXPECT_FALSE(back->fact.IsSuperseded()) << "the old text is current again";
  EXPECT_EQ(Listed(), (std::vector<std::string>{"new services log in json"}));
  auto chain = engine_->History("default", b->fact.id);
  ASSERT_TRUE(chain.ok()) << chain.status().ToString();
  ASSERT_EQ(chain->size(), 2u);
  EXPECT_EQ((*chain)[0].content, "new services log in json");
  EXPECT_EQ((*chain)[1].content, "new services log in logfmt");
  EXPECT_EQ((*chain)[1].superseded_by, a.id);

  const Fact c1 = Add("max connections: 200");
  auto c2 = Update(c1.id, "max connections: 400");
  auto c3 = Update(c2->fact.id, "max connections: 300");
  ASSERT_TRUE(c3.ok());
  auto three = engine_->History("default", c1.id.substr(0, 8));
  ASSERT_TRUE(three.ok());
  ASSERT_EQ(three->size(), 3u);
  EXPECT_EQ((*three)[0].content, "max connections: 200");
  EXPECT_EQ((*three)[2].content, "max connections: 300");
  EXPECT_FALSE((*three)[2].IsSuperseded());
}

TEST_P(EngineHistoryTest, ExportThenImportRestoresTheChainExactly) {
  const Fact a = Add("the team tracks work in jira");
  ASSERT_TRUE(Update(a.id, "the team moved its tickets to linear").ok());
  const std::string exported = Exported();
  EXPECT_NE(exported.find("\"superseded_by\":\""), std::string::npos) << exported;
  std::vector<NewFact> facts;
  std::istringstream in(exported);
  ReadFactsJsonl(in, [&](ParsedRecord r) {
    ASSERT_TRUE(r.fact.ok()) << r.fact.status().ToString();
    facts.push_back(*r.fact);
  });
  Open({}, /*new_store=*/true);
  ASSERT_TRUE(engine_->Import(facts, {}).ok());
  EXPECT_EQ(Exported(), exported);
  EXPECT_EQ(Listed(), (std::vector<std::string>{"the team moved its tickets to linear"}));
  auto chain = engine_->History("default", a.id);
  ASSERT_TRUE(chain.ok());
  EXPECT_EQ(chain->size(), 2u);

  // A restored superseded_by must name a fact of the import's scope.
  Open({}, /*new_store=*/true);
  std::vector<NewFact> orphan = {facts[0]};
  auto refused = engine_->Import(orphan, {});
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("names no fact of scope 'default'"), std::string::npos)
      << refused.status().ToString();
  EXPECT_TRUE(Listed(true).empty()) << "all or nothing";
}

TEST_P(EngineHistoryTest, ForgettingTheCurrentVersionNeitherResurrectsNorDeletesSilently) {
  const Fact a = Add("the standup is at 9:30");
  auto b = Update(a.id, "the standup is at 10:15");
  ASSERT_TRUE(b.ok());
  ForgetRequest forget;
  forget.ids = {b->fact.id};
  auto refused = engine_->Forget(forget);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(refused.status().message().find(a.id), std::string::npos);
  EXPECT_EQ(Listed(true).size(), 2u);

  forget.history = ForgetHistory::kRestore;
  auto restored = engine_->Forget(forget);
  ASSERT_TRUE(restored.ok()) << restored.status().ToString();
  EXPECT_EQ(*restored, 1);
  EXPECT_EQ(Listed(), (std::vector<std::string>{"the standup is at 9:30"}));
  EXPECT_FALSE(engine_->Get("default", a.id)->IsSuperseded());

  auto c = Update(a.id, "the standup is at 11:00");
  ASSERT_TRUE(c.ok());
  forget.ids = {c->fact.id};
  forget.history = ForgetHistory::kDelete;
  auto deleted = engine_->Forget(forget);
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(*deleted, 2);
  EXPECT_TRUE(Listed(true).empty());
}

TEST_P(EngineHistoryTest, ForgettingAMiddleVersionKeepsTheChainLinked) {
  const Fact a = Add("max connections: 200");
  auto b = Update(a.id, "max connections: 400");
  auto c = Update(b->fact.id, "max connections: 300");
  ASSERT_TRUE(c.ok());
  ForgetRequest forget;
  forget.ids = {b->fact.id};
  ASSERT_TRUE(engine_->Forget(forget).ok());
  auto stored = engine_->Get("default", a.id);
  ASSERT_TRUE(stored.ok());
  EXPECT_EQ(stored->superseded_by, c->fact.id) << "the oldest now points at the current one";
  EXPECT_EQ(Listed(), (std::vector<std::string>{"max connections: 300"}));
}

TEST_P(EngineHistoryTest, ReAddingTheSameTextUpdatesTheFieldsItBrings) {
  Add("prefers dark mode");
  NewFact again;
  again.content = "Prefers dark mode";
  again.kind = "preference";
  again.source = "settings page";
  again.confidence = 0.8;
  again.metadata = R"({"app": "editor"})";
  auto merged = engine_->Add(again);
  ASSERT_TRUE(merged.ok());
  EXPECT_FALSE(merged->created);
  EXPECT_EQ(merged->updated_fields,
            (std::vector<std::string>{"kind", "source", "confidence", "metadata"}));
  const Fact stored = engine_->List({}).value().front();
  EXPECT_EQ(stored.kind, "preference");
  EXPECT_EQ(stored.source, "settings page");
  EXPECT_DOUBLE_EQ(stored.confidence, 0.8);
  EXPECT_EQ(stored.metadata, R"({"app":"editor"})");
  // Defaults bring nothing: the stored values stay.
  auto plain = engine_->Add(Text("prefers dark mode"));
  ASSERT_TRUE(plain.ok());
  EXPECT_TRUE(plain->updated_fields.empty());
  EXPECT_EQ(engine_->List({}).value().front().kind, "preference");
}

TEST_P(EngineHistoryTest, ContentThatShowsNothingIsRefusedLikeEmptyContent) {
  for (const char* blank : {"   ", "\xEF\xBB\xBF", "\xE2\x80\xA8\xE2\x80\xA9", "\xE2\x80\x8B \t"}) {
    auto r = engine_->Add(Text(blank));
    ASSERT_FALSE(r.ok()) << "accepted a blank fact";
    EXPECT_NE(r.status().message().find("empty text"), std::string::npos) << r.status().ToString();
  }
  EXPECT_TRUE(Listed(true).empty());
}

TEST_P(EngineHistoryTest, VersionLinksOnWriteRankTheNewerVersionFirst) {
  // Two facts about the same thing (one concept), written a week apart,
  // and an unrelated one.
  auto embedder = std::make_shared<testing::ConceptEmbedder>(
      std::vector<std::vector<std::string>>{{"standup", "meeting", "sync"}, {"lunch", "food"}});
  Open([&](EngineOptions& o) {
    o.embedder = embedder;
    o.versions.link_on_write = true;
    o.versions.newer_first = true;
    o.versions.link_min_cosine = 0.9;
    o.versions.link_min_overlap = 0.0;  // cosine alone: these share no word
  });
  NewFact old_fact = Text("standup is in the kestrel room");
  old_fact.created_at = kNow - 7 * kDay;
  ASSERT_TRUE(engine_->Add(old_fact).ok());
  NewFact lunch = Text("lunch is served at noon");
  lunch.created_at = kNow - 3 * kDay;
  ASSERT_TRUE(engine_->Add(lunch).ok());
  NewFact new_fact = Text("the sync happens on google meet");
  new_fact.created_at = kNow - 1 * kDay;
  ASSERT_TRUE(engine_->Add(new_fact).ok());
  SearchOptions o;
  o.record_access = false;
  o.explain = true;
  o.mode = FusionMode::kLexical;  // only the old fact matches "kestrel"
  auto r = engine_->Search("kestrel room", o);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->hits.size(), 2u) << "the newer version is brought in";
  EXPECT_EQ(r->hits[0].fact.content, "the sync happens on google meet");
  EXPECT_EQ(r->hits[0].explanation.newer_version_of, r->hits[1].fact.id);
  EXPECT_EQ(r->hits[1].fact.content, "standup is in the kestrel room") << "the older stays";
  // Off, the query finds only what it matches.
  Open([&](EngineOptions& opts) {
    opts.embedder = embedder;
    opts.versions.link_on_write = false;
    opts.versions.newer_first = false;
  });
  auto plain = engine_->Search("kestrel room", o);
  ASSERT_TRUE(plain.ok());
  ASSERT_EQ(plain->hits.size(), 1u);
}

TEST_P(EngineHistoryTest, ByDefaultAVersionLinkNeedsTheFactsRareWordsToo) {
  // All three standup facts are one concept (cosine 1); only the pair that
  // names the same room and meeting is linked.
  auto embedder = std::make_shared<testing::ConceptEmbedder>(
      std::vector<std::vector<std::string>>{{"standup", "sync"}, {"lunch", "food"}});
  Open([&](EngineOptions& o) { o.embedder = embedder; });
  const auto add = [&](const std::string& content, Timestamp created) {
    NewFact f = Text(content);
    f.created_at = created;
    ASSERT_TRUE(engine_->Add(f).ok());
  };
  add("the routing standup is at 9:30 in the kestrel room", kNow - 9 * kDay);
  add("lunch is served at noon", kNow - 8 * kDay);
  add("the routing standup is at 10:15 in the kestrel room", kNow - 4 * kDay);
  SearchOptions o;
  o.record_access = false;
  o.explain = true;
  o.mode = FusionMode::kLexical;
  auto linked = engine_->Search("9:30", o);
  ASSERT_TRUE(linked.ok()) << linked.status().ToString();
  ASSERT_EQ(linked->hits.size(), 2u) << "the newer version is brought in";
  EXPECT_EQ(linked->hits[0].fact.content, "the routing standup is at 10:15 in the kestrel room");
  EXPECT_EQ(linked->hits[1].fact.content, "the routing standup is at 9:30 in the kestrel room");

  add("a sync happens every monday", kNow - 1 * kDay);  // same concept, no shared rare word
  auto unlinked = engine_->Search("kestrel room", o);
  ASSERT_TRUE(unlinked.ok());
  ASSERT_EQ(unlinked->hits.size(), 2u) << "cosine alone does not make a version";
  EXPECT_EQ(unlinked->hits[0].fact.content, "the routing standup is at 10:15 in the kestrel room");
}

TEST_P(EngineHistoryTest, ANearDuplicateMergesButAChangedValueDoesNot) {
  auto embedder = std::make_shared<testing::ConceptEmbedder>(
      std::vector<std::vector<std::string>>{{"tabs", "spaces"}, {"postgres"}});
  Open([&](EngineOptions& o) { o.embedder = embedder; });
  NewFact first = Text("Priya prefers tabs over spaces in Go code.");
  first.created_at = kNow - 3 * kDay;
  auto kept = engine_->Add(first);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  NewFact again = Text("priya prefers TABS over spaces, in Go code!");
  again.tags = {"style"};
  auto merged = engine_->Add(again);
  ASSERT_TRUE(merged.ok()) << merged.status().ToString();
  EXPECT_FALSE(merged->created);
  EXPECT_EQ(merged->fact.id, kept->fact.id);
  EXPECT_EQ(merged->fact.tags, std::vector<std::string>{"style"});
  ASSERT_TRUE(merged->near_duplicate.has_value());
  EXPECT_EQ(merged->near_duplicate->content, "priya prefers TABS over spaces, in Go code!");
  EXPECT_GE(merged->near_duplicate->cosine, 0.95);
  EXPECT_GE(merged->near_duplicate->overlap, 0.8);
  EXPECT_EQ(Listed(), std::vector<std::string>{"Priya prefers tabs over spaces in Go code."});

  // Same vector, but the number that matters differs: both stay.
  ASSERT_TRUE(engine_->Add(Text("postgres listens on port 5433")).ok());
  auto other = engine_->Add(Text("postgres listens on port 5432"));
  ASSERT_TRUE(other.ok());
  EXPECT_TRUE(other->created);
  EXPECT_FALSE(other->near_duplicate.has_value());
  EXPECT_EQ(Listed().size(), 3u);

  // An import merges near-duplicates among its own facts and says which.
  std::vector<NewFact> batch = {Text("Priya prefers tabs over spaces in Go code"),
                                Text("postgres listens on port 6543")};
  auto report = engine_->Import(batch, {});
  ASSERT_TRUE(report.ok()) << report.status().ToString();
  EXPECT_EQ(report->added, 1u);
  EXPECT_EQ(report->merged, 1u);
  EXPECT_EQ(report->near_duplicates, 1u);
  EXPECT_EQ(report->embedded, 1u) << "the merged fact's vector went with it";
  ASSERT_EQ(report->merged_into.size(), 1u);
  EXPECT_EQ(report->merged_into.begin()->second, kept->fact.id);
  EXPECT_EQ(Listed().size(), 4u);

  // Off, near-duplicates pile up.
  Open([&](EngineOptions& o) {
    o.embedder = embedder;
    o.versions.merge_near_duplicates = false;
  });
  auto piled = engine_->Add(Text("Priya prefers tabs over spaces: in Go code"));
  ASSERT_TRUE(piled.ok());
  EXPECT_TRUE(piled->created);
}

TEST_P(EngineHistoryTest, FiltersRestrictSearchAndListAlike) {
  const auto add = [&](const std::string& content, std::vector<std::string> tags,
                       const std::string& kind, const std::string& metadata, Timestamp created) {
    NewFact f = Text(content);
    f.tags = std::move(tags);
    f.kind = kind;
    f.metadata = metadata;
    f.created_at = created;
    ASSERT_TRUE(engine_->Add(f).ok());
  };
  add("postgres listens on port 5433", {"db", "staging"}, "fact", R"({"env": "staging"})",
      kNow - 10 * kDay);
  add("postgres listens on port 5432", {"db", "prod"}, "fact", R"({"env": "prod", "n": 5})",
      kNow - 2 * kDay);
  add("postgres upgrades need a review", {"process"}, "lesson", "{}", kNow - 1 * kDay);
  const auto both = [&](const FactFilter& filter) {
    SearchOptions o;
    o.record_access = false;
    o.filter = filter;
    auto r = engine_->Search("postgres", o);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::set<std::string> searched;
    for (const SearchHit& h : r->hits) searched.insert(h.fact.content);
    ListOptions l;
    l.filter = filter;
    auto listed = engine_->List(l);
    EXPECT_TRUE(listed.ok());
    std::set<std::string> shown;
    for (const Fact& f : *listed) shown.insert(f.content);
    EXPECT_EQ(searched, shown) << "search and list filter alike";
    return searched;
  };
  FactFilter f;
  f.tags_any = {"STAGING", "process"};
  EXPECT_EQ(both(f), (std::set<std::string>{"postgres listens on port 5433",
                                            "postgres upgrades need a review"}));
  f = {};
  f.tags_all = {"db", "prod"};
  EXPECT_EQ(both(f), (std::set<std::string>{"postgres listens on port 5432"}));
  f = {};
  f.kind = "lesson";
  EXPECT_EQ(both(f), (std::set<std::string>{"postgres upgrades need a review"}));
  f = {};
  f.metadata = {{"env", "prod"}, {"n", "5"}};
  EXPECT_EQ(both(f), (std::set<std::string>{"postgres listens on port 5432"}));
  f = {};
  f.since = kNow - 3 * kDay;
  f.until = kNow - 1 * kDay;
  EXPECT_EQ(both(f), (std::set<std::string>{"postgres listens on port 5432"}));
  f = {};
  f.metadata = {{"bad\"key", "x"}};
  SearchOptions o;
  o.filter = f;
  EXPECT_EQ(engine_->Search("postgres", o).status().code(), StatusCode::kInvalidArgument);
}

TEST_P(EngineHistoryTest, ExpiredFactsLeaveSearchAndListAndGcRemovesThem) {
  NewFact f = Text("the wifi password for the offsite is orchid-77");
  f.expires_at = kNow + 2 * kDay;
  ASSERT_TRUE(engine_->Add(f).ok());
  Add("the office wifi is called engram-guest");
  EXPECT_EQ(Found("wifi").size(), 2u);
  EXPECT_EQ(engine_->RemoveExpired().value(), 0);
  clock_->AdvanceMillis(3 * kDay);
  EXPECT_EQ(Found("wifi"), (std::vector<std::string>{"the office wifi is called engram-guest"}));
  EXPECT_EQ(Listed(), (std::vector<std::string>{"the office wifi is called engram-guest"}));
  EXPECT_EQ(Exported().find("orchid") != std::string::npos, true) << "still stored until gc";
  EXPECT_EQ(engine_->RemoveExpired().value(), 1);
  EXPECT_EQ(Exported().find("orchid"), std::string::npos);
}

TEST_P(EngineHistoryTest, AsOfAnswersWithTheFactsCurrentThen) {
  const Fact a = Add("the standup is at 9:30");               // at kNow
  ASSERT_TRUE(Update(a.id, "the standup is at 10:15").ok());  // at kNow + 1 day
  SearchOptions o;
  o.record_access = false;
  o.filter.as_of = kNow + kDay / 2;
  auto then = engine_->Search("standup", o);
  ASSERT_TRUE(then.ok());
  ASSERT_EQ(then->hits.size(), 1u);
  EXPECT_EQ(then->hits[0].fact.content, "the standup is at 9:30");
  o.filter.as_of = kNow + 2 * kDay;
  auto now = engine_->Search("standup", o);
  ASSERT_EQ(now->hits.size(), 1u);
  EXPECT_EQ(now->hits[0].fact.content, "the standup is at 10:15");
  o.filter.as_of = kNow - kDay;
  EXPECT_TRUE(engine_->Search("standup", o)->hits.empty()) << "nothing existed yet";
}

INSTANTIATE_TEST_SUITE_P(Backends, EngineHistoryTest, ::testing::ValuesIn(testing::AllBackends()),
                         [](const auto& info) { return testing::BackendName(info.param); });

}  // namespace
}  // namespace engram
