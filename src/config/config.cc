#include "src/config/config.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include <toml++/toml.h>

#include "src/common/url_for_message.h"
#include "src/config/provider_settings.h"
#include "src/embed/local_embedder.h"
#include "src/http/http_transport.h"

namespace engram {
namespace {

// kSecret is a string never shown: its value reads "(set)". kUrl is a
// string shown without credentials.
enum class KeyType { kDouble, kInt, kString, kSecret, kUrl, kBool, kMode, kHydeEmbed };

std::string ShownUrl(const std::string& url) {
  const std::string shown = UrlForMessage(url);
  return shown == url ? url : shown + " (credentials hidden)";
}

struct KeyDef {
  const char* key;
  KeyType type;
  double min;
  double max;
  const char* help;
  std::function<std::string(const ResolvedConfig&)> get;
  std::function<void(ResolvedConfig*, const std::string&)> set;
};

std::string FormatDouble(double v) {
  std::ostringstream out;
  out << v;
  return out.str();
}

#define ENGRAM_INT_KEY(name, field, lo, hi, text)                        \
  KeyDef {                                                               \
    name, KeyType::kInt, lo, hi, text,                                   \
        [](const ResolvedConfig& c) { return std::to_string(c.field); }, \
        [](ResolvedConfig* c, const std::string& v) {                    \
          c->field = static_cast<decltype(c->field)>(std::stoll(v));     \
        }                                                                \
  }

#define ENGRAM_BOOL_KEY(name, field, text)                                               \
  KeyDef {                                                                               \
    name, KeyType::kBool, 0, 0, text,                                                    \
        [](const ResolvedConfig& c) { return std::string(c.field ? "true" : "false"); }, \
        [](ResolvedConfig* c, const std::string& v) { c->field = v == "true"; }          \
  }

#define ENGRAM_STRING_KEY(name, field, text)                                             \
  KeyDef {                                                                               \
    name, KeyType::kString, 0, 0, text, [](const ResolvedConfig& c) { return c.field; }, \
        [](ResolvedConfig* c, const std::string& v) { c->field = v; }                    \
  }

// A URL: shown without the credentials it may carry (user:password@, a
// query string), as in every message about a request.
#define ENGRAM_URL_KEY(name, field, text)                                                       \
  KeyDef {                                                                                      \
    name, KeyType::kUrl, 0, 0, text, [](const ResolvedConfig& c) { return ShownUrl(c.field); }, \
        [](ResolvedConfig* c, const std::string& v) { c->field = v; }                           \
  }

#define ENGRAM_SECRET_KEY(name, field, text)                                                 \
  KeyDef {                                                                                   \
    name, KeyType::kSecret, 0, 0, text,                                                      \
        [](const ResolvedConfig& c) { return std::string(c.field.empty() ? "" : "(set)"); }, \
        [](ResolvedConfig* c, const std::string& v) { c->field = v; }                        \
  }

#define ENGRAM_DOUBLE_KEY(name, field, lo, hi, text)                             \
  KeyDef {                                                                       \
    name, KeyType::kDouble, lo, hi, text,                                        \
        [](const ResolvedConfig& c) { return FormatDouble(c.field); },           \
        [](ResolvedConfig* c, const std::string& v) { c->field = std::stod(v); } \
  }

const std::vector<KeyDef>& Keys() {
  static const std::vector<KeyDef> keys = {
      {"home", KeyType::kString, 0, 0,
       "data directory; default $XDG_DATA_HOME/engram or ~/.local/share/engram",
       [](const ResolvedConfig& c) { return c.home; },
       [](ResolvedConfig* c, const std::string& v) { c->home = v; }},
      {"db", KeyType::kString, 0, 0, "SQLite database file; default <home>/memory.db",
       [](const ResolvedConfig& c) { return c.engine.db_path; },
       [](ResolvedConfig* c, const std::string& v) { c->engine.db_path = v; }},
      {"embed.provider", KeyType::kString, 0, 0,
       "embedding provider: local[:use-lite-en-windows] | hash[:dim=N] | null (keyword-only)",
       [](const ResolvedConfig& c) { return c.embed_provider; },
       [](ResolvedConfig* c, const std::string& v) { c->embed_provider = v; }},
      ENGRAM_STRING_KEY("embed.model", embedder.model,
                        "model of the embedding provider; default the provider's own "
                        "(openai text-embedding-3-small, voyage voyage-3.5, bedrock "
                        "amazon.titan-embed-text-v2:0, ollama nomic-embed-text)"),
      ENGRAM_INT_KEY("embed.dimensions", embedder.dimensions, 0, 16384,
                     "vector dimension; 0 = the model's native one"),
      ENGRAM_URL_KEY("embed.base_url", embedder.remote.base_url,
                     "endpoint of the embedding provider (OpenAI-compatible servers, "
                     "Ollama, a Bedrock endpoint); default the provider's own"),
      {"embed.models_dir", KeyType::kString, 0, 0,
       "directory of converted local models; default: the first of <home>/models, the user's "
       "data directory's engram/models and the install prefix's share/engram/models that "
       "holds the model",
       [](const ResolvedConfig& c) { return c.models_dir; },
       [](ResolvedConfig* c, const std::string& v) { c->models_dir = v; }},
      ENGRAM_STRING_KEY("llm.provider", llm_provider,
                        "LLM for HyDE: openai | anthropic | bedrock | ollama | scripted:FILE | "
                        "none"),
      ENGRAM_STRING_KEY("llm.model", llm_model, "model of the LLM; default the provider's own"),
      ENGRAM_URL_KEY("llm.base_url", llm.remote.base_url,
                     "endpoint of the LLM (OpenAI-compatible servers, Ollama); default the "
                     "provider's own"),
      ENGRAM_INT_KEY("llm.timeout_ms", llm_timeout_ms, 100, 600000,
                     "time for one attempt of an LLM call, in ms (a search waits for it)"),
      ENGRAM_INT_KEY("llm.max_attempts", llm_max_attempts, 1, 10,
                     "attempts per LLM call (a search waits for them)"),
      ENGRAM_BOOL_KEY("hyde.enabled", engine.hyde.enabled,
                      "ask the LLM for a hypothetical answer on each search"),
      ENGRAM_BOOL_KEY("hyde.use_vectors", engine.hyde.use_vectors,
                      "embed the hypothesis for the vector search"),
      ENGRAM_INT_KEY("hyde.num_keywords", engine.hyde.num_keywords, 0, 20,
                     "hypothesis keywords added to the lexical query"),
      {"hyde.embed", KeyType::kHydeEmbed, 0, 0,
       "vector searched with a hypothesis: query | hypothesis | both",
       [](const ResolvedConfig& c) { return std::string(HydeEmbedName(c.engine.hyde.embed)); },
       [](ResolvedConfig* c, const std::string& v) { c->engine.hyde.embed = *ParseHydeEmbed(v); }},
      ENGRAM_INT_KEY("hyde.max_tokens", engine.hyde.max_tokens, 16, 2048,
                     "most tokens of a hypothesis"),
      ENGRAM_BOOL_KEY("hyde.cache", engine.hyde.cache,
                      "keep hypotheses in the store, keyed by LLM, prompt and query"),
      ENGRAM_BOOL_KEY("query.translate", engine.query.translate,
                      "count the English translations of a Portuguese query's words "
                      "(dict-freedict-por-eng)"),
      ENGRAM_BOOL_KEY("query.translate_vector", engine.query.translate_vector,
                      "embed a Portuguese query's English gloss beside it for the local "
                      "(English-only) model"),
      ENGRAM_BOOL_KEY("feedback.enabled", engine.feedback.enabled,
                      "expand each search with the top facts of a first pass, when no LLM "
                      "gives a hypothesis (pseudo-relevance feedback)"),
      ENGRAM_INT_KEY("feedback.docs", engine.feedback.docs, 1, 100,
                     "top facts of the first pass read as feedback"),
      ENGRAM_INT_KEY("feedback.terms", engine.feedback.terms, 0, 100,
                     "feedback terms added to the lexical query"),
      ENGRAM_DOUBLE_KEY("feedback.term_weight", engine.feedback.term_weight, 0, 1,
                        "share of the lexical query's weight the feedback terms carry"),
      ENGRAM_DOUBLE_KEY("feedback.vector_weight", engine.feedback.vector_weight, 0, 10,
                        "weight of the feedback facts' mean vector added to the query vector"),
      ENGRAM_BOOL_KEY("versions.link_on_write", engine.versions.link_on_write,
                      "link a new fact to the facts it is likely a later version of"),
      ENGRAM_DOUBLE_KEY("versions.link_min_cosine", engine.versions.link_min_cosine, -1, 1,
                        "least cosine between a fact and an older version of it"),
      ENGRAM_INT_KEY("versions.link_max", engine.versions.link_max, 0, 16,
                     "most facts one new fact is linked to"),
      ENGRAM_DOUBLE_KEY("versions.link_min_overlap", engine.versions.link_min_overlap, 0, 1,
                        "least weighted term overlap between a fact and an older version of "
                        "it"),
      ENGRAM_BOOL_KEY("versions.newer_first", engine.versions.newer_first,
                      "rank a newer version above the older ones a search finds"),
      ENGRAM_DOUBLE_KEY("versions.lift_min_share", engine.versions.lift_min_share, 0, 1,
                        "least share of an older version's score a newer one needs to be "
                        "ranked above it"),
      ENGRAM_INT_KEY("versions.max_successors", engine.versions.max_successors, 1, 16,
                     "most newer versions one fact lifts above itself"),
      ENGRAM_BOOL_KEY("versions.merge_near_duplicates", engine.versions.merge_near_duplicates,
                      "merge a new fact into a current fact it nearly repeats"),
      ENGRAM_DOUBLE_KEY("versions.merge_min_cosine", engine.versions.merge_min_cosine, 0, 1,
                        "least cosine of a near-duplicate"),
      ENGRAM_DOUBLE_KEY("versions.merge_min_overlap", engine.versions.merge_min_overlap, 0, 1,
                        "least weighted term overlap of a near-duplicate"),
      ENGRAM_INT_KEY("http.connect_timeout_ms", http.connect_timeout_ms, 100, 600000,
                     "time to connect to a provider, in ms"),
      ENGRAM_INT_KEY("http.timeout_ms", http.timeout_ms, 100, 600000,
                     "time for one whole attempt of a provider call, in ms"),
      ENGRAM_INT_KEY("http.max_attempts", http.max_attempts, 1, 10,
                     "attempts per provider call (retries on 429, 5xx, connection errors)"),
      ENGRAM_INT_KEY("http.backoff_initial_ms", http.backoff_initial_ms, 1, 60000,
                     "first wait before a retry, doubled each time, in ms"),
      ENGRAM_INT_KEY("http.backoff_max_ms", http.backoff_max_ms, 1, 600000,
                     "longest wait between retries, in ms"),
      ENGRAM_INT_KEY("http.retry_after_max_ms", http.retry_after_max_ms, 0, 600000,
                     "longest Retry-After honoured, in ms; a longer one ends the retries"),
      ENGRAM_STRING_KEY("aws.region", http.aws_region,
                        "Bedrock region; default the profile's region, else us-east-1"),
      ENGRAM_STRING_KEY("aws.profile", aws_profile,
                        "profile of the AWS shared credentials and config files; default "
                        "default"),
      ENGRAM_STRING_KEY("server.host", server.host,
                        "address `engram serve` listens on; any but 127.0.0.1, ::1 or "
                        "localhost needs server.token"),
      ENGRAM_INT_KEY("server.port", server.port, 0, 65535,
                     "TCP port of `engram serve`; 0 picks a free one"),
      ENGRAM_SECRET_KEY("server.token", server.token,
                        "bearer token every request to `engram serve` must carry; set it in the "
                        "file or ENGRAM_SERVER_TOKEN, never shown"),
      ENGRAM_STRING_KEY("server.allowed_origins", server.allowed_origins,
                        "browser origins allowed besides loopback pages, comma-separated"),
      ENGRAM_INT_KEY("server.threads", server.threads, 1, 1024,
                     "threads serving connections; each open keep-alive connection holds one"),
      ENGRAM_INT_KEY("server.read_timeout_ms", server.read_timeout_ms, 100, 600000,
                     "time to read one request, in ms"),
      ENGRAM_INT_KEY("server.keep_alive_timeout_ms", server.keep_alive_timeout_ms, 1000, 600000,
                     "time an idle connection stays open, in ms (whole seconds)"),
      ENGRAM_INT_KEY("server.header_timeout_ms", server.header_timeout_ms, 100, 600000,
                     "time a connection has to send a request's headers, from when it opens "
                     "or its last answer, in ms; slower ones are closed"),
      ENGRAM_INT_KEY("server.max_body_bytes", server.limits.max_body_bytes, 1024, 1 << 30,
                     "largest request body, in bytes; larger ones get 413"),
      ENGRAM_INT_KEY("server.max_batch", server.limits.max_batch, 1, 100000,
                     "most facts in one add request"),
      ENGRAM_INT_KEY("server.max_query_bytes", server.limits.max_query_bytes, 16, 1 << 20,
                     "largest search query, in bytes"),
      ENGRAM_INT_KEY("server.max_results", server.limits.max_results, 1, 100000,
                     "most results of one search or list request"),
      {"search.k", KeyType::kInt, 1, 10000, "results per search",
       [](const ResolvedConfig& c) { return std::to_string(c.search_k); },
       [](ResolvedConfig* c, const std::string& v) { c->search_k = std::stoul(v); }},
      {"search.mode", KeyType::kMode, 0, 0, "fusion: blended | lexical | semantic | rrf | temporal",
       [](const ResolvedConfig& c) { return std::string(FusionModeName(c.search_mode)); },
       [](ResolvedConfig* c, const std::string& v) { c->search_mode = *ParseFusionMode(v); }},
      ENGRAM_DOUBLE_KEY("bm25.k1", engine.bm25.k1, 0, 10, "BM25 term-frequency saturation"),
      ENGRAM_DOUBLE_KEY("bm25.b", engine.bm25.b, 0, 1,
                        "BM25 length normalisation, 0 none .. 1 full"),
      ENGRAM_DOUBLE_KEY("bm25.tag_boost", engine.bm25.tag_boost, 0, 10,
                        "weight of a tag match relative to content"),
      ENGRAM_DOUBLE_KEY("temporal.half_life_days", engine.temporal.half_life_days, 0.001, 36500,
                        "days for recency to halve"),
      ENGRAM_DOUBLE_KEY("fusion.w_semantic", engine.fusion.weights.semantic, 0, 1,
                        "blend weight of the semantic signal"),
      ENGRAM_DOUBLE_KEY("fusion.w_lexical", engine.fusion.weights.lexical, 0, 1,
                        "blend weight of the lexical signal"),
      ENGRAM_DOUBLE_KEY("fusion.w_temporal", engine.fusion.weights.temporal, 0, 1,
                        "blend weight of the temporal signal"),
      ENGRAM_DOUBLE_KEY("fusion.rrf_k", engine.fusion.rrf_k, 1, 1000,
                        "k of reciprocal rank fusion (mode rrf)"),
      {"fusion.temporal_fallback", KeyType::kBool, 0, 0,
       "answer with the most recent facts, labelled as not matches, when nothing matches",
       [](const ResolvedConfig& c) {
         return std::string(c.engine.fusion.temporal_fallback ? "true" : "false");
       },
       [](ResolvedConfig* c, const std::string& v) {
         c->engine.fusion.temporal_fallback = v == "true";
       }},
      ENGRAM_DOUBLE_KEY("fusion.min_lexical_coverage", engine.fusion.min_lexical_coverage, 0, 1,
                        "share of the query's idf weight whose match shows a candidate is about "
                        "the query (without one such, a search answers nothing)"),
      ENGRAM_DOUBLE_KEY("fusion.min_score", engine.fusion.min_score, 0, 1,
                        "blended results scoring below this are dropped (0: none)"),
      ENGRAM_DOUBLE_KEY("vector.min_cosine", engine.vector.min_cosine, -1, 1,
                        "cosine floor of vector candidates"),
      ENGRAM_DOUBLE_KEY("vector.match_cosine", engine.vector.match_cosine, -1, 1,
                        "cosine that alone shows a candidate is about the query"),
      {"vector.top_k", KeyType::kInt, 0, 10000, "vector hits added to the candidates",
       [](const ResolvedConfig& c) { return std::to_string(c.engine.vector.top_k); },
       [](ResolvedConfig* c, const std::string& v) { c->engine.vector.top_k = std::stoul(v); }},
      {"vector.hnsw_threshold", KeyType::kInt, 0, 1e9,
       "vectors in a scope from which HNSW replaces exact search",
       [](const ResolvedConfig& c) { return std::to_string(c.engine.vector.hnsw_threshold); },
       [](ResolvedConfig* c, const std::string& v) {
         c->engine.vector.hnsw_threshold = std::stoul(v);
       }},
      ENGRAM_INT_KEY("vector.hnsw_save_delay_ms", engine.vector.hnsw_save_delay_ms, 0, 3600000,
                     "most time a changed HNSW index waits to be written, in the background"),
      ENGRAM_BOOL_KEY("vector.int8_scan", engine.vector.int8_scan,
                      "scan exact scopes by int8 codes, scoring in float only rows a bound keeps"),
      {"vector.backfill_batch_max", KeyType::kInt, 1, 100000,
       "most facts embedded in the background after one search",
       [](const ResolvedConfig& c) { return std::to_string(c.engine.vector.backfill_batch_max); },
       [](ResolvedConfig* c, const std::string& v) {
         c->engine.vector.backfill_batch_max = std::stoul(v);
       }},
      {"vector.background_backfill", KeyType::kBool, 0, 0,
       "embed facts that lack a vector in the background",
       [](const ResolvedConfig& c) {
         return std::string(c.engine.vector.background_backfill ? "true" : "false");
       },
       [](ResolvedConfig* c, const std::string& v) {
         c->engine.vector.background_backfill = v == "true";
       }},
      {"limits.max_content_bytes", KeyType::kInt, 16, 64 << 20, "largest fact content in bytes",
       [](const ResolvedConfig& c) { return std::to_string(c.engine.limits.max_content_bytes); },
       [](ResolvedConfig* c, const std::string& v) {
         c->engine.limits.max_content_bytes = std::stoul(v);
       }},
      {"limits.max_tags", KeyType::kInt, 0, 4096, "most tags on one fact",
       [](const ResolvedConfig& c) { return std::to_string(c.engine.limits.max_tags); },
       [](ResolvedConfig* c, const std::string& v) { c->engine.limits.max_tags = std::stoul(v); }},
      {"limits.max_metadata_bytes", KeyType::kInt, 2, 16 << 20, "largest metadata object in bytes",
       [](const ResolvedConfig& c) { return std::to_string(c.engine.limits.max_metadata_bytes); },
       [](ResolvedConfig* c, const std::string& v) {
         c->engine.limits.max_metadata_bytes = std::stoul(v);
       }},
      ENGRAM_INT_KEY("context.max_file_bytes", engine.context.max_file_bytes, 1024, 64 << 20,
                     "attached files larger than this are skipped, in bytes"),
      ENGRAM_INT_KEY("context.chunk_bytes", engine.context.chunk_bytes, 64, 65536,
                     "most bytes of one chunk of an attached file"),
      ENGRAM_INT_KEY("context.overlap_lines", engine.context.overlap_lines, 0, 100,
                     "lines a chunk repeats from the one before"),
      ENGRAM_BOOL_KEY("context.follow_links_out", engine.context.follow_links_out,
                      "read symlinks whose target is outside the attached roots"),
      ENGRAM_URL_KEY("store.url", engine.store_url,
                     "a postgresql:// URL: keep the memory in that PostgreSQL database, shared "
                     "by every process naming it, instead of the SQLite file `db`"),
      {"store.busy_timeout_ms", KeyType::kInt, 0, 600000, "wait for another process's lock, in ms",
       [](const ResolvedConfig& c) { return std::to_string(c.engine.busy_timeout_ms); },
       [](ResolvedConfig* c, const std::string& v) { c->engine.busy_timeout_ms = std::stoi(v); }},
      ENGRAM_INT_KEY("store.readers", engine.readers, 0, 64,
                     "read-only connections searches run on side by side; 0 = one search at a "
                     "time"),
      ENGRAM_BOOL_KEY("store.lexical_cache", engine.lexical_cache,
                      "keep each searched scope's full-text index in memory, in step with the "
                      "store; one-shot commands never do"),
      ENGRAM_INT_KEY("store.access_delay_ms", engine.access_delay_ms, 0, 60000,
                     "most time a search's access counts wait to be written in a batch; 0 = "
                     "before it returns"),
  };
  return keys;
}

// The seed's names and the AWS variables that also set a key, lowest
// precedence first.
std::vector<const char*> AliasesOf(std::string_view key) {
  static const std::map<std::string_view, std::vector<const char*>> aliases = {
      {"hyde.enabled", {"CHATCLI_QUALITY_HYDE_ENABLED"}},
      {"hyde.use_vectors", {"CHATCLI_QUALITY_HYDE_USE_VECTORS"}},
      {"hyde.num_keywords", {"CHATCLI_QUALITY_HYDE_NUM_KEYWORDS"}},
      {"embed.provider", {"CHATCLI_EMBED_PROVIDER"}},
      {"embed.model", {"CHATCLI_EMBED_MODEL"}},
      {"embed.dimensions", {"CHATCLI_EMBED_DIMENSIONS"}},
      {"aws.region", {"AWS_REGION", "BEDROCK_REGION"}},
      {"aws.profile", {"AWS_PROFILE"}},
  };
  const auto it = aliases.find(key);
  return it == aliases.end() ? std::vector<const char*>{} : it->second;
}

std::string EnvName(const std::string& key) {
  std::string out = "ENGRAM_";
  for (char c : key) out += c == '.' ? '_' : static_cast<char>(std::toupper(c));
  return out;
}

// Checks `raw` for `def`; returns the canonical text to apply, clamping
// numbers into range (with a warning) or an error for unparsable text.
Result<std::string> Check(const KeyDef& def, const std::string& raw, std::string* warning) {
  switch (def.type) {
    case KeyType::kString:
    case KeyType::kSecret:
    case KeyType::kUrl:
      if (raw.empty()) return InvalidArgument("empty value");
      return raw;
    case KeyType::kMode: {
      auto m = ParseFusionMode(raw);
      if (!m.ok()) return m.status();
      return std::string(FusionModeName(*m));
    }
    case KeyType::kHydeEmbed: {
      auto e = ParseHydeEmbed(raw);
      if (!e.ok()) return e.status();
      return std::string(HydeEmbedName(*e));
    }
    case KeyType::kBool: {
      std::string v = raw;
      std::transform(v.begin(), v.end(), v.begin(),
                     [](unsigned char c) { return std::tolower(c); });
      if (v == "true" || v == "1" || v == "yes" || v == "on") return std::string("true");
      if (v == "false" || v == "0" || v == "no" || v == "off") return std::string("false");
      return InvalidArgument("'" + raw + "' is not a boolean");
    }
    case KeyType::kDouble:
    case KeyType::kInt: {
      char* end = nullptr;
      const double v = std::strtod(raw.c_str(), &end);
      if (raw.empty() || end != raw.c_str() + raw.size() || !std::isfinite(v)) {
        return InvalidArgument("'" + raw + "' is not a number");
      }
      if (def.type == KeyType::kInt && v != std::floor(v)) {
        return InvalidArgument("'" + raw + "' is not a whole number");
      }
      const double clamped = std::clamp(v, def.min, def.max);
      if (clamped != v) {
        *warning = "clamped " + raw + " to " + FormatDouble(clamped) + " (range " +
                   FormatDouble(def.min) + ".." + FormatDouble(def.max) + ")";
      }
      if (def.type == KeyType::kInt) return std::to_string(static_cast<long long>(clamped));
      return FormatDouble(clamped);
    }
  }
  return Internal("config: unknown key type");
}

// The value of `key` in the TOML table as text; nullopt when absent; an
// error for a type no key takes (arrays, tables, dates).
std::optional<Result<std::string>> TomlValue(const toml::table& table, const std::string& key) {
  const toml::node_view<const toml::node> node = table.at_path(key);
  if (!node) return std::nullopt;
  if (auto s = node.value_exact<std::string>()) return Result<std::string>(*s);
  if (auto b = node.value_exact<bool>()) return Result<std::string>(*b ? "true" : "false");
  if (auto i = node.value_exact<int64_t>()) return Result<std::string>(std::to_string(*i));
  if (auto d = node.value_exact<double>()) return Result<std::string>(FormatDouble(*d));
  const char* what = node.is_array() ? "an array" : node.is_table() ? "a table" : "a date or time";
  return Result<std::string>(InvalidArgument(std::string(what) + " is not a value this key takes"));
}

void CollectTomlKeys(const toml::table& table, const std::string& prefix,
                     std::vector<std::string>* out) {
  for (const auto& [k, v] : table) {
    const std::string name =
        prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (const toml::table* sub = v.as_table()) {
      CollectTomlKeys(*sub, name, out);
    } else {
      out->push_back(name);
    }
  }
}

}  // namespace

Environment ProcessEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());  // NOLINT(concurrency-mt-unsafe)
    if (v == nullptr) return std::nullopt;
    return std::string(v);
  };
}

std::string_view ConfigSourceName(ConfigSource source) {
  switch (source) {
    case ConfigSource::kDefault:
      return "default";
    case ConfigSource::kFile:
      return "file";
    case ConfigSource::kEnvironment:
      return "env";
    case ConfigSource::kFlag:
      return "flag";
  }
  return "?";
}

Result<std::string> CheckSetting(const std::string& key, const std::string& value) {
  const auto def =
      std::find_if(Keys().begin(), Keys().end(), [&](const KeyDef& d) { return key == d.key; });
  if (def == Keys().end()) return InvalidArgument("config: unknown key '" + key + "'");
  std::string clamped;
  auto checked = Check(*def, value, &clamped);
  if (!checked.ok()) return InvalidArgument("config: " + key + ": " + checked.status().message());
  if (!clamped.empty()) {
    return InvalidArgument("config: " + key + ": '" + value + "' is out of range (" +
                           FormatDouble(def->min) + ".." + FormatDouble(def->max) + ")");
  }
  return checked;
}

nlohmann::json ConfigEntriesJson(const ResolvedConfig& config) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& e : config.entries) {
    out[e.key] = {{"value", e.value}, {"source", ConfigSourceName(e.source)}, {"origin", e.origin}};
  }
  return out;
}

namespace {

// The help line of a key: its text, then its default as the structs of
// engram/options.h give it (the configured provider's, for the keys that
// depend on it), so no default is written twice.
std::string HelpLine(const KeyDef& def, const std::string& default_value,
                     const std::string& provider) {
  std::string help = def.help;
  if (help.find("default") != std::string::npos) return help;
  help += "; default " + (default_value.empty() ? std::string("none") : default_value);
  const std::string key = def.key;
  if (key == "fusion.w_semantic" || key == "fusion.w_lexical" || key == "vector.min_cosine") {
    help += " (the embedding provider's, " + provider + ")";
  }
  return help;
}

// Finds the embedded model's file for `config` (see ResolvedConfig::model)
// and points the embedder at its directory.
void LocateEmbeddedModel(const std::string& user_data_dir, ResolvedConfig* config) {
  const ConfigEntry* models_dir = nullptr;
  const ConfigEntry* home = nullptr;
  for (const ConfigEntry& e : config->entries) {
    if (e.key == "embed.models_dir") models_dir = &e;
    if (e.key == "home") home = &e;
  }
  std::vector<ModelPlace> places;
  if (models_dir != nullptr && models_dir->source != ConfigSource::kDefault &&
      !config->models_dir.empty()) {
    places.push_back({config->models_dir, "embed.models_dir from " + models_dir->origin});
  } else {
    const bool home_set = home != nullptr && home->source != ConfigSource::kDefault;
    places = DefaultModelPlaces(home_set ? std::optional<std::string>(config->home) : std::nullopt,
                                user_data_dir, InstalledModelsDir());
  }
  config->model = LocateModel(places, kUseLiteModelFileName);
  config->embedder.models_dir =
      config->model.Found() ? std::filesystem::path(config->model.path).parent_path().string()
                            : places.front().dir;
}

}  // namespace

Result<ResolvedConfig> ResolveConfig(const Environment& env, const ConfigFlags& flags,
                                     bool read_file) {
  ResolvedConfig config;
  const std::string user_home = env("HOME").value_or(".");
  if (auto xdg = env("XDG_DATA_HOME"); xdg && !xdg->empty()) {
    config.home = *xdg + "/engram";
  } else {
    config.home = user_home + "/.local/share/engram";
  }
  const std::string default_home = config.home;  // the user's data directory
  if (auto path = env("ENGRAM_CONFIG"); path && !path->empty()) {
    config.config_path = *path;
  } else if (auto xdg = env("XDG_CONFIG_HOME"); xdg && !xdg->empty()) {
    config.config_path = *xdg + "/engram/config.toml";
  } else {
    config.config_path = user_home + "/.config/engram/config.toml";
  }

  toml::table file;
  std::error_code ec;
  if (read_file && std::filesystem::exists(config.config_path, ec)) {
    try {
      file = toml::parse_file(config.config_path);
    } catch (const toml::parse_error& e) {
      std::ostringstream where;
      where << e.source().begin;
      return InvalidArgument("config: read '" + config.config_path +
                             "': " + std::string(e.description()) + " at " + where.str());
    }
    std::vector<std::string> present;
    CollectTomlKeys(file, "", &present);
    for (const auto& k : present) {
      const bool known =
          std::any_of(Keys().begin(), Keys().end(), [&](const KeyDef& d) { return k == d.key; });
      if (!known) {
        config.warnings.push_back("config: unknown key '" + k + "' in " + config.config_path +
                                  " (ignored)");
      }
    }
  }

  for (const KeyDef& def : Keys()) {
    if (std::string(def.key) == "db") config.engine.db_path = config.home + "/memory.db";
    if (std::string(def.key) == "fusion.w_semantic") {
      // Keys below default to the provider's own values (settled by now).
      ApplyProviderDefaults(config.embed_provider, &config.engine);
    }
    ConfigEntry entry{def.key, def.get(config), ConfigSource::kDefault, "", ""};
    entry.help = HelpLine(def, entry.value, config.embed_provider);
    struct Layer {
      ConfigSource source;
      std::string origin;
      std::optional<Result<std::string>> value;
    };
    const std::string env_name = EnvName(def.key);
    const auto flag = flags.find(def.key);
    const auto text = [](std::optional<std::string> v) -> std::optional<Result<std::string>> {
      if (!v) return std::nullopt;
      return Result<std::string>(std::move(*v));
    };
    std::vector<Layer> layers = {
        {ConfigSource::kFile, config.config_path, TomlValue(file, def.key)},
        {ConfigSource::kEnvironment, env_name, text(env(env_name))},
    };
    // Aliases rank above the canonical name, the later above the earlier;
    // when two set different values, the one that loses is named.
    for (const char* alias : AliasesOf(def.key)) {
      std::optional<std::string> value = env(alias);
      if (!value) continue;
      for (const Layer& earlier : layers) {
        if (earlier.source == ConfigSource::kEnvironment && earlier.value && earlier.value->ok() &&
            **earlier.value != *value) {
          config.warnings.push_back("config: " + std::string(def.key) + ": " + alias +
                                    " overrides " + earlier.origin);
        }
      }
      layers.push_back({ConfigSource::kEnvironment, alias, text(std::move(value))});
    }
    layers.push_back(
        {ConfigSource::kFlag, "--" + std::string(def.key),
         text(flag == flags.end() ? std::nullopt : std::optional<std::string>(flag->second))});
    for (const Layer& layer : layers) {
      if (!layer.value) continue;
      std::string warning;
      auto checked = layer.value->ok() ? Check(def, **layer.value, &warning)
                                       : Result<std::string>(layer.value->status());
      if (!checked.ok()) {
        config.warnings.push_back("config: " + std::string(def.key) + " from " + layer.origin +
                                  ": " + checked.status().message() + "; keeping " + entry.value);
        continue;
      }
      if (!warning.empty()) {
        config.warnings.push_back("config: " + std::string(def.key) + " from " + layer.origin +
                                  ": " + warning);
      }
      def.set(&config, *checked);
      const bool shown_as_is = def.type != KeyType::kSecret && def.type != KeyType::kUrl;
      entry.value = shown_as_is ? *checked : def.get(config);
      entry.source = layer.source;
      entry.origin = layer.origin;
    }
    config.entries.push_back(std::move(entry));
  }
  if (config.llm_provider == "none") config.llm_provider.clear();
  config.llm_spec = config.llm_provider;
  if (!config.llm_model.empty() && !config.llm_spec.empty() &&
      config.llm_spec.find(':') == std::string::npos) {
    config.llm_spec += ":" + config.llm_model;
  }
  const bool region_set = std::any_of(
      config.entries.begin(), config.entries.end(),
      [](const auto& e) { return e.key == "aws.region" && e.source != ConfigSource::kDefault; });
  ApplyProviderSettings(env, region_set, &config);
  // Only the embedded model has a file to find.
  if (UsesEmbeddedModel(config)) LocateEmbeddedModel(default_home, &config);
  return config;
}

}  // namespace engram
