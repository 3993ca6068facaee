#include "src/engine/label_map.h"

#include <algorithm>

namespace engram {

namespace {

bool KeyLess(const std::pair<int64_t, int64_t>& a, const std::pair<int64_t, int64_t>& b) {
  return a.first < b.first;
}

}  // namespace

void LabelMap::Clear() {
  by_label_.clear();
  by_fact_.clear();
  sealed_ = 0;
}

void LabelMap::Reserve(size_t n) {
  by_label_.reserve(n);
  by_fact_.reserve(n);
}

void LabelMap::Add(int64_t label, int64_t fact) {
  by_label_.emplace_back(label, fact);
  by_fact_.emplace_back(fact, label);
}

void LabelMap::Seal() {
  SealPairs(sealed_, &by_label_);
  SealPairs(sealed_, &by_fact_);
  sealed_ = by_label_.size();
}

void LabelMap::SealPairs(size_t sealed, Pairs* pairs) {
  const auto added = pairs->begin() + static_cast<std::ptrdiff_t>(sealed);
  if (!std::is_sorted(added, pairs->end(), KeyLess)) {
    std::stable_sort(added, pairs->end(), KeyLess);
  }
  if (added != pairs->begin() && added != pairs->end() && KeyLess(*added, *(added - 1))) {
    std::inplace_merge(pairs->begin(), added, pairs->end(), KeyLess);
  }
}

std::optional<int64_t> LabelMap::Find(const Pairs& pairs, int64_t key) {
  const auto after =
      std::upper_bound(pairs.begin(), pairs.end(), std::pair<int64_t, int64_t>{key, 0}, KeyLess);
  if (after == pairs.begin() || (after - 1)->first != key) return std::nullopt;
  return (after - 1)->second;
}

std::optional<int64_t> LabelMap::FactOf(int64_t label) const { return Find(by_label_, label); }

std::optional<int64_t> LabelMap::LabelOf(int64_t fact) const { return Find(by_fact_, fact); }

}  // namespace engram
