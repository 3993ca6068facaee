// SqliteVectorStore: VectorStore on a SQLite connection (schema.cc's
// embedding_spaces and fact_vectors; a trigger counts every vector deleted
// per space, which Versions gives each of its scopes with data_version).
//
// Thread-safety: none; it works on its SqliteStore's connection.
#ifndef ENGRAM_SRC_STORE_SQLITE_SQLITE_VECTOR_STORE_H_
#define ENGRAM_SRC_STORE_SQLITE_SQLITE_VECTOR_STORE_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "src/store/sqlite/sqlite_db.h"
#include "src/store/vector_store.h"

namespace engram {

class SqliteVectorStore final : public VectorStore {
 public:
  explicit SqliteVectorStore(SqliteDb* db) : db_(db) {}

  Result<int64_t> EnsureSpace(const EmbeddingSpace& space, Timestamp now) override;
  Result<int64_t> FindSpace(const EmbeddingSpace& space) override;
  Result<std::vector<SpaceInfo>> Spaces() override;
  Result<bool> Put(int64_t space_id, const std::string& scope, int64_t fact_rowid,
                   const std::string& fact_id, std::span<const float> vector) override;
  Result<std::vector<VectorRef>> Refs(int64_t space_id, const std::string& scope,
                                      int64_t after) override;
  Result<std::vector<VectorsVersion>> Versions(int64_t space_id,
                                               const std::vector<std::string>& scopes) override;
  Status Load(const std::vector<int64_t>& vector_ids, size_t dimension, size_t max_vectors,
              const std::function<void(int64_t, std::span<const float>)>& sink) override;
  Status LoadScope(
      int64_t space_id, const std::string& scope, size_t dimension, size_t max_vectors,
      const std::function<void(const VectorRef&, std::span<const float>)>& sink) override;
  Result<int64_t> CountScope(int64_t space_id, const std::string& scope) override;
  Status ForEachBlob(int64_t space_id, const BlobSink& sink) override;
  Status Delete(const std::string& scope, const std::vector<int64_t>& vector_ids) override;
  Result<std::string> FactIdOf(const std::string& scope, int64_t fact_rowid) override;
  Result<std::vector<FactToEmbed>> Missing(int64_t space_id, size_t limit) override;
  Result<int64_t> CountMissing(int64_t space_id) override;
  Result<int64_t> PruneOtherSpaces(int64_t keep_space_id) override;

 private:
  // "SELECT `columns` FROM fact_vectors v JOIN facts f ... WHERE v is in
  // the space and f in the scope `tail`", prepared and bound.
  Result<SqliteStatement> PrepareScopeQuery(std::string_view columns, int64_t space_id,
                                            const std::string& scope, std::string_view tail);

  SqliteDb* db_;
};

}  // namespace engram

#endif  // ENGRAM_SRC_STORE_SQLITE_SQLITE_VECTOR_STORE_H_
