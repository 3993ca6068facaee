// Engine calls for tests that expect them to succeed: each records a test
// failure with the status when it does not, and returns an empty value.
#ifndef ENGRAM_TESTS_ENGINE_FOR_TEST_H_
#define ENGRAM_TESTS_ENGINE_FOR_TEST_H_

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "engram/engine.h"

namespace engram::testing {

inline std::unique_ptr<Engine> OpenEngineForTest(const EngineOptions& options) {
  auto engine = Engine::Open(options);
  EXPECT_TRUE(engine.ok()) << engine.status().ToString();
  return engine.ok() ? std::move(*engine) : nullptr;
}

// Adds a fact of `content` alone; returns its id.
inline std::string AddForTest(Engine& engine, const std::string& content) {
  NewFact f;
  f.content = content;
  auto added = engine.Add(f);
  EXPECT_TRUE(added.ok()) << added.status().ToString();
  return added.ok() ? added->fact.id : "";
}

inline SearchResponse SearchForTest(Engine& engine, const std::string& query,
                                    const SearchOptions& options) {
  auto r = engine.Search(query, options);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : SearchResponse{};
}

// A search in `mode` with explanations, recording no access, HyDE and
// feedback allowed or not.
inline SearchResponse ExplainedSearchForTest(Engine& engine, const std::string& query,
                                             FusionMode mode, bool hyde = true) {
  SearchOptions o;
  o.mode = mode;
  o.explain = true;
  o.record_access = false;
  o.hyde = hyde;
  return SearchForTest(engine, query, o);
}

}  // namespace engram::testing

#endif  // ENGRAM_TESTS_ENGINE_FOR_TEST_H_
