// The C API's search: options, the search, and its results with their
// explanations.
#include <string>
#include <utility>

#include "src/capi/handles.h"

using engram::Status;
using engram::capi::Guarded;
using engram::capi::OrDefault;
using engram::capi::Required;

namespace {

const engram::SearchHit* Hit(const engram_search_result_t* result, size_t index) {
  if (result == nullptr || index >= result->response.hits.size()) return nullptr;
  return &result->response.hits[index];
}

// The explanation of hit `index`, or null when there is none.
const engram::Explanation* Explained(const engram_search_result_t* result, size_t index) {
  const engram::SearchHit* hit = Hit(result, index);
  return hit == nullptr || !result->explained ? nullptr : &hit->explanation;
}

const char* Element(const std::vector<std::string>& items, size_t index) {
  return index < items.size() ? items[index].c_str() : nullptr;
}

}  // namespace

extern "C" {

engram_search_options_t* engram_search_options_create(void) {
  return new engram_search_options_t();
}

void engram_search_options_destroy(engram_search_options_t* options) { delete options; }

void engram_search_options_set_k(engram_search_options_t* options, size_t k) {
  if (options != nullptr) options->options.k = k;
}
void engram_search_options_add_scope(engram_search_options_t* options, const char* scope) {
  if (options != nullptr) options->options.scopes.push_back(OrDefault(scope, ""));
}

engram_code engram_search_options_set_mode(engram_search_options_t* options, const char* mode,
                                           char** errmsg) {
  return Guarded(errmsg, [&]() -> Status {
    ENGRAM_RETURN_IF_ERROR(Required(options, "engram_search_options_set_mode", "options"));
    ENGRAM_RETURN_IF_ERROR(Required(mode, "engram_search_options_set_mode", "mode"));
    ENGRAM_ASSIGN_OR_RETURN(options->options.mode, engram::ParseFusionMode(mode));
    return Status::OK();
  });
}

void engram_search_options_set_weights(engram_search_options_t* options, double semantic,
                                       double lexical, double temporal) {
  if (options != nullptr)
    options->options.weights = engram::FusionWeights{semantic, lexical, temporal};
}
void engram_search_options_set_explain(engram_search_options_t* options, int enabled) {
  if (options != nullptr) options->options.explain = enabled != 0;
}
void engram_search_options_set_record_access(engram_search_options_t* options, int enabled) {
  if (options != nullptr) options->options.record_access = enabled != 0;
}
void engram_search_options_set_hyde(engram_search_options_t* options, int enabled) {
  if (options != nullptr) options->options.hyde = enabled != 0;
}
void engram_search_options_set_include_superseded(engram_search_options_t* options, int enabled) {
  if (options != nullptr) options->options.include_superseded = enabled != 0;
}
void engram_search_options_set_filter(engram_search_options_t* options,
                                      const engram_filter_t* filter) {
  if (options != nullptr) {
    options->options.filter = filter == nullptr ? engram::FactFilter{} : filter->filter;
  }
}

engram_code engram_search(engram_t* db, const char* query, const engram_search_options_t* options,
                          engram_search_result_t** out, char** errmsg) {
  return Guarded(errmsg, [&]() -> Status {
    ENGRAM_RETURN_IF_ERROR(Required(db, "engram_search", "db"));
    ENGRAM_RETURN_IF_ERROR(Required(query, "engram_search", "query"));
    ENGRAM_RETURN_IF_ERROR(Required(out, "engram_search", "out"));
    *out = nullptr;
    const engram::SearchOptions search =
        options == nullptr ? engram::SearchOptions{} : options->options;
    ENGRAM_ASSIGN_OR_RETURN(engram::SearchResponse response, db->engine->Search(query, search));
    auto result = std::make_unique<engram_search_result_t>();
    result->explained = search.explain;
    result->facts.reserve(response.hits.size());
    for (engram::SearchHit& hit : response.hits) result->facts.push_back({std::move(hit.fact)});
    result->response = std::move(response);
    *out = result.release();
    return Status::OK();
  });
}

void engram_search_result_destroy(engram_search_result_t* result) { delete result; }

size_t engram_result_count(const engram_search_result_t* result) {
  return result == nullptr ? 0 : result->response.hits.size();
}

const engram_fact_t* engram_result_fact(const engram_search_result_t* result, size_t index) {
  return Hit(result, index) == nullptr ? nullptr : &result->facts[index];
}

double engram_result_score(const engram_search_result_t* result, size_t index) {
  const engram::SearchHit* hit = Hit(result, index);
  return hit == nullptr ? 0.0 : hit->score;
}

engram_code engram_result_signal(const engram_search_result_t* result, size_t index, int signal,
                                 engram_signal* out, char** errmsg) {
  return Guarded(errmsg, [&]() -> Status {
    ENGRAM_RETURN_IF_ERROR(Required(result, "engram_result_signal", "result"));
    ENGRAM_RETURN_IF_ERROR(Required(out, "engram_result_signal", "out"));
    if (Hit(result, index) == nullptr) {
      return engram::InvalidArgument("engram_result_signal: index " + std::to_string(index) +
                                     " is out of range (" +
                                     std::to_string(result->response.hits.size()) + " hits)");
    }
    if (!result->explained) {
      return engram::FailedPrecondition(
          "engram_result_signal: the search was not explained "
          "(engram_search_options_set_explain)");
    }
    const engram::Explanation& why = result->response.hits[index].explanation;
    const engram::SignalValue* value = nullptr;
    double weight = 0.0;
    switch (signal) {
      case ENGRAM_SIGNAL_SEMANTIC:
        value = &why.semantic;
        weight = why.weights.semantic;
        break;
      case ENGRAM_SIGNAL_LEXICAL:
        value = &why.lexical;
        weight = why.weights.lexical;
        break;
      case ENGRAM_SIGNAL_TEMPORAL:
        value = &why.temporal;
        weight = why.weights.temporal;
        break;
    }
    if (value == nullptr) {
      return engram::InvalidArgument("engram_result_signal: signal " + std::to_string(signal) +
                                     " is not one of ENGRAM_SIGNAL_SEMANTIC, _LEXICAL, _TEMPORAL");
    }
    *out =
        engram_signal{value->present ? 1 : 0, value->raw, value->normalized, weight, value->rank};
    return Status::OK();
  });
}

size_t engram_result_matched_term_count(const engram_search_result_t* result, size_t index) {
  const engram::Explanation* why = Explained(result, index);
  return why == nullptr ? 0 : why->matched_terms.size();
}

const char* engram_result_matched_term(const engram_search_result_t* result, size_t index,
                                       size_t term) {
  const engram::Explanation* why = Explained(result, index);
  return why == nullptr ? nullptr : Element(why->matched_terms, term);
}

const char* engram_result_newer_version_of(const engram_search_result_t* result, size_t index) {
  const engram::Explanation* why = Explained(result, index);
  return why == nullptr ? nullptr : why->newer_version_of.c_str();
}

int engram_result_no_match(const engram_search_result_t* result) {
  return result != nullptr && result->response.no_match ? 1 : 0;
}

int engram_result_temporal_fallback(const engram_search_result_t* result) {
  return result != nullptr && result->response.temporal_fallback ? 1 : 0;
}

size_t engram_result_candidates(const engram_search_result_t* result) {
  return result == nullptr ? 0 : result->response.candidates;
}

int engram_result_semantic(const engram_search_result_t* result) {
  return result != nullptr && result->response.semantic ? 1 : 0;
}

const char* engram_result_language(const engram_search_result_t* result) {
  return result == nullptr ? nullptr : result->response.language.c_str();
}

size_t engram_result_query_term_count(const engram_search_result_t* result) {
  return result == nullptr ? 0 : result->response.query_terms.size();
}

const char* engram_result_query_term(const engram_search_result_t* result, size_t index) {
  return result == nullptr ? nullptr : Element(result->response.query_terms, index);
}

const char* engram_result_hypothesis(const engram_search_result_t* result) {
  return result == nullptr ? nullptr : result->response.hyde.hypothesis.c_str();
}

size_t engram_result_warning_count(const engram_search_result_t* result) {
  return result == nullptr ? 0 : result->response.warnings.size();
}

const char* engram_result_warning(const engram_search_result_t* result, size_t index) {
  return result == nullptr ? nullptr : Element(result->response.warnings, index);
}

}  // extern "C"
