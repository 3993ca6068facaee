#include "src/server/memory_api.h"

#include <climits>
#include <sstream>
#include <utility>

#include "engram/llm.h"
#include "src/common/time_format.h"
#include "src/engine/fact_files.h"
#include "src/server/api_json.h"
#include "src/server/request_args.h"
#include "src/store/fact_codec.h"

namespace engram {
namespace {

using nlohmann::json;

constexpr size_t kMaxIdBytes = 64;
constexpr size_t kMaxTagBytes = 256;
constexpr size_t kMaxKindBytes = 256;
constexpr size_t kMaxScopes = 64;

// The scope(s) a request names in `scope`, each non-empty and within the
// limit; {"default"} when absent.
Result<std::vector<std::string>> ScopesOf(const RequestArgs& args, const RequestLimits& limits) {
  ENGRAM_ASSIGN_OR_RETURN(std::vector<std::string> scopes,
                          args.Strings("scope", limits.max_scope_bytes, kMaxScopes));
  for (const std::string& s : scopes) {
    if (s.empty()) return args.FieldError("scope", "must not be empty");
  }
  if (scopes.empty()) scopes.emplace_back(kDefaultScope);
  return scopes;
}

// Exactly one scope.
Result<std::string> ScopeOf(const RequestArgs& args, const RequestLimits& limits) {
  if (args.Has("scope") && args.value()["scope"].is_array()) {
    return args.FieldError("scope", "must be one scope name here, not a list");
  }
  ENGRAM_ASSIGN_OR_RETURN(std::vector<std::string> scopes, ScopesOf(args, limits));
  return scopes.front();
}

// The filter fields a search or list may carry (FactFilter): tags_any,
// tags_all, kind, metadata ({key: value}, or "key=value" strings from a
// query string), since, until and as_of (ISO-8601, or a duration ago: 7d).
Result<FactFilter> FilterOf(const RequestArgs& args, Timestamp now) {
  FactFilter f;
  ENGRAM_ASSIGN_OR_RETURN(f.tags_any, args.Strings("tags_any", kMaxTagBytes, 64));
  ENGRAM_ASSIGN_OR_RETURN(f.tags_all, args.Strings("tags_all", kMaxTagBytes, 64));
  ENGRAM_ASSIGN_OR_RETURN(std::optional<std::string> kind,
                          args.OptionalString("kind", kMaxKindBytes));
  f.kind = kind.value_or("");
  if (args.Has("metadata") && !args.value()["metadata"].is_null()) {
    const json& meta = args.value()["metadata"];
    if (meta.is_object()) {
      for (const auto& [key, value] : meta.items()) {
        if (!value.is_string() && !value.is_number() && !value.is_boolean()) {
          return args.FieldError("metadata", "values must be strings, numbers or booleans");
        }
        f.metadata.emplace_back(key, value.is_string()    ? value.get<std::string>()
                                     : value.is_boolean() ? (value.get<bool>() ? "1" : "0")
                                                          : value.dump());
      }
    } else {
      ENGRAM_ASSIGN_OR_RETURN(std::vector<std::string> pairs,
                              args.Strings("metadata", kMaxTagBytes * 4, 64));
      for (const std::string& p : pairs) {
        const size_t eq = p.find('=');
        if (eq == std::string::npos || eq == 0) {
          return args.FieldError("metadata", "'" + p + "' is not key=value");
        }
        f.metadata.emplace_back(p.substr(0, eq), p.substr(eq + 1));
      }
    }
  }
  for (const auto& [name, out] :
       {std::pair{"since", &f.since}, std::pair{"until", &f.until}, std::pair{"as_of", &f.as_of}}) {
    ENGRAM_ASSIGN_OR_RETURN(std::optional<std::string> text, args.OptionalString(name, 64));
    if (!text) continue;
    auto t = ParseInstant(*text, now);
    if (!t.ok()) return args.FieldError(name, t.status().message());
    *out = *t;
  }
  return f;
}

}  // namespace

MemoryApi::MemoryApi(Engine* engine, RequestLimits limits, ServingConfig initial,
                     ConfigLoader loader)
    : engine_(engine),
      limits_(limits),
      loader_(std::move(loader)),
      current_(std::make_shared<const ServingConfig>(std::move(initial))) {}

std::shared_ptr<const ServingConfig> MemoryApi::Current() const {
  std::lock_guard lock(mutex_);
  return current_;
}

namespace {

json NearDuplicateJson(const NearDuplicate& d) {
  return {{"id", d.id}, {"content", d.content}, {"cosine", d.cosine}, {"overlap", d.overlap}};
}

}  // namespace

Result<json> MemoryApi::Add(const json& body) {
  ENGRAM_ASSIGN_OR_RETURN(RequestArgs args, RequestArgs::Of(body, "add"));
  if (!args.Has("facts")) {
    auto fact = ParseFactObject(body);
    if (!fact.ok()) return fact.status().WithContext("add");
    if (fact->scope.size() > limits_.max_scope_bytes) {
      return args.FieldError("scope", "is " + std::to_string(fact->scope.size()) +
                                          " bytes; the limit is " +
                                          std::to_string(limits_.max_scope_bytes));
    }
    auto outcome = engine_->Add(*fact);
    if (!outcome.ok()) return outcome.status().WithContext("add");
    json entry = {
        {"id", outcome->fact.id}, {"scope", outcome->fact.scope}, {"created", outcome->created}};
    if (outcome->near_duplicate)
      entry["near_duplicate"] = NearDuplicateJson(*outcome->near_duplicate);
    return json{{"added", outcome->created ? 1 : 0},
                {"merged", outcome->created ? 0 : 1},
                {"facts", json::array({std::move(entry)})},
                {"warnings", outcome->warnings}};
  }
  ENGRAM_RETURN_IF_ERROR(args.OnlyFields({"scope", "facts"}));
  ENGRAM_ASSIGN_OR_RETURN(std::string scope, ScopeOf(args, limits_));
  const json& items = body["facts"];
  if (!items.is_array()) {
    return args.FieldError("facts",
                           std::string("must be an array of facts, not ") + items.type_name());
  }
  if (items.empty()) return args.FieldError("facts", "is empty");
  if (items.size() > limits_.max_batch) {
    return args.FieldError("facts", "has " + std::to_string(items.size()) +
                                        " facts; the limit is " +
                                        std::to_string(limits_.max_batch));
  }
  std::vector<NewFact> facts;
  facts.reserve(items.size());
  json ids = json::array();
  for (size_t i = 0; i < items.size(); ++i) {
    const std::string where = "add: facts[" + std::to_string(i) + "]";
    auto fact = ParseFactObject(items[i]);
    if (!fact.ok()) return fact.status().WithContext(where);
    if (items[i].contains("scope") && fact->scope != scope) {
      std::string message = where + ": field 'scope': '";
      message += fact->scope;
      message += "' differs from the request's scope '" + scope + "'";
      return InvalidArgument(message);
    }
    fact->scope = scope;
    if (Status s = engine_->Validate(*fact); !s.ok()) return s.WithContext(where);
    ids.push_back({{"id", ComputeFactId(fact->content)}, {"scope", scope}});
    facts.push_back(std::move(*fact));
  }
  auto report = engine_->Import(facts, ImportOptions{});
  if (!report.ok()) return report.status().WithContext("add");
  for (json& entry : ids) {
    const auto it = report->merged_into.find(entry["id"].get<std::string>());
    if (it != report->merged_into.end()) entry["merged_into"] = it->second;
  }
  return json{{"added", report->added},
              {"merged", report->merged},
              {"near_duplicates", report->near_duplicates},
              {"facts", std::move(ids)},
              {"warnings", report->warnings}};
}

Result<json> MemoryApi::Search(const json& body) {
  ENGRAM_ASSIGN_OR_RETURN(RequestArgs args, RequestArgs::Of(body, "search"));
  ENGRAM_RETURN_IF_ERROR(args.OnlyFields({"query", "k", "scope", "mode", "explain", "record",
                                          "hyde", "include_superseded", "tags_any", "tags_all",
                                          "kind", "metadata", "since", "until", "as_of"}));
  const std::shared_ptr<const ServingConfig> config = Current();
  ENGRAM_ASSIGN_OR_RETURN(std::string query, args.RequiredString("query", limits_.max_query_bytes));
  SearchOptions options;
  const auto max_k = static_cast<int64_t>(limits_.max_results);
  ENGRAM_ASSIGN_OR_RETURN(
      int64_t k, args.Int("k", 1, max_k, std::min(static_cast<int64_t>(config->search_k), max_k)));
  options.k = static_cast<size_t>(k);
  ENGRAM_ASSIGN_OR_RETURN(options.scopes, ScopesOf(args, limits_));
  ENGRAM_ASSIGN_OR_RETURN(std::optional<std::string> mode, args.OptionalString("mode", 32));
  options.mode = config->search_mode;
  if (mode) {
    auto parsed = ParseFusionMode(*mode);
    if (!parsed.ok()) return args.FieldError("mode", parsed.status().message());
    options.mode = *parsed;
  }
  ENGRAM_ASSIGN_OR_RETURN(options.explain, args.Bool("explain", false));
  ENGRAM_ASSIGN_OR_RETURN(options.record_access, args.Bool("record", true));
  ENGRAM_ASSIGN_OR_RETURN(options.hyde, args.Bool("hyde", true));
  ENGRAM_ASSIGN_OR_RETURN(options.include_superseded, args.Bool("include_superseded", false));
  ENGRAM_ASSIGN_OR_RETURN(options.filter, FilterOf(args, SystemClock()->NowMillis()));
  auto response = engine_->Search(query, options);
  if (!response.ok()) return response.status().WithContext("search");
  return SearchResponseToJson(query, options.mode, *response, options.explain);
}

Result<json> MemoryApi::List(const json& body, bool from_query) {
  ENGRAM_ASSIGN_OR_RETURN(RequestArgs args, from_query ? RequestArgs::FromQuery(body, "list")
                                                       : RequestArgs::Of(body, "list"));
  ENGRAM_RETURN_IF_ERROR(
      args.OnlyFields({"scope", "tag", "kind", "limit", "offset", "include_superseded", "tags_any",
                       "tags_all", "metadata", "since", "until", "as_of"}));
  ListOptions options;
  ENGRAM_ASSIGN_OR_RETURN(options.filter, FilterOf(args, SystemClock()->NowMillis()));
  options.filter.kind.clear();  // list's own `kind` below
  ENGRAM_ASSIGN_OR_RETURN(options.include_superseded, args.Bool("include_superseded", false));
  ENGRAM_ASSIGN_OR_RETURN(options.scopes, ScopesOf(args, limits_));
  ENGRAM_ASSIGN_OR_RETURN(std::optional<std::string> tag, args.OptionalString("tag", kMaxTagBytes));
  ENGRAM_ASSIGN_OR_RETURN(std::optional<std::string> kind,
                          args.OptionalString("kind", kMaxKindBytes));
  options.tag = tag.value_or("");
  options.kind = kind.value_or("");
  ENGRAM_ASSIGN_OR_RETURN(int64_t limit,
                          args.Int("limit", 1, static_cast<int64_t>(limits_.max_results), 50));
  ENGRAM_ASSIGN_OR_RETURN(int64_t offset, args.Int("offset", 0, INT32_MAX, 0));
  options.limit = static_cast<size_t>(limit);
  options.offset = static_cast<size_t>(offset);
  auto facts = engine_->List(options);
  if (!facts.ok()) return facts.status().WithContext("list");
  json out = json::array();
  for (const Fact& f : *facts) out.push_back(FactToJson(f));
  const size_t count = out.size();
  return json{{"facts", std::move(out)}, {"count", count}};
}

Result<json> MemoryApi::Get(const json& body, bool from_query) {
  ENGRAM_ASSIGN_OR_RETURN(RequestArgs args, from_query ? RequestArgs::FromQuery(body, "get")
                                                       : RequestArgs::Of(body, "get"));
  ENGRAM_RETURN_IF_ERROR(args.OnlyFields({"scope", "id"}));
  ENGRAM_ASSIGN_OR_RETURN(std::string scope, ScopeOf(args, limits_));
  ENGRAM_ASSIGN_OR_RETURN(std::string id, args.RequiredString("id", kMaxIdBytes));
  auto fact = engine_->Get(scope, id);
  if (!fact.ok()) return fact.status().WithContext("get");
  return FactToJson(*fact);
}

Result<json> MemoryApi::Forget(const json& body, bool from_query) {
  ENGRAM_ASSIGN_OR_RETURN(RequestArgs args, from_query ? RequestArgs::FromQuery(body, "forget")
                                                       : RequestArgs::Of(body, "forget"));
  ENGRAM_RETURN_IF_ERROR(args.OnlyFields({"scope", "id", "ids", "tag", "history"}));
  ForgetRequest request;
  ENGRAM_ASSIGN_OR_RETURN(request.scope, ScopeOf(args, limits_));
  ENGRAM_ASSIGN_OR_RETURN(std::optional<std::string> history, args.OptionalString("history", 16));
  if (history) {
    if (*history == "restore") {
      request.history = ForgetHistory::kRestore;
    } else if (*history == "delete") {
      request.history = ForgetHistory::kDelete;
    } else {
      return args.FieldError("history", "must be 'restore' or 'delete', not '" + *history + "'");
    }
  }
  const int given =
      (args.Has("id") ? 1 : 0) + (args.Has("ids") ? 1 : 0) + (args.Has("tag") ? 1 : 0);
  if (given != 1) {
    return InvalidArgument("forget: give exactly one of the fields 'id', 'ids' or 'tag'");
  }
  if (args.Has("tag")) {
    ENGRAM_ASSIGN_OR_RETURN(std::string tag, args.RequiredString("tag", kMaxTagBytes));
    request.tag = std::move(tag);
  } else {
    const char* field = args.Has("id") ? "id" : "ids";
    ENGRAM_ASSIGN_OR_RETURN(request.ids, args.Strings(field, kMaxIdBytes, limits_.max_batch));
    if (request.ids.empty()) return args.FieldError(field, "is empty");
  }
  auto removed = engine_->Forget(request);
  if (!removed.ok()) return removed.status().WithContext("forget");
  return json{{"forgotten", *removed}};
}

Result<json> MemoryApi::Update(const json& body) {
  ENGRAM_ASSIGN_OR_RETURN(RequestArgs args, RequestArgs::Of(body, "update"));
  ENGRAM_ASSIGN_OR_RETURN(std::string id, args.RequiredString("id", kMaxIdBytes));
  ENGRAM_ASSIGN_OR_RETURN(std::string scope, ScopeOf(args, limits_));
  json fields = body;
  fields.erase("id");
  auto fact = ParseFactObject(fields);
  if (!fact.ok()) return fact.status().WithContext("update");
  auto outcome = engine_->Update(UpdateRequest{scope, id, std::move(*fact)});
  if (!outcome.ok()) return outcome.status().WithContext("update");
  return json{{"fact", FactToJson(outcome->fact)},
              {"created", outcome->created},
              {"superseded", FactToJson(outcome->superseded)},
              {"warnings", outcome->warnings}};
}

Result<json> MemoryApi::History(const json& body, bool from_query) {
  ENGRAM_ASSIGN_OR_RETURN(RequestArgs args, from_query ? RequestArgs::FromQuery(body, "history")
                                                       : RequestArgs::Of(body, "history"));
  ENGRAM_RETURN_IF_ERROR(args.OnlyFields({"scope", "id"}));
  ENGRAM_ASSIGN_OR_RETURN(std::string scope, ScopeOf(args, limits_));
  ENGRAM_ASSIGN_OR_RETURN(std::string id, args.RequiredString("id", kMaxIdBytes));
  auto chain = engine_->History(scope, id);
  if (!chain.ok()) return chain.status().WithContext("history");
  json out = json::array();
  for (const Fact& f : *chain) out.push_back(FactToJson(f));
  const size_t count = out.size();
  return json{{"facts", std::move(out)}, {"count", count}};
}

Result<std::string> MemoryApi::Export(const json& body, bool from_query) {
  ENGRAM_ASSIGN_OR_RETURN(RequestArgs args, from_query ? RequestArgs::FromQuery(body, "export")
                                                       : RequestArgs::Of(body, "export"));
  ENGRAM_RETURN_IF_ERROR(args.OnlyFields({"scope"}));
  ENGRAM_ASSIGN_OR_RETURN(std::vector<std::string> scopes, ScopesOf(args, limits_));
  std::ostringstream out;
  auto count = WriteFactsJsonl(*engine_, scopes, out, "the answer");
  if (!count.ok()) return count.status();
  return std::move(out).str();
}

Result<json> MemoryApi::Config() {
  const std::shared_ptr<const ServingConfig> config = Current();
  auto stats = engine_->Stats();
  if (!stats.ok()) return stats.status().WithContext("config");
  return json{{"settings", config->settings},
              {"search", {{"k", config->search_k}, {"mode", FusionModeName(config->search_mode)}}},
              {"store", StoreStatsToJson(*stats)}};
}

Result<json> MemoryApi::Reload() {
  std::lock_guard reload_lock(reload_mutex_);
  auto next = loader_ ? loader_() : Result<ServingConfig>(FailedPrecondition("no loader"));
  if (!next.ok()) return next.status().WithContext("reload");
  if (Status s = engine_->Reload(next->engine); !s.ok()) return s.WithContext("reload");
  // The server's own settings (address, token, limits) are read at start.
  const std::shared_ptr<const ServingConfig> before = Current();
  for (const auto& [key, entry] : next->settings.items()) {
    if (key.rfind("server.", 0) == 0 && before->settings.value(key, json()) != entry) {
      next->warnings.push_back("reload: " + key + " changed; it takes effect at the next start");
    }
  }
  const EngineOptions& e = next->engine;
  json out = {
      {"reloaded", true},
      {"embedding", e.embedder ? json(e.embedder->Space().Key()) : json(nullptr)},
      {"llm", e.llm ? json(e.llm->Name()) : json(nullptr)},
      {"hyde", e.hyde.enabled && e.llm != nullptr},
      {"warnings", next->warnings},
  };
  std::lock_guard lock(mutex_);
  current_ = std::make_shared<const ServingConfig>(std::move(*next));
  return out;
}

Result<json> MemoryApi::Health() { return json{{"status", "ok"}}; }

}  // namespace engram
