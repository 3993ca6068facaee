// CopyStore: everything one Store holds, written into another of any
// backend (`engram migrate`): facts with every field (history, access
// counts, expiry), their version links, the embedding spaces and every
// vector of each, the HyDE cache, and attached files (attachments, files,
// chunks and the chunks' vectors). Facts and vectors get new labels in
// the destination; what refers to them (links, vectors) follows.
//
// The source is read in one snapshot and the destination written in one
// transaction: a copy that fails leaves the destination as it was. The
// destination must hold no fact.
//
// Thread-safety: uses both stores' connections; the caller serialises.
#ifndef ENGRAM_SRC_STORE_STORE_COPY_H_
#define ENGRAM_SRC_STORE_STORE_COPY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "engram/status.h"
#include "src/store/store.h"

namespace engram {

// What a copy wrote, and what it left out with why.
struct StoreCopyCounts {
  int64_t facts = 0;
  int64_t version_links = 0;
  int64_t spaces = 0;
  int64_t vectors = 0;
  int64_t hypotheses = 0;
  int64_t attachments = 0;
  int64_t chunks = 0;
  int64_t chunk_vectors = 0;
  // Vectors left out, each with what to do about it: a blob that is not a
  // whole number of floats, which no search could use either.
  std::vector<std::string> skipped;
};

// Copies `from` into `to`, which holds no fact (FailedPrecondition
// otherwise) and no attachment of a name `from` has (AlreadyExists); `count` gives what the
// destination's full-text index records of each fact, as when it was added.
Result<StoreCopyCounts> CopyStore(Store& from, Store& to, const TermCounter& count);

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_STORE_COPY_H_
