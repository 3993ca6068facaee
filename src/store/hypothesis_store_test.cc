#include "src/store/hypothesis_store.h"

#include <gtest/gtest.h>

#include "src/store/testing/store_backends.h"

namespace engram {
namespace {

class HypothesisStoreTest : public ::testing::TestWithParam<testing::Backend> {};

TEST_P(HypothesisStoreTest, KeysByLlmPromptVersionAndQuery) {
  auto made = testing::StoreForTest::Create(GetParam());
  ASSERT_TRUE(made.ok()) << made.status().ToString();
  Store* store = &(*made)->store();
  HypothesisStore& cache = store->hypotheses();
  const HypothesisKey key{"openai:gpt-4o-mini", 1, "which port does postgres use"};
  auto missing = cache.Get(key);
  ASSERT_TRUE(missing.ok()) << missing.status().ToString();
  EXPECT_FALSE(missing->has_value());

  ASSERT_TRUE(store->Transact([&] { return cache.Put(key, "Postgres listens on 5432.", 7); }).ok());
  auto found = cache.Get(key);
  ASSERT_TRUE(found.ok());
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ(**found, "Postgres listens on 5432.");

  // Another model, another prompt version or another query: no hit.
  for (const HypothesisKey& other :
       {HypothesisKey{"anthropic:claude", 1, key.query}, HypothesisKey{key.llm, 2, key.query},
        HypothesisKey{key.llm, 1, "Which port does postgres use"}}) {
    auto miss = cache.Get(other);
    ASSERT_TRUE(miss.ok());
    EXPECT_FALSE(miss->has_value()) << other.llm << " " << other.prompt_version;
  }

  // A second Put replaces the first.
  ASSERT_TRUE(store->Transact([&] { return cache.Put(key, "Port 5432.", 8); }).ok());
  EXPECT_EQ(**cache.Get(key), "Port 5432.");
  EXPECT_EQ(*cache.Count(), 1);
}

INSTANTIATE_TEST_SUITE_P(Backends, HypothesisStoreTest, ::testing::ValuesIn(testing::AllBackends()),
                         [](const auto& info) { return testing::BackendName(info.param); });

}  // namespace
}  // namespace engram
