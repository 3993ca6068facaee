/* A C program on engram's C API (engram/c.h): remembers three facts in the
 * store named on the command line and asks it one question.
 *
 *   cc remember.c $(pkg-config --cflags --libs engram) -o remember
 *   ./remember /tmp/remember.db
 */
#include <stdio.h>

#include <engram/c.h>

static int Fail(const char* what, char* errmsg) {
  fprintf(stderr, "remember: %s: %s\n", what, errmsg);
  engram_free(errmsg);
  return 1;
}

int main(int argc, char** argv) {
  if (argc != 2) {
    fprintf(stderr, "usage: remember STORE.db\n");
    return 2;
  }
  char* errmsg = NULL;
  engram_t* db = NULL;
  if (engram_open(NULL, argv[1], &db, &errmsg) != ENGRAM_OK) return Fail("open", errmsg);
  for (size_t i = 0; i < engram_warning_count(db); ++i) {
    fprintf(stderr, "remember: warning: %s\n", engram_warning(db, i));
  }

  const char* facts[] = {"Maya is allergic to peanuts", "The car is due for its MOT in March",
                         "Standup moved to 9:30 on Mondays"};
  for (size_t i = 0; i < 3; ++i) {
    engram_new_fact_t* fact = engram_new_fact_create(facts[i]);
    engram_new_fact_add_tag(fact, i == 0 ? "family" : "todo");
    engram_code code = engram_add(db, fact, NULL, NULL, &errmsg);
    engram_new_fact_destroy(fact);
    if (code != ENGRAM_OK) return Fail("add", errmsg);
  }

  engram_search_options_t* options = engram_search_options_create();
  engram_search_options_set_k(options, 1);
  engram_search_result_t* result = NULL;
  engram_code code = engram_search(db, "what can't Maya eat?", options, &result, &errmsg);
  engram_search_options_destroy(options);
  if (code != ENGRAM_OK) return Fail("search", errmsg);
  for (size_t i = 0; i < engram_result_count(result); ++i) {
    const engram_fact_t* hit = engram_result_fact(result, i);
    printf("%.3f  %s  [%s]\n", engram_result_score(result, i), engram_fact_content(hit),
           engram_fact_tag_count(hit) > 0 ? engram_fact_tag(hit, 0) : "");
  }
  engram_search_result_destroy(result);
  engram_close(db);
  return 0;
}
