// Store: one connection to the place a memory is kept, a SQLite file
// (src/store/sqlite) or a PostgreSQL database (src/store/postgres), and
// the parts of it: facts with their full-text index, embedding spaces and
// vectors, version links, the HyDE cache, attached files. Every SQL statement on these is
// written inside one of the implementations; everything above them (the
// lexical and vector signals, fusion, the engine) is the same code for
// every backend.
//
// A write runs inside Transact() and is all or nothing. Reads inside
// ReadTransact() see one snapshot. Reads outside either see what is
// committed as each statement runs.
//
// Thread-safety: none, but for OpenReader, OpenWriter and
// TakeBackgroundProblem, which any thread may call at any time: one thread
// at a time per Store. The engine serialises calls on its own store with a
// mutex; each connection of a ReaderPool is lent to one thread at a time.
// Different Stores (other connections, from OpenReader or OpenWriter) may
// be used side by side.
#ifndef ENGRAM_SRC_STORE_STORE_H_
#define ENGRAM_SRC_STORE_STORE_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engram/status.h"
#include "src/store/chunk_store.h"
#include "src/store/fact_store.h"
#include "src/store/hypothesis_store.h"
#include "src/store/vector_store.h"
#include "src/store/version_store.h"

namespace engram {

class Store {
 public:
  virtual ~Store() = default;

  // Runs `body` in one write transaction; commits when it returns OK,
  // rolls back otherwise. Nested calls join the outer one.
  virtual Status Transact(const std::function<Status()>& body) = 0;
  // Runs `body` in a read transaction: every read in it sees one snapshot.
  // Nested calls join the outer one.
  virtual Status ReadTransact(const std::function<Status()>& body) = 0;

  // Another connection to the same store, for reading only: it changes
  // neither schema nor data, and reads its own snapshot while a writer
  // commits.
  virtual Result<std::unique_ptr<Store>> OpenReader() = 0;
  // Another connection to the same store that writes (the engine writes
  // access counts on one of its own, so that waiting for another process's
  // write lock holds no lock a search takes).
  virtual Result<std::unique_ptr<Store>> OpenWriter() = 0;

  // The parts, all on this connection.
  virtual FactStore& facts() = 0;             // NOLINT(readability-identifier-naming): accessor
  virtual VectorStore& vectors() = 0;         // NOLINT(readability-identifier-naming): accessor
  virtual VersionStore& versions() = 0;       // NOLINT(readability-identifier-naming): accessor
  virtual HypothesisStore& hypotheses() = 0;  // NOLINT(readability-identifier-naming): accessor
  virtual ChunkStore& chunks() = 0;           // NOLINT(readability-identifier-naming): accessor

  // Small key-value settings kept with the data (e.g. the analyzer
  // version). NotFound when `key` was never set.
  virtual Result<std::string> GetMeta(const std::string& key) = 0;
  virtual Status SetMeta(const std::string& key, const std::string& value) = 0;

  // The backend's own consistency checks (the SQLite file's integrity, the
  // structure of its full-text indexes): each problem found, in words, is
  // appended to `problems`, and each check it could not run, with why, to
  // `skipped`. An error only when checking itself failed.
  virtual Status CheckIntegrity(std::vector<std::string>* problems,
                                std::vector<std::string>* skipped) = 0;

  // A problem met off the caller's thread since the last call (a
  // background checkpoint that failed); nullopt when there was none.
  virtual std::optional<std::string> TakeBackgroundProblem() = 0;

  // The store changes nothing: a file its user cannot write.
  virtual bool ReadOnly() const = 0;
  // Where this process keeps files derived from the store (saved vector
  // indexes, under SidecarPrefix() + ".vindex"): a path prefix on this
  // machine.
  virtual std::string SidecarPrefix() const = 0;
};

// What every backend's Transact and ReadTransact do, given how it runs a
// statement: runs `body` between `begin` and COMMIT, or ROLLBACK when
// `body` or the commit fails (the first failure is returned); a call
// while `*in_transaction` is already set joins the outer one and runs
// `body` alone.
Status RunTransaction(const std::function<Status(const char*)>& exec, const char* begin,
                      bool* in_transaction, const std::function<Status()>& body);

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_STORE_H_
