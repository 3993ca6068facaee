// LabelMap: the two-way map between a scope's vector-index labels and the
// facts their vectors embed, as two flat arrays sorted by key.
//
// Adds append; Seal() then orders what was added since the last Seal and
// merges it in, in O(n + a log a) for `a` adds, so a sync that adds a few
// labels to a large scope costs little, and one that adds a snapshot's
// labels (already in order) costs a copy. Lookups are binary searches of
// the sealed arrays. A label names one fact; a fact may have had several
// labels over time (a vector replaced), and the latest added wins, as
// assignments to two hash maps would. Against two std::unordered_maps it
// keeps 32 bytes a label instead of about 80, in two blocks instead of a
// node each: a one-shot process that resumes a scope from its snapshot
// fills them in one pass and frees them at once.
//
// Thread-safety: none. The vector cache changes it only while no View
// exists and reads it from any number of Views.
#ifndef ENGRAM_SRC_ENGINE_LABEL_MAP_H_
#define ENGRAM_SRC_ENGINE_LABEL_MAP_H_

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

namespace engram {

class LabelMap {
 public:
  // Forgets every label.
  void Clear();
  // Room for `n` labels in all.
  void Reserve(size_t n);
  // Adds `label` for `fact`; lookups see it after the next Seal().
  void Add(int64_t label, int64_t fact);
  // Orders the labels added since the last Seal among the others.
  void Seal();

  // The fact of `label`; nullopt when it has none. Sealed only.
  std::optional<int64_t> FactOf(int64_t label) const;
  // The latest label added for `fact`; nullopt when it has none. Sealed
  // only.
  std::optional<int64_t> LabelOf(int64_t fact) const;
  // Labels held, sealed or not.
  size_t size() const { return by_label_.size(); }

 private:
  using Pairs = std::vector<std::pair<int64_t, int64_t>>;  // key, value
  // Sorts pairs [sealed, end) by key, keeping the order of adds among
  // equal keys, and merges them after the sealed ones with an equal key.
  static void SealPairs(size_t sealed, Pairs* pairs);
  // The value of the last pair with `key`, as sealed.
  static std::optional<int64_t> Find(const Pairs& pairs, int64_t key);

  Pairs by_label_;  // label, fact
  Pairs by_fact_;   // fact, label
  size_t sealed_ = 0;
};

}  // namespace engram

#endif  // ENGRAM_SRC_ENGINE_LABEL_MAP_H_
