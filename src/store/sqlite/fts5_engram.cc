#include "src/store/sqlite/fts5_engram.h"

#include <sqlite3.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "src/store/index_forms.h"
#include "src/store/sqlite/schema.h"

namespace engram {

namespace {

int TokenizerCreate(void*, const char**, int, Fts5Tokenizer** out) {
  static int instance = 0;
  *out = reinterpret_cast<Fts5Tokenizer*>(&instance);
  return SQLITE_OK;
}

void TokenizerDelete(Fts5Tokenizer*) {}

int TokenizerRun(Fts5Tokenizer*, void* ctx, int flags, const char* text, int n,
                 int (*emit)(void*, int, const char*, int, int, int)) {
  const std::string_view input(text, n > 0 ? static_cast<size_t>(n) : 0);
  if (flags & FTS5_TOKENIZE_QUERY) {
    if (input.empty()) return SQLITE_OK;
    return emit(ctx, 0, input.data(), static_cast<int>(input.size()), 0,
                static_cast<int>(input.size()));
  }
  for (const IndexForm& f : IndexForms(input)) {
    const int rc =
        emit(ctx, f.colocated ? FTS5_TOKEN_COLOCATED : 0, f.form.data(),
             static_cast<int>(f.form.size()), static_cast<int>(f.begin), static_cast<int>(f.end));
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

void TermFrequencies(const Fts5ExtensionApi* api, Fts5Context* fts, sqlite3_context* ctx, int,
                     sqlite3_value**) {
  const int phrases = api->xPhraseCount(fts);
  const int columns = api->xColumnCount(fts);
  // Counted a phrase at a time: xPhraseFirst/xPhraseNext read one phrase's
  // positions in the row, where xInst first merges every phrase's into
  // one sorted array of the row's instances. Rows of many columns x
  // phrases count on the heap.
  constexpr size_t kOnStack = 256;
  const size_t n = static_cast<size_t>(phrases) * static_cast<size_t>(columns);
  int32_t on_stack[kOnStack];
  std::vector<int32_t> on_heap(n > kOnStack ? n : 0);
  int32_t* counts = n > kOnStack ? on_heap.data() : on_stack;
  std::fill(counts, counts + n, 0);
  for (int phrase = 0; phrase < phrases; ++phrase) {
    Fts5PhraseIter it;
    int column = -1, offset = 0;
    const int rc = api->xPhraseFirst(fts, phrase, &it, &column, &offset);
    if (rc != SQLITE_OK) {
      sqlite3_result_error_code(ctx, rc);
      return;
    }
    for (; column >= 0; api->xPhraseNext(fts, &it, &column, &offset)) {
      if (column < columns) ++counts[static_cast<size_t>(phrase * columns + column)];
    }
  }
  sqlite3_result_blob(ctx, counts, static_cast<int>(n * sizeof(int32_t)), SQLITE_TRANSIENT);
}

fts5_api* Fts5Api(sqlite3* db) {
  fts5_api* api = nullptr;
  sqlite3_stmt* stmt = nullptr;
  if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, nullptr) == SQLITE_OK) {
    sqlite3_bind_pointer(stmt, 1, static_cast<void*>(&api), "fts5_api_ptr", nullptr);
    sqlite3_step(stmt);
  }
  sqlite3_finalize(stmt);
  return api;
}

}  // namespace

Status RegisterEngramFts5(sqlite3* db) {
  fts5_api* api = Fts5Api(db);
  if (api == nullptr || api->iVersion < 2) {
    return NotSupported("lexical: register: this SQLite has no FTS5 (version 2+)");
  }
  fts5_tokenizer tokenizer{&TokenizerCreate, &TokenizerDelete, &TokenizerRun};
  if (api->xCreateTokenizer(api, kFtsTokenizerName, nullptr, &tokenizer, nullptr) != SQLITE_OK) {
    return Internal("lexical: register: cannot create the FTS5 tokenizer");
  }
  if (api->xCreateFunction(api, "engram_tf", nullptr, &TermFrequencies, nullptr) != SQLITE_OK) {
    return Internal("lexical: register: cannot create engram_tf()");
  }
  return Status::OK();
}

std::string FtsMatchExpression(const std::vector<std::string>& terms, std::string_view column) {
  std::string out;
  for (const auto& t : terms) {
    if (!out.empty()) out += " OR ";
    out += '"';
    for (char c : t) {
      if (c == '"') out += '"';
      out += c;
    }
    out += '"';
  }
  return column.empty() ? out : std::string(column) + " : (" + out + ")";
}

Result<std::vector<int32_t>> DecodeTermFrequencies(std::string_view blob, size_t n_phrases,
                                                   size_t n_fields) {
  const size_t want = n_phrases * n_fields * sizeof(int32_t);
  if (blob.size() != want) {
    return Internal("lexical: search: term-frequency blob of " + std::to_string(blob.size()) +
                    " bytes, expected " + std::to_string(want));
  }
  std::vector<int32_t> tf(n_phrases * n_fields);
  std::memcpy(tf.data(), blob.data(), blob.size());
  return tf;
}

}  // namespace engram
