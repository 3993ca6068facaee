/* The C API (include/engram/c.h), compiled as C and linked to the shared
 * libengram alone: every function, and every error path, on a real SQLite
 * store in a temporary directory with the embedded model the build
 * converted (ENGRAM_TEST_MODELS_DIR). Run under AddressSanitizer with leak
 * detection by ctest, so every handle the test takes is released.
 *
 * Exit status 0 when every check holds; each failed check is printed as
 * FILE:LINE: the expression. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engram/c.h"

static int failures = 0;
static int checks = 0;

#define CHECK(cond)                                                            \
  do {                                                                         \
    ++checks;                                                                  \
    if (!(cond)) {                                                             \
      ++failures;                                                              \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
    }                                                                          \
  } while (0)

/* Calls taking `char** errmsg` last are written with ERR as that argument;
 * CHECK_FAILS checks the code and the message. */
static char* last_error = NULL;
#define ERR (&last_error)

static void ExpectError(const char* file, int line, const char* what, engram_code got,
                        engram_code want, const char* needle) {
  ++checks;
  if (got != want) {
    ++failures;
    fprintf(stderr, "%s:%d: %s gave %s (%s), wanted %s\n", file, line, what, engram_code_name(got),
            last_error == NULL ? "no message" : last_error, engram_code_name(want));
  } else if (want == ENGRAM_OK && last_error != NULL) {
    ++failures;
    fprintf(stderr, "%s:%d: %s succeeded but left a message\n", file, line, what);
  } else if (want != ENGRAM_OK &&
             (last_error == NULL || (needle != NULL && strstr(last_error, needle) == NULL))) {
    ++failures;
    fprintf(stderr, "%s:%d: %s: message '%s' does not name '%s'\n", file, line, what,
            last_error == NULL ? "(null)" : last_error, needle);
  }
  engram_free(last_error);
  last_error = NULL;
}

#define EXPECT_OK(call) ExpectError(__FILE__, __LINE__, #call, (call), ENGRAM_OK, NULL)
#define EXPECT_FAILS(code, needle, call) \
  ExpectError(__FILE__, __LINE__, #call, (call), (code), (needle))

static char store_dir[256];

static void Path(char* out, size_t size, const char* name) {
  snprintf(out, size, "%s/%s", store_dir, name);
}

/* Options for a store on the embedded model. */
static engram_options_t* ModelOptions(void) {
  engram_options_t* options = engram_options_create();
  EXPECT_OK(engram_options_set(options, "embed.models_dir", ENGRAM_TEST_MODELS_DIR, ERR));
  return options;
}

static engram_t* OpenStore(const char* name) {
  char path[512];
  Path(path, sizeof path, name);
  engram_options_t* options = ModelOptions();
  engram_t* db = NULL;
  EXPECT_OK(engram_open(options, path, &db, ERR));
  engram_options_destroy(options);
  return db;
}

static engram_fact_t* Add(engram_t* db, const char* content, const char* tag) {
  engram_new_fact_t* fact = engram_new_fact_create(content);
  if (tag != NULL) engram_new_fact_add_tag(fact, tag);
  engram_fact_t* stored = NULL;
  EXPECT_OK(engram_add(db, fact, &stored, NULL, ERR));
  engram_new_fact_destroy(fact);
  return stored;
}

static void TestCodesAndVersion(void) {
  CHECK(strcmp(engram_code_name(ENGRAM_OK), "ok") == 0);
  CHECK(strcmp(engram_code_name(ENGRAM_INVALID_ARGUMENT), "invalid_argument") == 0);
  CHECK(strcmp(engram_code_name(ENGRAM_INTERNAL), "internal") == 0);
  CHECK(strcmp(engram_code_name(-1), "unknown") == 0);
  CHECK(strcmp(engram_code_name(99), "unknown") == 0);
  CHECK(strcmp(engram_version(), ENGRAM_VERSION_STRING) == 0);
  CHECK(engram_version_number() == ENGRAM_VERSION_NUMBER);
  engram_free(NULL);
}

static void TestOptions(void) {
  engram_options_t* options = engram_options_create();
  char* value = NULL;

  /* Defaults are the CLI's: the embedded model's blend weights. */
  EXPECT_OK(engram_options_get(options, "fusion.w_lexical", &value, ERR));
  CHECK(value != NULL && strcmp(value, "0.51") == 0);
  engram_free(value);
  EXPECT_OK(engram_options_set(options, "bm25.k1", "1.2", ERR));
  EXPECT_OK(engram_options_get(options, "bm25.k1", &value, ERR));
  CHECK(value != NULL && strcmp(value, "1.2") == 0);
  engram_free(value);

  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "bm25.k9",
               engram_options_set(options, "bm25.k9", "1", ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "bm25.k1",
               engram_options_set(options, "bm25.k1", "eleven", ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "bm25.b", engram_options_set(options, "bm25.b", "2", ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "key", engram_options_set(options, NULL, "1", ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "value", engram_options_set(options, "bm25.b", NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "options", engram_options_set(NULL, "bm25.b", "1", ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "nope", engram_options_get(options, "nope", &value, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "value", engram_options_get(options, "bm25.b", NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "options", engram_options_get(NULL, "bm25.b", &value, ERR));
  /* A rejected value left the earlier one. */
  EXPECT_OK(engram_options_get(options, "bm25.k1", &value, ERR));
  CHECK(value != NULL && strcmp(value, "1.2") == 0);
  engram_free(value);
  /* errmsg may be NULL: the code alone. */
  CHECK(engram_options_set(options, "bm25.k9", "1", NULL) == ENGRAM_INVALID_ARGUMENT);

  engram_options_read_config(options, 0);
  engram_options_read_config(NULL, 1);
  engram_options_create_if_missing(NULL, 0);
  engram_options_destroy(options);
  engram_options_destroy(NULL);
}

static void TestOpen(void) {
  char path[512];
  engram_t* db = NULL;
  engram_options_t* options = ModelOptions();

  /* A store that does not exist, not to be created. */
  engram_options_create_if_missing(options, 0);
  Path(path, sizeof path, "missing.db");
  EXPECT_FAILS(ENGRAM_NOT_FOUND, "missing.db", engram_open(options, path, &db, ERR));
  CHECK(db == NULL);
  CHECK(access(path, F_OK) != 0);
  engram_options_create_if_missing(options, 1);
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "out", engram_open(options, path, NULL, ERR));
  /* A directory where the file should be. */
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "is a directory",
               engram_open(options, store_dir, &db, ERR));
  CHECK(db == NULL);
  engram_options_destroy(options);

  /* No model: keyword-only, with a warning that says so. */
  options = engram_options_create();
  EXPECT_OK(engram_options_set(options, "embed.models_dir", store_dir, ERR));
  Path(path, sizeof path, "keywords.db");
  EXPECT_OK(engram_open(options, path, &db, ERR));
  CHECK(engram_warning_count(db) >= 1);
  CHECK(engram_warning(db, 0) != NULL && strstr(engram_warning(db, 0), "use-lite-en.bin") != NULL);
  CHECK(engram_warning(db, engram_warning_count(db)) == NULL);
  engram_fact_destroy(Add(db, "the build server is called hopper", NULL));
  EXPECT_FAILS(ENGRAM_FAILED_PRECONDITION, NULL, engram_backfill(db, 0, NULL, NULL, ERR));
  engram_close(db);
  engram_options_destroy(options);

  /* The store file is the user's alone. */
  struct stat st;
  CHECK(stat(path, &st) == 0 && (st.st_mode & 077) == 0);

  CHECK(engram_warning_count(NULL) == 0);
  CHECK(engram_warning(NULL, 0) == NULL);
  engram_close(NULL);
}

static void TestFacts(engram_t* db) {
  /* Add one, with every field. */
  engram_new_fact_t* fact = engram_new_fact_create(NULL);
  engram_new_fact_set_content(fact, "Deploys go out on Tuesdays after the 10:00 standup");
  engram_new_fact_set_scope(fact, "team");
  engram_new_fact_add_tag(fact, "Deploy");
  engram_new_fact_add_tag(fact, "schedule");
  engram_new_fact_set_kind(fact, "preference");
  engram_new_fact_set_source(fact, "wiki");
  engram_new_fact_set_confidence(fact, 0.75);
  engram_new_fact_set_metadata(fact, "{\"owner\":\"ana\"}");
  engram_new_fact_set_expires_at(fact, 0);
  engram_fact_t* stored = NULL;
  int created = -1;
  EXPECT_OK(engram_add(db, fact, &stored, &created, ERR));
  CHECK(created == 1);
  CHECK(strlen(engram_fact_id(stored)) == 24);
  CHECK(strcmp(engram_fact_scope(stored), "team") == 0);
  CHECK(strcmp(engram_fact_content(stored), "Deploys go out on Tuesdays after the 10:00 standup") ==
        0);
  CHECK(strcmp(engram_fact_kind(stored), "preference") == 0);
  CHECK(strcmp(engram_fact_source(stored), "wiki") == 0);
  CHECK(strstr(engram_fact_metadata(stored), "ana") != NULL);
  CHECK(engram_fact_tag_count(stored) == 2);
  CHECK(strcmp(engram_fact_tag(stored, 0), "deploy") == 0); /* lower-cased, sorted */
  CHECK(strcmp(engram_fact_tag(stored, 1), "schedule") == 0);
  CHECK(engram_fact_tag(stored, 2) == NULL);
  CHECK(engram_fact_confidence(stored) == 0.75);
  CHECK(engram_fact_created_at(stored) > 0);
  CHECK(engram_fact_updated_at(stored) >= engram_fact_created_at(stored));
  CHECK(engram_fact_last_accessed(stored) == engram_fact_created_at(stored));
  CHECK(engram_fact_access_count(stored) == 0);
  CHECK(strcmp(engram_fact_superseded_by(stored), "") == 0);
  CHECK(engram_fact_valid_until(stored) == 0);
  CHECK(engram_fact_expires_at(stored) == 0);

  /* The same text again merges. */
  created = -1;
  EXPECT_OK(engram_add(db, fact, NULL, &created, ERR));
  CHECK(created == 0);

  /* Bad facts name the field; nothing is stored. */
  engram_new_fact_t* bad = engram_new_fact_create("");
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "content", engram_add(db, bad, NULL, NULL, ERR));
  engram_new_fact_set_content(bad, "fine text");
  engram_new_fact_set_confidence(bad, 1.5);
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "confidence", engram_add(db, bad, NULL, NULL, ERR));
  engram_new_fact_set_confidence(bad, 1.0);
  engram_new_fact_set_metadata(bad, "[1, 2]");
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "metadata", engram_add(db, bad, NULL, NULL, ERR));
  engram_new_fact_set_metadata(bad, "{}");
  engram_new_fact_set_content(bad, "\xff\xfe not UTF-8");
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "UTF-8", engram_add(db, bad, NULL, NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "fact", engram_add(db, NULL, NULL, NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "db", engram_add(NULL, bad, NULL, NULL, ERR));

  /* A batch is all or nothing; the bad fact is named by its index. */
  engram_new_fact_t* good = engram_new_fact_create("The staging database listens on port 5433");
  engram_new_fact_set_scope(good, "team");
  const engram_new_fact_t* batch[3] = {good, bad, good};
  size_t added = 99, merged = 99;
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "fact 1",
               engram_add_batch(db, batch, 3, &added, &merged, ERR));
  CHECK(added == 99);
  const engram_new_fact_t* with_null[2] = {good, NULL};
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "fact 1 is NULL",
               engram_add_batch(db, with_null, 2, NULL, NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "facts", engram_add_batch(db, NULL, 1, NULL, NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "db", engram_add_batch(NULL, batch, 1, NULL, NULL, ERR));
  engram_new_fact_t* second =
      engram_new_fact_create("The production database listens on port 5432");
  engram_new_fact_set_scope(second, "team");
  const engram_new_fact_t* fine[3] = {good, second, good};
  EXPECT_OK(engram_add_batch(db, fine, 3, &added, &merged, ERR));
  CHECK(added == 2);
  CHECK(merged == 1);
  EXPECT_OK(engram_add_batch(db, NULL, 0, &added, NULL, ERR));
  CHECK(added == 0);

  /* Get by id and by prefix. */
  engram_fact_t* got = NULL;
  EXPECT_OK(engram_get(db, "team", engram_fact_id(stored), &got, ERR));
  CHECK(got != NULL && strcmp(engram_fact_id(got), engram_fact_id(stored)) == 0);
  engram_fact_destroy(got);
  char prefix[7];
  memcpy(prefix, engram_fact_id(stored), 6);
  prefix[6] = '\0';
  EXPECT_OK(engram_get(db, "team", prefix, &got, ERR));
  engram_fact_destroy(got);
  EXPECT_FAILS(ENGRAM_NOT_FOUND, "ffffffff", engram_get(db, "team", "ffffffff", &got, ERR));
  CHECK(got == NULL);
  EXPECT_FAILS(ENGRAM_NOT_FOUND, NULL, engram_get(db, NULL, engram_fact_id(stored), &got, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "id", engram_get(db, "team", NULL, &got, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "out", engram_get(db, "team", prefix, NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "db", engram_get(NULL, "team", prefix, &got, ERR));

  /* Update: a new version, the old one kept and superseded. */
  engram_new_fact_t* newer =
      engram_new_fact_create("Deploys go out on Thursdays after the 10:00 standup");
  engram_new_fact_add_tag(newer, "deploy");
  engram_fact_t* current = NULL;
  EXPECT_OK(engram_update(db, "team", engram_fact_id(stored), newer, &current, ERR));
  CHECK(current != NULL && strcmp(engram_fact_scope(current), "team") == 0);
  EXPECT_FAILS(ENGRAM_FAILED_PRECONDITION, NULL,
               engram_update(db, "team", engram_fact_id(stored), newer, NULL, ERR));
  EXPECT_FAILS(ENGRAM_NOT_FOUND, NULL, engram_update(db, "team", "abababab", newer, NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "id", engram_update(db, "team", NULL, newer, NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "replacement",
               engram_update(db, "team", prefix, NULL, NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "db",
               engram_update(NULL, "team", prefix, newer, NULL, ERR));

  /* History: oldest first. */
  engram_facts_t* versions = NULL;
  EXPECT_OK(engram_history(db, "team", engram_fact_id(current), &versions, ERR));
  CHECK(engram_facts_count(versions) == 2);
  CHECK(strcmp(engram_fact_id(engram_facts_at(versions, 0)), engram_fact_id(stored)) == 0);
  CHECK(strcmp(engram_fact_superseded_by(engram_facts_at(versions, 0)), engram_fact_id(current)) ==
        0);
  CHECK(engram_fact_valid_until(engram_facts_at(versions, 0)) > 0);
  CHECK(engram_facts_at(versions, 2) == NULL);
  engram_facts_destroy(versions);
  EXPECT_FAILS(ENGRAM_NOT_FOUND, NULL, engram_history(db, "team", "abababab", &versions, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "id", engram_history(db, "team", NULL, &versions, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "out", engram_history(db, "team", prefix, NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "db", engram_history(NULL, "team", prefix, &versions, ERR));

  /* List: current facts, newest first; with a filter; with history. */
  engram_list_options_t* list = engram_list_options_create();
  engram_list_options_add_scope(list, "team");
  engram_facts_t* facts = NULL;
  EXPECT_OK(engram_list(db, list, &facts, ERR));
  CHECK(engram_facts_count(facts) == 3);
  engram_facts_destroy(facts);
  engram_filter_t* filter = engram_filter_create();
  engram_filter_add_any_tag(filter, "deploy");
  engram_list_options_set_filter(list, filter);
  EXPECT_OK(engram_list(db, list, &facts, ERR));
  CHECK(engram_facts_count(facts) == 1);
  CHECK(strcmp(engram_fact_id(engram_facts_at(facts, 0)), engram_fact_id(current)) == 0);
  engram_facts_destroy(facts);
  engram_list_options_set_include_superseded(list, 1);
  EXPECT_OK(engram_list(db, list, &facts, ERR));
  CHECK(engram_facts_count(facts) == 2);
  engram_facts_destroy(facts);
  engram_list_options_set_filter(list, NULL);
  engram_list_options_set_include_superseded(list, 0);
  engram_list_options_set_limit(list, 1);
  engram_list_options_set_offset(list, 1);
  EXPECT_OK(engram_list(db, list, &facts, ERR));
  CHECK(engram_facts_count(facts) == 1);
  engram_facts_destroy(facts);
  EXPECT_OK(engram_list(db, NULL, &facts, ERR)); /* scope "default" */
  CHECK(engram_facts_count(facts) == 0);
  engram_facts_destroy(facts);
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "out", engram_list(db, list, NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "db", engram_list(NULL, list, &facts, ERR));
  engram_list_options_destroy(list);
  engram_list_options_destroy(NULL);

  /* Filters of every kind, through list. */
  engram_filter_t* every = engram_filter_create();
  engram_filter_add_all_tag(every, "deploy");
  engram_filter_set_kind(every, "fact");
  engram_filter_set_since(every, 0);
  engram_filter_set_until(every, engram_fact_created_at(current) + 1);
  list = engram_list_options_create();
  engram_list_options_add_scope(list, "team");
  engram_list_options_set_filter(list, every);
  EXPECT_OK(engram_list(db, list, &facts, ERR));
  CHECK(engram_facts_count(facts) == 1);
  engram_facts_destroy(facts);
  /* The current version has no metadata; the replaced one had owner ana. */
  engram_filter_add_metadata(every, "owner", "ana");
  engram_filter_set_kind(every, "preference");
  engram_list_options_set_filter(list, every);
  EXPECT_OK(engram_list(db, list, &facts, ERR));
  CHECK(engram_facts_count(facts) == 0);
  engram_facts_destroy(facts);
  /* ... and was the current one when it was made. */
  engram_filter_set_as_of(every, engram_fact_created_at(stored));
  engram_list_options_set_filter(list, every);
  EXPECT_OK(engram_list(db, list, &facts, ERR));
  CHECK(engram_facts_count(facts) == 1 &&
        strcmp(engram_fact_id(engram_facts_at(facts, 0)), engram_fact_id(stored)) == 0);
  engram_facts_destroy(facts);
  engram_list_options_destroy(list);
  engram_filter_destroy(every);
  engram_filter_destroy(filter);
  engram_filter_destroy(NULL);

  engram_new_fact_destroy(fact);
  engram_new_fact_destroy(bad);
  engram_new_fact_destroy(good);
  engram_new_fact_destroy(second);
  engram_new_fact_destroy(newer);
  engram_new_fact_destroy(NULL);
  engram_fact_destroy(stored);
  engram_fact_destroy(current);
  engram_fact_destroy(NULL);
  engram_facts_destroy(NULL);

  /* Accessors and setters on NULL. */
  CHECK(engram_fact_id(NULL) == NULL);
  CHECK(engram_fact_tag_count(NULL) == 0);
  CHECK(engram_fact_confidence(NULL) == 0.0);
  CHECK(engram_fact_created_at(NULL) == 0);
  CHECK(engram_facts_count(NULL) == 0);
  CHECK(engram_facts_at(NULL, 0) == NULL);
  engram_new_fact_set_content(NULL, "x");
  engram_new_fact_add_tag(NULL, "x");
  engram_filter_add_any_tag(NULL, "x");
  engram_list_options_set_limit(NULL, 1);
}

static void TestSearch(engram_t* db) {
  engram_fact_destroy(Add(db, "My daughter Maya is allergic to peanuts", "family"));
  engram_fact_destroy(Add(db, "The car needs new winter tyres in November", "car"));
  engram_fact_destroy(Add(db, "Maya plays the violin on Saturdays", "family"));

  engram_search_options_t* options = engram_search_options_create();
  engram_search_options_set_k(options, 2);
  engram_search_options_set_explain(options, 1);
  engram_search_options_set_record_access(options, 0);
  engram_search_options_set_hyde(options, 0);
  engram_search_options_set_include_superseded(options, 0);
  engram_search_result_t* result = NULL;
  EXPECT_OK(engram_search(db, "what food allergy does Maya have", options, &result, ERR));
  CHECK(engram_result_count(result) == 2);
  CHECK(strstr(engram_fact_content(engram_result_fact(result, 0)), "peanuts") != NULL);
  CHECK(engram_result_score(result, 0) > 0.0 && engram_result_score(result, 0) <= 1.0);
  CHECK(engram_result_score(result, 0) >= engram_result_score(result, 1));
  CHECK(engram_result_fact(result, 2) == NULL);
  CHECK(engram_result_score(result, 2) == 0.0);
  CHECK(engram_result_semantic(result) == 1);
  CHECK(engram_result_no_match(result) == 0);
  CHECK(engram_result_temporal_fallback(result) == 0);
  CHECK(engram_result_candidates(result) >= 2);
  CHECK(strcmp(engram_result_language(result), "en") == 0);
  CHECK(engram_result_query_term_count(result) >= 2);
  CHECK(engram_result_query_term(result, 0) != NULL);
  CHECK(engram_result_query_term(result, 1000) == NULL);
  CHECK(strcmp(engram_result_hypothesis(result), "") == 0);
  CHECK(engram_result_warning(result, engram_result_warning_count(result)) == NULL);

  /* The explanation. */
  engram_signal semantic, lexical, temporal;
  EXPECT_OK(engram_result_signal(result, 0, ENGRAM_SIGNAL_SEMANTIC, &semantic, ERR));
  EXPECT_OK(engram_result_signal(result, 0, ENGRAM_SIGNAL_LEXICAL, &lexical, ERR));
  EXPECT_OK(engram_result_signal(result, 0, ENGRAM_SIGNAL_TEMPORAL, &temporal, ERR));
  CHECK(semantic.present == 1 && semantic.raw > 0.3 && semantic.rank >= 1);
  CHECK(lexical.present == 1 && lexical.rank >= 1);
  CHECK(temporal.present == 1);
  CHECK(semantic.weight > 0.0 && lexical.weight > 0.0);
  CHECK(semantic.weight + lexical.weight + temporal.weight > 0.99);
  CHECK(engram_result_matched_term_count(result, 0) >= 1);
  CHECK(engram_result_matched_term(result, 0, 0) != NULL);
  CHECK(engram_result_matched_term(result, 0, 1000) == NULL);
  CHECK(engram_result_newer_version_of(result, 0) != NULL);
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "index 5",
               engram_result_signal(result, 5, ENGRAM_SIGNAL_LEXICAL, &lexical, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "signal 7",
               engram_result_signal(result, 0, 7, &lexical, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "out",
               engram_result_signal(result, 0, ENGRAM_SIGNAL_LEXICAL, NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "result",
               engram_result_signal(NULL, 0, ENGRAM_SIGNAL_LEXICAL, &lexical, ERR));
  engram_search_result_destroy(result);

  /* Not explained: no signals. */
  engram_search_options_set_explain(options, 0);
  EXPECT_OK(engram_search(db, "violin", options, &result, ERR));
  CHECK(engram_result_count(result) == 1);
  EXPECT_FAILS(ENGRAM_FAILED_PRECONDITION, "explain",
               engram_result_signal(result, 0, ENGRAM_SIGNAL_LEXICAL, &lexical, ERR));
  CHECK(engram_result_matched_term_count(result, 0) == 0);
  CHECK(engram_result_newer_version_of(result, 0) == NULL);
  engram_search_result_destroy(result);

  /* A filter, a mode, weights. */
  engram_filter_t* filter = engram_filter_create();
  engram_filter_add_any_tag(filter, "car");
  engram_search_options_set_filter(options, filter);
  engram_search_options_set_k(options, 10);
  EXPECT_OK(engram_search(db, "Maya", options, &result, ERR));
  CHECK(engram_result_no_match(result) == 1);
  CHECK(engram_result_count(result) == 0);
  engram_search_result_destroy(result);
  engram_search_options_set_filter(options, NULL);
  EXPECT_OK(engram_search_options_set_mode(options, "lexical", ERR));
  EXPECT_OK(engram_search(db, "Maya", options, &result, ERR));
  CHECK(engram_result_count(result) == 2);
  CHECK(engram_result_semantic(result) == 0);
  engram_search_result_destroy(result);
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "fuzzy",
               engram_search_options_set_mode(options, "fuzzy", ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "mode", engram_search_options_set_mode(options, NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "options",
               engram_search_options_set_mode(NULL, "lexical", ERR));
  EXPECT_OK(engram_search_options_set_mode(options, "blended", ERR));
  engram_search_options_set_weights(options, 0.0, 1.0, 0.0);
  engram_search_options_add_scope(options, "default");
  EXPECT_OK(engram_search(db, "winter tyres", options, &result, ERR));
  CHECK(engram_result_count(result) >= 1);
  engram_search_result_destroy(result);

  /* Bad searches. */
  engram_search_options_set_k(options, 0);
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "k", engram_search(db, "Maya", options, &result, ERR));
  CHECK(result == NULL);
  engram_search_options_set_k(options, 5);
  engram_search_options_set_weights(options, -1.0, 1.0, 0.0);
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "weight", engram_search(db, "Maya", options, &result, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "query", engram_search(db, NULL, NULL, &result, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "out", engram_search(db, "Maya", NULL, NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "db", engram_search(NULL, "Maya", NULL, &result, ERR));
  EXPECT_OK(engram_search(db, "Maya", NULL, &result, ERR)); /* defaults */
  CHECK(engram_result_count(result) == 2);
  engram_search_result_destroy(result);

  engram_filter_destroy(filter);
  engram_search_options_destroy(options);
  engram_search_options_destroy(NULL);
  engram_search_result_destroy(NULL);
  CHECK(engram_result_count(NULL) == 0);
  CHECK(engram_result_language(NULL) == NULL);
  CHECK(engram_result_hypothesis(NULL) == NULL);
  engram_search_options_set_k(NULL, 1);
}

static void TestFilesAndConfig(engram_t* db) {
  char path[512];
  size_t exported = 0, added = 0, merged = 0, skipped = 0;

  Path(path, sizeof path, "export.jsonl");
  EXPECT_OK(engram_export(db, NULL, 0, path, &exported, ERR));
  CHECK(exported == 7); /* 3 default + 3 team + the replaced version */
  struct stat st;
  CHECK(stat(path, &st) == 0 && (st.st_mode & 077) == 0);
  const char* team[1] = {"team"};
  EXPECT_OK(engram_export(db, team, 1, path, &exported, ERR));
  CHECK(exported == 4);
  const char* null_scope[1] = {NULL};
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "scope 0",
               engram_export(db, null_scope, 1, path, NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "scopes", engram_export(db, NULL, 1, path, NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "path", engram_export(db, NULL, 0, NULL, NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "db", engram_export(NULL, NULL, 0, path, NULL, ERR));
  char bad_path[600];
  snprintf(bad_path, sizeof bad_path, "%s/no/such/dir/x.jsonl", store_dir);
  EXPECT_FAILS(ENGRAM_IO_ERROR, "no/such/dir", engram_export(db, NULL, 0, bad_path, NULL, ERR));

  /* Import into a second store: exactly what was exported. */
  engram_t* copy = OpenStore("copy.db");
  EXPECT_OK(engram_import(copy, path, 0, &added, &merged, &skipped, ERR));
  CHECK(added == 4 && merged == 0 && skipped == 0);
  engram_facts_t* facts = NULL;
  engram_list_options_t* list = engram_list_options_create();
  engram_list_options_add_scope(list, "team");
  engram_list_options_set_include_superseded(list, 1);
  EXPECT_OK(engram_list(copy, list, &facts, ERR));
  CHECK(engram_facts_count(facts) == 4);
  engram_facts_destroy(facts);
  engram_list_options_destroy(list);

  /* A bad record fails the whole import, named by file and line. */
  char csv[512];
  Path(csv, sizeof csv, "facts.csv");
  FILE* out = fopen(csv, "w");
  fputs("content,tags,confidence\nThe boiler was serviced in May,home,1\n,home,1\n", out);
  fclose(out);
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "facts.csv:3",
               engram_import(copy, csv, 0, &added, NULL, NULL, ERR));
  EXPECT_OK(engram_import(copy, csv, 1, &added, &merged, &skipped, ERR));
  CHECK(added == 1 && skipped == 1);
  Path(path, sizeof path, "absent.jsonl");
  EXPECT_FAILS(ENGRAM_NOT_FOUND, "absent.jsonl",
               engram_import(copy, path, 0, NULL, NULL, NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "path",
               engram_import(copy, NULL, 0, NULL, NULL, NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "db", engram_import(NULL, csv, 0, NULL, NULL, NULL, ERR));

  /* Backfill: every fact already has its vector. */
  size_t embedded = 99, remaining = 99;
  EXPECT_OK(engram_backfill(copy, 0, &embedded, &remaining, ERR));
  CHECK(embedded == 0 && remaining == 0);
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "db", engram_backfill(NULL, 0, NULL, NULL, ERR));
  engram_close(copy);

  /* Config. */
  char* json = NULL;
  EXPECT_OK(engram_config_json(db, &json, ERR));
  CHECK(json != NULL && strstr(json, "\"fusion.w_semantic\"") != NULL);
  CHECK(json != NULL && strstr(json, "\"store\"") != NULL);
  engram_free(json);
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "json", engram_config_json(db, NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "db", engram_config_json(NULL, &json, ERR));
}

static void TestForget(engram_t* db) {
  int64_t forgotten = -1;
  engram_fact_t* a = Add(db, "The spare key is under the blue flowerpot", "home");
  engram_fact_t* b = Add(db, "The wifi password is on the fridge", "home");
  const char* ids[2] = {engram_fact_id(a), "abababab"};
  EXPECT_FAILS(ENGRAM_NOT_FOUND, "abababab",
               engram_forget(db, NULL, ids, 2, ENGRAM_HISTORY_REFUSE, &forgotten, ERR));
  CHECK(forgotten == -1);
  EXPECT_OK(engram_forget(db, NULL, ids, 1, ENGRAM_HISTORY_REFUSE, &forgotten, ERR));
  CHECK(forgotten == 1);
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "count",
               engram_forget(db, NULL, ids, 0, ENGRAM_HISTORY_REFUSE, NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "ids",
               engram_forget(db, NULL, NULL, 1, ENGRAM_HISTORY_REFUSE, NULL, ERR));
  const char* null_id[1] = {NULL};
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "id 0",
               engram_forget(db, NULL, null_id, 1, ENGRAM_HISTORY_REFUSE, NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "history policy 9",
               engram_forget(db, NULL, ids, 1, 9, NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "db",
               engram_forget(NULL, NULL, ids, 1, ENGRAM_HISTORY_REFUSE, NULL, ERR));

  /* A current fact with an older version: refused, unless told what
   * becomes of it. */
  engram_list_options_t* list = engram_list_options_create();
  engram_list_options_add_scope(list, "team");
  engram_filter_t* filter = engram_filter_create();
  engram_filter_add_any_tag(filter, "deploy");
  engram_list_options_set_filter(list, filter);
  engram_facts_t* facts = NULL;
  EXPECT_OK(engram_list(db, list, &facts, ERR));
  const char* current[1] = {engram_fact_id(engram_facts_at(facts, 0))};
  EXPECT_FAILS(ENGRAM_FAILED_PRECONDITION, NULL,
               engram_forget(db, "team", current, 1, ENGRAM_HISTORY_REFUSE, NULL, ERR));
  EXPECT_OK(engram_forget(db, "team", current, 1, ENGRAM_HISTORY_RESTORE, &forgotten, ERR));
  CHECK(forgotten == 1);
  engram_facts_destroy(facts);
  engram_filter_destroy(filter);
  engram_list_options_destroy(list);

  EXPECT_OK(engram_forget_tag(db, NULL, "home", ENGRAM_HISTORY_DELETE, &forgotten, ERR));
  CHECK(forgotten == 1);
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "tag",
               engram_forget_tag(db, NULL, "", ENGRAM_HISTORY_REFUSE, NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "tag",
               engram_forget_tag(db, NULL, NULL, ENGRAM_HISTORY_REFUSE, NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "history policy",
               engram_forget_tag(db, NULL, "home", -1, NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "db",
               engram_forget_tag(NULL, NULL, "home", ENGRAM_HISTORY_REFUSE, NULL, ERR));

  EXPECT_OK(engram_forget_scope(db, "team", &forgotten, ERR));
  CHECK(forgotten == 3);
  EXPECT_FAILS(ENGRAM_NOT_FOUND, "team", engram_forget_scope(db, "team", NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "scope", engram_forget_scope(db, NULL, NULL, ERR));
  EXPECT_FAILS(ENGRAM_INVALID_ARGUMENT, "db", engram_forget_scope(NULL, "team", NULL, ERR));
  engram_fact_destroy(a);
  engram_fact_destroy(b);
}

int main(void) {
  snprintf(store_dir, sizeof store_dir, "%s/engram-c-api-XXXXXX",
           getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
  if (mkdtemp(store_dir) == NULL) {
    perror("mkdtemp");
    return 2;
  }

  TestCodesAndVersion();
  TestOptions();
  TestOpen();
  engram_t* db = OpenStore("memory.db");
  CHECK(db != NULL);
  CHECK(engram_warning_count(db) == 0);
  if (db != NULL) {
    TestFacts(db);
    TestSearch(db);
    TestFilesAndConfig(db);
    TestForget(db);
  }
  engram_close(db);

  char command[600];
  snprintf(command, sizeof command, "rm -rf '%s'", store_dir);
  if (system(command) != 0) fprintf(stderr, "could not remove %s\n", store_dir);
  printf("%d checks, %d failed\n", checks, failures);
  return failures == 0 ? 0 : 1;
}
