/* engram's C API: the memory of include/engram/engine.h behind opaque
 * handles, for C programs and for other languages' bindings (the Python
 * package binds it through ctypes). Only C types cross it.
 *
 * Errors. Every call that can fail returns an engram_code (ENGRAM_OK, 0, on
 * success) and takes `char** errmsg` last. On failure *errmsg receives a
 * message naming what was wrong and where ("search: field 'k': ..."),
 * allocated with malloc: release it with engram_free(). On success *errmsg
 * is set to NULL. errmsg may be NULL when the caller wants the code only.
 * A NULL handle or string where one is required is ENGRAM_INVALID_ARGUMENT
 * naming the parameter, never a crash. Setters given a NULL handle do
 * nothing (a NULL string sets ""); accessors given a NULL handle or an
 * index out of range return NULL, 0 or 0.0.
 *
 * Strings are UTF-8 and NUL-terminated, in and out. Strings and handles
 * returned by accessors (engram_fact_content, engram_facts_at, ...) belong
 * to the object they came from and live as long as it does; everything a
 * call hands over through an `out` parameter is the caller's, released with
 * the matching engram_*_destroy (NULL is accepted by every destroy).
 *
 * Times are milliseconds since the Unix epoch, UTC.
 *
 * Thread-safety. An engram_t may be used from many threads at once: reads
 * run side by side and writes are serialised by the store. Every other
 * handle (options, new facts, filters, search and list options) may be read
 * by many threads at once but written by one at a time; results (facts,
 * fact lists, search results) never change after they are returned and may
 * be read from any thread.
 *
 * The library reads no configuration file and no ENGRAM_* environment
 * variable unless asked (engram_options_read_config); the providers' own
 * variables (OPENAI_API_KEY, the AWS credentials, OLLAMA_HOST) and HOME are
 * read as by the CLI.
 */
#ifndef ENGRAM_C_H_
#define ENGRAM_C_H_

#include <stddef.h>
#include <stdint.h>

#include "engram/export.h"
#include "engram/version.h"

#ifdef __cplusplus
extern "C" {
#endif

/* C names, in the manner of leveldb/c.h and sqlite3.h, not the C++ ones.
 * NOLINTBEGIN(readability-identifier-naming) */

/* ---- Codes, memory, version ------------------------------------------ */

/* The same values as engram::StatusCode. */
typedef enum engram_code {
  ENGRAM_OK = 0,
  ENGRAM_INVALID_ARGUMENT = 1,    /* bad input from the caller */
  ENGRAM_NOT_FOUND = 2,           /* the named thing does not exist */
  ENGRAM_ALREADY_EXISTS = 3,      /* a unique thing was created twice */
  ENGRAM_FAILED_PRECONDITION = 4, /* not in a state to do this */
  ENGRAM_IO_ERROR = 5,            /* the filesystem or database failed */
  ENGRAM_CORRUPTION = 6,          /* stored data is not what was written */
  ENGRAM_UNAVAILABLE = 7,         /* a remote service failed; may be retried */
  ENGRAM_DEADLINE_EXCEEDED = 8,   /* a remote call ran out of time */
  ENGRAM_NOT_SUPPORTED = 9,       /* the feature or version is not supported */
  ENGRAM_CANCELLED = 10,          /* the caller asked to stop */
  ENGRAM_INTERNAL = 11            /* a bug: an invariant did not hold */
} engram_code;

/* "ok", "invalid_argument", ... as the HTTP API names them; "unknown" for a
 * value outside the enum. Static storage. */
ENGRAM_EXPORT const char* engram_code_name(int code);

/* Releases a string the library allocated (an errmsg, engram_config_json's
 * text). NULL is accepted. */
ENGRAM_EXPORT void engram_free(void* ptr);

/* The loaded library's version, "MAJOR.MINOR.PATCH", and as
 * ENGRAM_VERSION_NUMBER computes it; compare with the headers' macros. */
ENGRAM_EXPORT const char* engram_version(void);
ENGRAM_EXPORT int engram_version_number(void);

/* ---- Options ----------------------------------------------------------- */

/* How a store is opened: the configuration keys of docs/CONFIG.md
 * ("bm25.k1", "embed.provider", "fusion.w_semantic", ...), each defaulting
 * as there, so a program gets the CLI's rankings from the same settings. */
typedef struct engram_options_t engram_options_t;

ENGRAM_EXPORT engram_options_t* engram_options_create(void);
ENGRAM_EXPORT void engram_options_destroy(engram_options_t* options);

/* Sets configuration key `key` to `value` (as text: "0.9", "true",
 * "hash:dim=64"). ENGRAM_INVALID_ARGUMENT for an unknown key, a value the key
 * does not take, or a number outside its range (named in the message);
 * the options are then unchanged. */
ENGRAM_EXPORT engram_code engram_options_set(engram_options_t* options, const char* key,
                                             const char* value, char** errmsg);

/* The value `key` would have at open, as text (before any configuration
 * file or environment is read), in *value (free with engram_free). */
ENGRAM_EXPORT engram_code engram_options_get(const engram_options_t* options, const char* key,
                                             char** value, char** errmsg);

/* Nonzero: at open, read the configuration file ($ENGRAM_CONFIG, default
 * ~/.config/engram/config.toml) and the ENGRAM_* variables as the CLI does,
 * below the keys set here. Default 0: only the keys set here. */
ENGRAM_EXPORT void engram_options_read_config(engram_options_t* options, int enabled);

/* Zero: engram_open fails with ENGRAM_NOT_FOUND instead of creating a
 * missing database. Default nonzero. */
ENGRAM_EXPORT void engram_options_create_if_missing(engram_options_t* options, int enabled);

/* ---- A store ------------------------------------------------------------- */

typedef struct engram_t engram_t;

/* Opens (or creates) the store at `path`, an SQLite file; NULL takes the
 * options' "db" key, else memory.db in the user's data directory
 * (~/.local/share/engram; $ENGRAM_HOME with engram_options_read_config).
 * `options` may be NULL for the defaults. The embedded model is looked up
 * in the user's data directory, then the install prefix's
 * share/engram/models (and $ENGRAM_HOME/models first when read_config). The configured embedder is
 * loaded; one that cannot be (the embedded model's file missing, say) leaves the store keyword-only
 * with a warning (engram_warning_count). */
ENGRAM_EXPORT engram_code engram_open(const engram_options_t* options, const char* path,
                                      engram_t** out, char** errmsg);

/* Closes the store: waits for background work, releases the handle. Every
 * result taken from it stays readable. */
ENGRAM_EXPORT void engram_close(engram_t* db);

/* What engram_open had to say that did not stop it (keyword-only, a value
 * clamped), oldest first. */
ENGRAM_EXPORT size_t engram_warning_count(const engram_t* db);
ENGRAM_EXPORT const char* engram_warning(const engram_t* db, size_t index);

/* Every effective setting and the store's counts:
 * {"settings": {key: {"value", "source", "origin"}}, "store": {...}}, the
 * settings as `engram config --json` prints them and the store as
 * GET /v1/config shows it. Secrets read "(set)". *json is freed with
 * engram_free. */
ENGRAM_EXPORT engram_code engram_config_json(engram_t* db, char** json, char** errmsg);

/* ---- Facts --------------------------------------------------------------- */

/* A stored fact (engram/fact.h). */
typedef struct engram_fact_t engram_fact_t;

ENGRAM_EXPORT const char* engram_fact_id(const engram_fact_t* fact);
ENGRAM_EXPORT const char* engram_fact_scope(const engram_fact_t* fact);
ENGRAM_EXPORT const char* engram_fact_content(const engram_fact_t* fact);
ENGRAM_EXPORT const char* engram_fact_kind(const engram_fact_t* fact);
ENGRAM_EXPORT const char* engram_fact_source(const engram_fact_t* fact);
/* A JSON object, "{}" when empty. */
ENGRAM_EXPORT const char* engram_fact_metadata(const engram_fact_t* fact);
/* Tags: lower-case, unique, sorted. */
ENGRAM_EXPORT size_t engram_fact_tag_count(const engram_fact_t* fact);
ENGRAM_EXPORT const char* engram_fact_tag(const engram_fact_t* fact, size_t index);
ENGRAM_EXPORT double engram_fact_confidence(const engram_fact_t* fact);
ENGRAM_EXPORT int64_t engram_fact_created_at(const engram_fact_t* fact);
ENGRAM_EXPORT int64_t engram_fact_updated_at(const engram_fact_t* fact);
ENGRAM_EXPORT int64_t engram_fact_last_accessed(const engram_fact_t* fact);
ENGRAM_EXPORT int64_t engram_fact_access_count(const engram_fact_t* fact);
/* The fact that replaced this one; "" while it is current. */
ENGRAM_EXPORT const char* engram_fact_superseded_by(const engram_fact_t* fact);
/* When it stopped being valid; 0 while current. */
ENGRAM_EXPORT int64_t engram_fact_valid_until(const engram_fact_t* fact);
/* When it expires; 0: never. */
ENGRAM_EXPORT int64_t engram_fact_expires_at(const engram_fact_t* fact);
/* Only for facts handed over by an `out` parameter, not for those an
 * accessor of a list or result returns. */
ENGRAM_EXPORT void engram_fact_destroy(engram_fact_t* fact);

/* A list of facts (list, history). */
typedef struct engram_facts_t engram_facts_t;

ENGRAM_EXPORT size_t engram_facts_count(const engram_facts_t* facts);
/* NULL when index >= count. */
ENGRAM_EXPORT const engram_fact_t* engram_facts_at(const engram_facts_t* facts, size_t index);
ENGRAM_EXPORT void engram_facts_destroy(engram_facts_t* facts);

/* What a caller supplies to add a fact or a new version of one. Fields not
 * set take the defaults of engram/fact.h: scope "default", kind "fact",
 * confidence 1, metadata {}. Values are checked when it is stored. */
typedef struct engram_new_fact_t engram_new_fact_t;

ENGRAM_EXPORT engram_new_fact_t* engram_new_fact_create(const char* content);
ENGRAM_EXPORT void engram_new_fact_destroy(engram_new_fact_t* fact);
ENGRAM_EXPORT void engram_new_fact_set_content(engram_new_fact_t* fact, const char* content);
ENGRAM_EXPORT void engram_new_fact_set_scope(engram_new_fact_t* fact, const char* scope);
ENGRAM_EXPORT void engram_new_fact_add_tag(engram_new_fact_t* fact, const char* tag);
ENGRAM_EXPORT void engram_new_fact_set_kind(engram_new_fact_t* fact, const char* kind);
ENGRAM_EXPORT void engram_new_fact_set_source(engram_new_fact_t* fact, const char* source);
ENGRAM_EXPORT void engram_new_fact_set_confidence(engram_new_fact_t* fact, double confidence);
/* A JSON object, as text. */
ENGRAM_EXPORT void engram_new_fact_set_metadata(engram_new_fact_t* fact, const char* json);
/* When the fact expires; 0: never (the default). */
ENGRAM_EXPORT void engram_new_fact_set_expires_at(engram_new_fact_t* fact, int64_t expires_at);

/* Stores one fact, or merges it into the fact of its scope with the same
 * content (tags united, updated_at bumped) or into a near-duplicate. *out
 * (may be NULL) receives the stored fact; *created (may be NULL) 1 for a
 * new fact, 0 for a merge. Nothing is stored on error. */
ENGRAM_EXPORT engram_code engram_add(engram_t* db, const engram_new_fact_t* fact,
                                     engram_fact_t** out, int* created, char** errmsg);

/* Stores `count` facts in one transaction: all or nothing. *added and
 * *merged (each may be NULL) receive the counts. The first bad fact is
 * named by its index in the message. */
ENGRAM_EXPORT engram_code engram_add_batch(engram_t* db, const engram_new_fact_t* const* facts,
                                           size_t count, size_t* added, size_t* merged,
                                           char** errmsg);

/* Stores `replacement` as the new version of fact `id` (a full id or a
 * unique prefix of 4+ characters) of `scope` (NULL: "default"); the old
 * one is kept, superseded. The replacement's own scope is ignored.
 * ENGRAM_NOT_FOUND for an unknown id, ENGRAM_FAILED_PRECONDITION for a
 * fact already replaced. *out (may be NULL) receives the new version. */
ENGRAM_EXPORT engram_code engram_update(engram_t* db, const char* scope, const char* id,
                                        const engram_new_fact_t* replacement, engram_fact_t** out,
                                        char** errmsg);

/* One fact of `scope` (NULL: "default") by id or unique prefix. */
ENGRAM_EXPORT engram_code engram_get(engram_t* db, const char* scope, const char* id,
                                     engram_fact_t** out, char** errmsg);

/* Every version of fact `id`, oldest first. */
ENGRAM_EXPORT engram_code engram_history(engram_t* db, const char* scope, const char* id,
                                         engram_facts_t** out, char** errmsg);

/* ---- Filters --------------------------------------------------------------- */

/* Which facts a search or a list considers (engram::FactFilter); applied
 * before ranking. An empty filter filters nothing. */
typedef struct engram_filter_t engram_filter_t;

ENGRAM_EXPORT engram_filter_t* engram_filter_create(void);
ENGRAM_EXPORT void engram_filter_destroy(engram_filter_t* filter);
/* At least one of the tags added here. */
ENGRAM_EXPORT void engram_filter_add_any_tag(engram_filter_t* filter, const char* tag);
/* Every one of the tags added here. */
ENGRAM_EXPORT void engram_filter_add_all_tag(engram_filter_t* filter, const char* tag);
ENGRAM_EXPORT void engram_filter_set_kind(engram_filter_t* filter, const char* kind);
/* metadata[key] == value, compared as text; each pair added must hold. */
ENGRAM_EXPORT void engram_filter_add_metadata(engram_filter_t* filter, const char* key,
                                              const char* value);
/* Created or updated at or after / before this time. */
ENGRAM_EXPORT void engram_filter_set_since(engram_filter_t* filter, int64_t since);
ENGRAM_EXPORT void engram_filter_set_until(engram_filter_t* filter, int64_t until);
/* The facts that were current at this time (replaced and expired ones
 * included). */
ENGRAM_EXPORT void engram_filter_set_as_of(engram_filter_t* filter, int64_t as_of);

/* ---- List ---------------------------------------------------------------- */

typedef struct engram_list_options_t engram_list_options_t;

/* Defaults: scope "default", limit 50, offset 0, current facts only. */
ENGRAM_EXPORT engram_list_options_t* engram_list_options_create(void);
ENGRAM_EXPORT void engram_list_options_destroy(engram_list_options_t* options);
/* Adds a scope to list; none added: "default". */
ENGRAM_EXPORT void engram_list_options_add_scope(engram_list_options_t* options, const char* scope);
/* Most facts; 0: no limit. */
ENGRAM_EXPORT void engram_list_options_set_limit(engram_list_options_t* options, size_t limit);
ENGRAM_EXPORT void engram_list_options_set_offset(engram_list_options_t* options, size_t offset);
ENGRAM_EXPORT void engram_list_options_set_include_superseded(engram_list_options_t* options,
                                                              int enabled);
/* Copies `filter`; NULL clears it. */
ENGRAM_EXPORT void engram_list_options_set_filter(engram_list_options_t* options,
                                                  const engram_filter_t* filter);

/* The current facts of the scopes, newest first. `options` may be NULL. */
ENGRAM_EXPORT engram_code engram_list(engram_t* db, const engram_list_options_t* options,
                                      engram_facts_t** out, char** errmsg);

/* ---- Forget ---------------------------------------------------------------- */

/* What becomes of the older versions of a current fact that is forgotten;
 * passed as an int `history`, and a value outside the enum is
 * ENGRAM_INVALID_ARGUMENT. */
typedef enum engram_history_policy {
  ENGRAM_HISTORY_REFUSE = 0,  /* fail with ENGRAM_FAILED_PRECONDITION, remove nothing */
  ENGRAM_HISTORY_RESTORE = 1, /* the newest older version becomes current */
  ENGRAM_HISTORY_DELETE = 2   /* the older versions are forgotten too */
} engram_history_policy;

/* Removes facts of `scope` (NULL: "default") by id or prefix; all or
 * nothing: ENGRAM_NOT_FOUND when one does not exist. *forgotten (may be
 * NULL) receives how many facts went. */
ENGRAM_EXPORT engram_code engram_forget(engram_t* db, const char* scope, const char* const* ids,
                                        size_t count, int history, int64_t* forgotten,
                                        char** errmsg);
/* Removes every fact of `scope` with tag `tag`. */
ENGRAM_EXPORT engram_code engram_forget_tag(engram_t* db, const char* scope, const char* tag,
                                            int history, int64_t* forgotten, char** errmsg);
/* Removes every fact of `scope`, every version. */
ENGRAM_EXPORT engram_code engram_forget_scope(engram_t* db, const char* scope, int64_t* forgotten,
                                              char** errmsg);

/* ---- Search -------------------------------------------------------------- */

typedef struct engram_search_options_t engram_search_options_t;

/* Defaults: k 10, scope "default", mode "blended", the store's weights,
 * no explanation, accesses recorded, HyDE allowed, current facts only. */
ENGRAM_EXPORT engram_search_options_t* engram_search_options_create(void);
ENGRAM_EXPORT void engram_search_options_destroy(engram_search_options_t* options);
/* Results wanted, 1..10000; checked at search. */
ENGRAM_EXPORT void engram_search_options_set_k(engram_search_options_t* options, size_t k);
ENGRAM_EXPORT void engram_search_options_add_scope(engram_search_options_t* options,
                                                   const char* scope);
/* "blended", "lexical", "semantic", "rrf" or "temporal";
 * ENGRAM_INVALID_ARGUMENT naming the accepted ones otherwise. */
ENGRAM_EXPORT engram_code engram_search_options_set_mode(engram_search_options_t* options,
                                                         const char* mode, char** errmsg);
/* Blend weights for this search only. */
ENGRAM_EXPORT void engram_search_options_set_weights(engram_search_options_t* options,
                                                     double semantic, double lexical,
                                                     double temporal);
ENGRAM_EXPORT void engram_search_options_set_explain(engram_search_options_t* options, int enabled);
/* Zero: the search does not count as an access of what it returns. */
ENGRAM_EXPORT void engram_search_options_set_record_access(engram_search_options_t* options,
                                                           int enabled);
ENGRAM_EXPORT void engram_search_options_set_hyde(engram_search_options_t* options, int enabled);
ENGRAM_EXPORT void engram_search_options_set_include_superseded(engram_search_options_t* options,
                                                                int enabled);
/* Copies `filter`; NULL clears it. */
ENGRAM_EXPORT void engram_search_options_set_filter(engram_search_options_t* options,
                                                    const engram_filter_t* filter);

/* The ranked facts for `query`. `options` may be NULL. */
typedef struct engram_search_result_t engram_search_result_t;

ENGRAM_EXPORT engram_code engram_search(engram_t* db, const char* query,
                                        const engram_search_options_t* options,
                                        engram_search_result_t** out, char** errmsg);
ENGRAM_EXPORT void engram_search_result_destroy(engram_search_result_t* result);

ENGRAM_EXPORT size_t engram_result_count(const engram_search_result_t* result);
/* NULL / 0 when index >= count. Scores are in [0, 1] for blended. */
ENGRAM_EXPORT const engram_fact_t* engram_result_fact(const engram_search_result_t* result,
                                                      size_t index);
ENGRAM_EXPORT double engram_result_score(const engram_search_result_t* result, size_t index);

/* The signals of an explanation; passed as an int `signal`. */
typedef enum engram_signal_kind {
  ENGRAM_SIGNAL_SEMANTIC = 0, /* cosine with the query vector */
  ENGRAM_SIGNAL_LEXICAL = 1,  /* BM25 */
  ENGRAM_SIGNAL_TEMPORAL = 2  /* recency x use */
} engram_signal_kind;

/* One signal of one hit: `present` is 0 when it does not apply (no term
 * matched, no vector); `weight` is the effective blend weight. */
typedef struct engram_signal {
  int present;
  double raw;
  double normalized;
  double weight;
  size_t rank; /* among the candidates that have it, 1 = best; 0 when absent */
} engram_signal;

/* Fills *out for hit `index` (explain must have been on). ENGRAM_INVALID_
 * ARGUMENT for an index out of range or a signal outside the enum;
 * ENGRAM_FAILED_PRECONDITION when the search was not explained. */
ENGRAM_EXPORT engram_code engram_result_signal(const engram_search_result_t* result, size_t index,
                                               int signal, engram_signal* out, char** errmsg);
/* Analysed query terms found in hit `index` (explain on). */
ENGRAM_EXPORT size_t engram_result_matched_term_count(const engram_search_result_t* result,
                                                      size_t index);
ENGRAM_EXPORT const char* engram_result_matched_term(const engram_search_result_t* result,
                                                     size_t index, size_t term);
/* The id of the result this one ranks above as its newer version; "" when
 * none (explain on). */
ENGRAM_EXPORT const char* engram_result_newer_version_of(const engram_search_result_t* result,
                                                         size_t index);

/* Nothing matched the query (hits empty unless the recency fallback). */
ENGRAM_EXPORT int engram_result_no_match(const engram_search_result_t* result);
/* The hits are the scope's most recent facts, not matches. */
ENGRAM_EXPORT int engram_result_temporal_fallback(const engram_search_result_t* result);
/* Facts scored before the cut to k. */
ENGRAM_EXPORT size_t engram_result_candidates(const engram_search_result_t* result);
/* Nonzero when the query was embedded and vectors searched. */
ENGRAM_EXPORT int engram_result_semantic(const engram_search_result_t* result);
/* Language detected for the query ("en", "pt"). */
ENGRAM_EXPORT const char* engram_result_language(const engram_search_result_t* result);
/* Analysed terms of the query. */
ENGRAM_EXPORT size_t engram_result_query_term_count(const engram_search_result_t* result);
ENGRAM_EXPORT const char* engram_result_query_term(const engram_search_result_t* result,
                                                   size_t index);
/* HyDE's hypothesis; "" when there is none. */
ENGRAM_EXPORT const char* engram_result_hypothesis(const engram_search_result_t* result);
/* Problems that did not stop the search (HyDE's fallbacks among them). */
ENGRAM_EXPORT size_t engram_result_warning_count(const engram_search_result_t* result);
ENGRAM_EXPORT const char* engram_result_warning(const engram_search_result_t* result, size_t index);

/* ---- Export, import, backfill ------------------------------------------- */

/* Writes every fact of the scopes (all when count is 0), every version, as
 * JSONL to `path` (created 0600), as `engram export` does. *exported (may
 * be NULL) receives the count. */
ENGRAM_EXPORT engram_code engram_export(engram_t* db, const char* const* scopes, size_t count,
                                        const char* path, size_t* exported, char** errmsg);

/* Reads JSONL (as engram_export writes) or CSV with a header (a path ending
 * in ".csv") and stores every record in one transaction. A bad record
 * fails the whole import, named as PATH:LINE: reason, unless `skip_bad`,
 * which stores the good ones; *skipped (may be NULL) then counts the bad.
 * *added and *merged (each may be NULL) receive the counts. */
ENGRAM_EXPORT engram_code engram_import(engram_t* db, const char* path, int skip_bad, size_t* added,
                                        size_t* merged, size_t* skipped, char** errmsg);

/* Embeds facts without a vector in the active embedding space, at most
 * `limit` (0: all). ENGRAM_FAILED_PRECONDITION when the store is
 * keyword-only. *embedded and *remaining may be NULL. */
ENGRAM_EXPORT engram_code engram_backfill(engram_t* db, size_t limit, size_t* embedded,
                                          size_t* remaining, char** errmsg);

/* NOLINTEND(readability-identifier-naming) */

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* ENGRAM_C_H_ */
