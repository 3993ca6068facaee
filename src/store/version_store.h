// VersionStore: the version links of the store (schema 6, fact_versions).
// A link says that fact `newer` is likely a later version of fact `older`:
// both of one scope, `newer` created later and close to `older` in
// embedding space (found when a fact is written), or `newer` replaced
// `older` by an explicit update. Search ranks a newer version above an
// older one it finds (docs/ARCHITECTURE.md, "Facts that change"). Links go
// with either of their facts.
//
// Thread-safety: none; it works on its Store's connection, one thread at a
// time. Put must run inside Store::Transact().
#ifndef ENGRAM_SRC_STORE_VERSION_STORE_H_
#define ENGRAM_SRC_STORE_VERSION_STORE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "engram/status.h"

namespace engram {

struct VersionLink {
  int64_t older_rowid = 0;
  int64_t newer_rowid = 0;
  double cosine = 0.0;           // between the two facts' vectors; 1 for an explicit update
  bool explicit_update = false;  // `newer` replaced `older` by an update
};

class VersionStore {
 public:
  virtual ~VersionStore() = default;

  // Stores `link` between two facts of `scope` (nothing when either fact
  // is gone or of another scope); an explicit link replaces a found one of
  // the same pair, a found one never replaces an existing link.
  virtual Status Put(const std::string& scope, const VersionLink& link) = 0;
  // The links whose older fact is one of `rowids`, by older then newer
  // rowid. `rowids` are facts of `scopes`, where a store that keeps links
  // by scope looks (PostgreSQL: the scopes' shards); links never join
  // facts of two scopes (Put keeps them out), so SQLite needs no scope to
  // find them.
  // Rowids that are at least a kDenseShare-th of their range are read in
  // one walk of the range instead of one lookup each.
  static constexpr int64_t kDenseShare = 4;
  virtual Result<std::vector<VersionLink>> NewerThan(const std::vector<std::string>& scopes,
                                                     const std::vector<int64_t>& rowids) = 0;
  // Every link of the store (tests, diagnostics).
  virtual Result<std::vector<VersionLink>> All() = 0;
};

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_VERSION_STORE_H_
