// The C API's facts: accessors, new facts, add, update, get, history,
// filters, list and forget.
#include <string>
#include <utility>
#include <vector>

#include "src/capi/handles.h"

using engram::Status;
using engram::capi::Guarded;
using engram::capi::OrDefault;
using engram::capi::Required;

namespace {

const char* Text(const engram_fact_t* fact, std::string engram::Fact::*field) {
  return fact == nullptr ? nullptr : (fact->fact.*field).c_str();
}

int64_t Number(const engram_fact_t* fact, int64_t engram::Fact::*field) {
  return fact == nullptr ? 0 : fact->fact.*field;
}

// Hands `fact` over through `out` when the caller wants it.
void HandOver(engram::Fact fact, engram_fact_t** out) {
  if (out != nullptr) *out = new engram_fact_t{std::move(fact)};
}

void HandOver(std::vector<engram::Fact> facts, engram_facts_t** out) {
  auto list = std::make_unique<engram_facts_t>();
  list->facts.reserve(facts.size());
  for (engram::Fact& fact : facts) list->facts.push_back(engram_fact_t{std::move(fact)});
  *out = list.release();
}

engram::ForgetHistory ToHistory(int history) {
  switch (history) {
    case ENGRAM_HISTORY_RESTORE:
      return engram::ForgetHistory::kRestore;
    case ENGRAM_HISTORY_DELETE:
      return engram::ForgetHistory::kDelete;
    case ENGRAM_HISTORY_REFUSE:
      break;
  }
  return engram::ForgetHistory::kRefuse;
}

Status CheckHistory(int history, const char* function) {
  if (history >= ENGRAM_HISTORY_REFUSE && history <= ENGRAM_HISTORY_DELETE) return Status::OK();
  return engram::InvalidArgument(std::string(function) + ": history policy " +
                                 std::to_string(history) +
                                 " is not one of ENGRAM_HISTORY_REFUSE, _RESTORE, _DELETE");
}

// Runs `request` through Engine::Forget after the checks every forget shares.
Status Forget(engram_t* db, engram::ForgetRequest request, int64_t* forgotten) {
  ENGRAM_ASSIGN_OR_RETURN(int64_t count, db->engine->Forget(request));
  if (forgotten != nullptr) *forgotten = count;
  return Status::OK();
}

}  // namespace

extern "C" {

// ---- Facts ----------------------------------------------------------------

const char* engram_fact_id(const engram_fact_t* fact) { return Text(fact, &engram::Fact::id); }
const char* engram_fact_scope(const engram_fact_t* fact) {
  return Text(fact, &engram::Fact::scope);
}
const char* engram_fact_content(const engram_fact_t* fact) {
  return Text(fact, &engram::Fact::content);
}
const char* engram_fact_kind(const engram_fact_t* fact) { return Text(fact, &engram::Fact::kind); }
const char* engram_fact_source(const engram_fact_t* fact) {
  return Text(fact, &engram::Fact::source);
}
const char* engram_fact_metadata(const engram_fact_t* fact) {
  return Text(fact, &engram::Fact::metadata);
}
const char* engram_fact_superseded_by(const engram_fact_t* fact) {
  return Text(fact, &engram::Fact::superseded_by);
}

size_t engram_fact_tag_count(const engram_fact_t* fact) {
  return fact == nullptr ? 0 : fact->fact.tags.size();
}

const char* engram_fact_tag(const engram_fact_t* fact, size_t index) {
  if (fact == nullptr || index >= fact->fact.tags.size()) return nullptr;
  return fact->fact.tags[index].c_str();
}

double engram_fact_confidence(const engram_fact_t* fact) {
  return fact == nullptr ? 0.0 : fact->fact.confidence;
}

int64_t engram_fact_created_at(const engram_fact_t* fact) {
  return Number(fact, &engram::Fact::created_at);
}
int64_t engram_fact_updated_at(const engram_fact_t* fact) {
  return Number(fact, &engram::Fact::updated_at);
}
int64_t engram_fact_last_accessed(const engram_fact_t* fact) {
  return Number(fact, &engram::Fact::last_accessed);
}
int64_t engram_fact_access_count(const engram_fact_t* fact) {
  return Number(fact, &engram::Fact::access_count);
}
int64_t engram_fact_valid_until(const engram_fact_t* fact) {
  return Number(fact, &engram::Fact::valid_until);
}
int64_t engram_fact_expires_at(const engram_fact_t* fact) {
  return Number(fact, &engram::Fact::expires_at);
}

void engram_fact_destroy(engram_fact_t* fact) { delete fact; }

size_t engram_facts_count(const engram_facts_t* facts) {
  return facts == nullptr ? 0 : facts->facts.size();
}

const engram_fact_t* engram_facts_at(const engram_facts_t* facts, size_t index) {
  if (facts == nullptr || index >= facts->facts.size()) return nullptr;
  return &facts->facts[index];
}

void engram_facts_destroy(engram_facts_t* facts) { delete facts; }

// ---- New facts -------------------------------------------------------------

engram_new_fact_t* engram_new_fact_create(const char* content) {
  auto* fact = new engram_new_fact_t();
  fact->fact.content = OrDefault(content, "");
  return fact;
}

void engram_new_fact_destroy(engram_new_fact_t* fact) { delete fact; }

void engram_new_fact_set_content(engram_new_fact_t* fact, const char* content) {
  if (fact != nullptr) fact->fact.content = OrDefault(content, "");
}
void engram_new_fact_set_scope(engram_new_fact_t* fact, const char* scope) {
  if (fact != nullptr) fact->fact.scope = OrDefault(scope, "");
}
void engram_new_fact_add_tag(engram_new_fact_t* fact, const char* tag) {
  if (fact != nullptr) fact->fact.tags.push_back(OrDefault(tag, ""));
}
void engram_new_fact_set_kind(engram_new_fact_t* fact, const char* kind) {
  if (fact != nullptr) fact->fact.kind = OrDefault(kind, "");
}
void engram_new_fact_set_source(engram_new_fact_t* fact, const char* source) {
  if (fact != nullptr) fact->fact.source = OrDefault(source, "");
}
void engram_new_fact_set_confidence(engram_new_fact_t* fact, double confidence) {
  if (fact != nullptr) fact->fact.confidence = confidence;
}
void engram_new_fact_set_metadata(engram_new_fact_t* fact, const char* json) {
  if (fact != nullptr) fact->fact.metadata = OrDefault(json, "");
}
void engram_new_fact_set_expires_at(engram_new_fact_t* fact, int64_t expires_at) {
  if (fact != nullptr) fact->fact.expires_at = expires_at;
}

// ---- Add, update, get, history ---------------------------------------------

engram_code engram_add(engram_t* db, const engram_new_fact_t* fact, engram_fact_t** out,
                       int* created, char** errmsg) {
  return Guarded(errmsg, [&]() -> Status {
    ENGRAM_RETURN_IF_ERROR(Required(db, "engram_add", "db"));
    ENGRAM_RETURN_IF_ERROR(Required(fact, "engram_add", "fact"));
    ENGRAM_ASSIGN_OR_RETURN(engram::AddOutcome outcome, db->engine->Add(fact->fact));
    if (created != nullptr) *created = outcome.created ? 1 : 0;
    HandOver(std::move(outcome.fact), out);
    return Status::OK();
  });
}

engram_code engram_add_batch(engram_t* db, const engram_new_fact_t* const* facts, size_t count,
                             size_t* added, size_t* merged, char** errmsg) {
  return Guarded(errmsg, [&]() -> Status {
    ENGRAM_RETURN_IF_ERROR(Required(db, "engram_add_batch", "db"));
    if (count > 0) ENGRAM_RETURN_IF_ERROR(Required(facts, "engram_add_batch", "facts"));
    std::vector<engram::NewFact> batch;
    batch.reserve(count);
    for (size_t i = 0; i < count; ++i) {
      const std::string where = "engram_add_batch: fact " + std::to_string(i);
      if (facts[i] == nullptr) return engram::InvalidArgument(where + " is NULL");
      ENGRAM_RETURN_IF_ERROR(db->engine->Validate(facts[i]->fact).WithContext(where));
      batch.push_back(facts[i]->fact);
    }
    ENGRAM_ASSIGN_OR_RETURN(engram::ImportReport report, db->engine->Import(batch, {}));
    if (added != nullptr) *added = report.added;
    if (merged != nullptr) *merged = report.merged;
    return Status::OK();
  });
}

engram_code engram_update(engram_t* db, const char* scope, const char* id,
                          const engram_new_fact_t* replacement, engram_fact_t** out,
                          char** errmsg) {
  return Guarded(errmsg, [&]() -> Status {
    ENGRAM_RETURN_IF_ERROR(Required(db, "engram_update", "db"));
    ENGRAM_RETURN_IF_ERROR(Required(id, "engram_update", "id"));
    ENGRAM_RETURN_IF_ERROR(Required(replacement, "engram_update", "replacement"));
    engram::UpdateRequest request;
    request.scope = OrDefault(scope, engram::kDefaultScope);
    request.id = id;
    request.replacement = replacement->fact;
    request.replacement.scope = request.scope;
    ENGRAM_ASSIGN_OR_RETURN(engram::UpdateOutcome outcome, db->engine->Update(request));
    HandOver(std::move(outcome.fact), out);
    return Status::OK();
  });
}

engram_code engram_get(engram_t* db, const char* scope, const char* id, engram_fact_t** out,
                       char** errmsg) {
  return Guarded(errmsg, [&]() -> Status {
    ENGRAM_RETURN_IF_ERROR(Required(db, "engram_get", "db"));
    ENGRAM_RETURN_IF_ERROR(Required(id, "engram_get", "id"));
    ENGRAM_RETURN_IF_ERROR(Required(out, "engram_get", "out"));
    *out = nullptr;
    ENGRAM_ASSIGN_OR_RETURN(engram::Fact fact,
                            db->engine->Get(OrDefault(scope, engram::kDefaultScope), id));
    HandOver(std::move(fact), out);
    return Status::OK();
  });
}

engram_code engram_history(engram_t* db, const char* scope, const char* id, engram_facts_t** out,
                           char** errmsg) {
  return Guarded(errmsg, [&]() -> Status {
    ENGRAM_RETURN_IF_ERROR(Required(db, "engram_history", "db"));
    ENGRAM_RETURN_IF_ERROR(Required(id, "engram_history", "id"));
    ENGRAM_RETURN_IF_ERROR(Required(out, "engram_history", "out"));
    *out = nullptr;
    ENGRAM_ASSIGN_OR_RETURN(std::vector<engram::Fact> versions,
                            db->engine->History(OrDefault(scope, engram::kDefaultScope), id));
    HandOver(std::move(versions), out);
    return Status::OK();
  });
}

// ---- Filters ---------------------------------------------------------------

engram_filter_t* engram_filter_create(void) { return new engram_filter_t(); }

void engram_filter_destroy(engram_filter_t* filter) { delete filter; }

void engram_filter_add_any_tag(engram_filter_t* filter, const char* tag) {
  if (filter != nullptr) filter->filter.tags_any.push_back(OrDefault(tag, ""));
}
void engram_filter_add_all_tag(engram_filter_t* filter, const char* tag) {
  if (filter != nullptr) filter->filter.tags_all.push_back(OrDefault(tag, ""));
}
void engram_filter_set_kind(engram_filter_t* filter, const char* kind) {
  if (filter != nullptr) filter->filter.kind = OrDefault(kind, "");
}
void engram_filter_add_metadata(engram_filter_t* filter, const char* key, const char* value) {
  if (filter != nullptr) {
    filter->filter.metadata.emplace_back(OrDefault(key, ""), OrDefault(value, ""));
  }
}
void engram_filter_set_since(engram_filter_t* filter, int64_t since) {
  if (filter != nullptr) filter->filter.since = since;
}
void engram_filter_set_until(engram_filter_t* filter, int64_t until) {
  if (filter != nullptr) filter->filter.until = until;
}
void engram_filter_set_as_of(engram_filter_t* filter, int64_t as_of) {
  if (filter != nullptr) filter->filter.as_of = as_of;
}

// ---- List ------------------------------------------------------------------

engram_list_options_t* engram_list_options_create(void) { return new engram_list_options_t(); }

void engram_list_options_destroy(engram_list_options_t* options) { delete options; }

void engram_list_options_add_scope(engram_list_options_t* options, const char* scope) {
  if (options != nullptr) options->options.scopes.push_back(OrDefault(scope, ""));
}
void engram_list_options_set_limit(engram_list_options_t* options, size_t limit) {
  if (options != nullptr) options->options.limit = limit;
}
void engram_list_options_set_offset(engram_list_options_t* options, size_t offset) {
  if (options != nullptr) options->options.offset = offset;
}
void engram_list_options_set_include_superseded(engram_list_options_t* options, int enabled) {
  if (options != nullptr) options->options.include_superseded = enabled != 0;
}
void engram_list_options_set_filter(engram_list_options_t* options, const engram_filter_t* filter) {
  if (options != nullptr)
    options->options.filter = filter == nullptr ? engram::FactFilter{} : filter->filter;
}

engram_code engram_list(engram_t* db, const engram_list_options_t* options, engram_facts_t** out,
                        char** errmsg) {
  return Guarded(errmsg, [&]() -> Status {
    ENGRAM_RETURN_IF_ERROR(Required(db, "engram_list", "db"));
    ENGRAM_RETURN_IF_ERROR(Required(out, "engram_list", "out"));
    *out = nullptr;
    const engram::ListOptions list = options == nullptr ? engram::ListOptions{} : options->options;
    ENGRAM_ASSIGN_OR_RETURN(std::vector<engram::Fact> facts, db->engine->List(list));
    HandOver(std::move(facts), out);
    return Status::OK();
  });
}

// ---- Forget ----------------------------------------------------------------

engram_code engram_forget(engram_t* db, const char* scope, const char* const* ids, size_t count,
                          int history, int64_t* forgotten, char** errmsg) {
  return Guarded(errmsg, [&]() -> Status {
    ENGRAM_RETURN_IF_ERROR(Required(db, "engram_forget", "db"));
    ENGRAM_RETURN_IF_ERROR(CheckHistory(history, "engram_forget"));
    if (count == 0) return engram::InvalidArgument("engram_forget: no id given (count is 0)");
    ENGRAM_RETURN_IF_ERROR(Required(ids, "engram_forget", "ids"));
    engram::ForgetRequest request;
    request.scope = OrDefault(scope, engram::kDefaultScope);
    request.history = ToHistory(history);
    for (size_t i = 0; i < count; ++i) {
      if (ids[i] == nullptr) {
        return engram::InvalidArgument("engram_forget: id " + std::to_string(i) + " is NULL");
      }
      request.ids.emplace_back(ids[i]);
    }
    return Forget(db, std::move(request), forgotten);
  });
}

engram_code engram_forget_tag(engram_t* db, const char* scope, const char* tag, int history,
                              int64_t* forgotten, char** errmsg) {
  return Guarded(errmsg, [&]() -> Status {
    ENGRAM_RETURN_IF_ERROR(Required(db, "engram_forget_tag", "db"));
    ENGRAM_RETURN_IF_ERROR(Required(tag, "engram_forget_tag", "tag"));
    ENGRAM_RETURN_IF_ERROR(CheckHistory(history, "engram_forget_tag"));
    if (*tag == '\0') return engram::InvalidArgument("engram_forget_tag: tag is empty");
    engram::ForgetRequest request;
    request.scope = OrDefault(scope, engram::kDefaultScope);
    request.tag = tag;
    request.history = ToHistory(history);
    return Forget(db, std::move(request), forgotten);
  });
}

engram_code engram_forget_scope(engram_t* db, const char* scope, int64_t* forgotten,
                                char** errmsg) {
  return Guarded(errmsg, [&]() -> Status {
    ENGRAM_RETURN_IF_ERROR(Required(db, "engram_forget_scope", "db"));
    ENGRAM_RETURN_IF_ERROR(Required(scope, "engram_forget_scope", "scope"));
    engram::ForgetRequest request;
    request.scope = scope;
    request.whole_scope = true;
    return Forget(db, std::move(request), forgotten);
  });
}

}  // extern "C"
