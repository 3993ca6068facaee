// LabelMap against two hash maps assigned in the same order: the same
// answer for every label and fact, present or not, after batches of adds in
// and out of order, with facts that get a new label.
#include "src/engine/label_map.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <unordered_map>

namespace engram {
namespace {

TEST(LabelMapTest, ALabelsFactAndAFactsLatestLabel) {
  LabelMap map;
  map.Add(10, 100);
  map.Add(11, 101);
  map.Add(12, 100);  // fact 100's vector replaced
  map.Seal();
  EXPECT_EQ(map.FactOf(10), 100);
  EXPECT_EQ(map.FactOf(12), 100);
  EXPECT_EQ(map.LabelOf(100), 12);
  EXPECT_EQ(map.LabelOf(101), 11);
  EXPECT_EQ(map.FactOf(9), std::nullopt);
  EXPECT_EQ(map.FactOf(13), std::nullopt);
  EXPECT_EQ(map.LabelOf(99), std::nullopt);
  EXPECT_EQ(map.size(), 3U);

  // Added out of order after a seal: merged in, the latest still winning.
  map.Add(5, 102);
  map.Add(4, 101);
  map.Seal();
  EXPECT_EQ(map.FactOf(4), 101);
  EXPECT_EQ(map.FactOf(5), 102);
  EXPECT_EQ(map.LabelOf(101), 4);
  EXPECT_EQ(map.LabelOf(100), 12);

  map.Clear();
  map.Seal();
  EXPECT_EQ(map.size(), 0U);
  EXPECT_EQ(map.FactOf(10), std::nullopt);
  EXPECT_EQ(map.LabelOf(100), std::nullopt);
}

TEST(LabelMapTest, AnswersAsTwoHashMapsAfterBatchesOfAdds) {
  std::mt19937_64 random(7);
  LabelMap map;
  std::unordered_map<int64_t, int64_t> fact_of_label;
  std::unordered_map<int64_t, int64_t> label_of_fact;
  int64_t next_label = 1;
  for (int batch = 0; batch < 60; ++batch) {
    const int adds = static_cast<int>(random() % 200);
    const bool out_of_order = batch % 5 == 4;  // as labels a resync re-adds
    for (int i = 0; i < adds; ++i) {
      const int64_t label =
          out_of_order ? static_cast<int64_t>(random() % (next_label + 50)) + 1 : next_label++;
      if (fact_of_label.count(label)) continue;  // a label names one vector
      // Facts mostly new, sometimes an older one given a new vector.
      const int64_t fact = random() % 4 == 0 ? static_cast<int64_t>(random() % 3000)
                                             : 1000 + static_cast<int64_t>(random() % 5000);
      map.Add(label, fact);
      fact_of_label[label] = fact;
      label_of_fact[fact] = label;
    }
    map.Seal();
    ASSERT_EQ(map.size(), fact_of_label.size());
    for (int64_t label = 0; label <= next_label + 60; ++label) {
      const auto found = fact_of_label.find(label);
      ASSERT_EQ(map.FactOf(label),
                found == fact_of_label.end() ? std::nullopt : std::optional<int64_t>(found->second))
          << "label " << label << " after batch " << batch;
    }
    for (int64_t fact = -1; fact <= 6001; ++fact) {
      const auto found = label_of_fact.find(fact);
      ASSERT_EQ(map.LabelOf(fact),
                found == label_of_fact.end() ? std::nullopt : std::optional<int64_t>(found->second))
          << "fact " << fact << " after batch " << batch;
    }
  }
}

}  // namespace
}  // namespace engram
