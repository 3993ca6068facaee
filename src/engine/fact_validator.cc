#include "src/engine/fact_validator.h"

#include <cmath>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

#include "src/common/json_text.h"
#include "src/common/unicode.h"
#include "src/common/utf8.h"
#include "src/store/fact_id.h"
#include "src/store/postgres/pg_connection.h"

namespace engram {
namespace {

bool HasControl(std::string_view s) {
  for (unsigned char c : s) {
    if (c < 0x20 || c == 0x7F) return true;
  }
  return false;
}

Status CheckText(const char* field, std::string_view value, size_t max_bytes, bool allow_empty) {
  size_t bad = 0;
  if (!IsValidUtf8(value, &bad)) {
    return InvalidArgument(std::string(field) + ": invalid UTF-8 at byte " +
                           std::to_string(bad + 1));
  }
  if (!allow_empty && IsBlankText(value)) {
    return InvalidArgument(std::string(field) + ": empty text");
  }
  if (value.size() > max_bytes) {
    return InvalidArgument(std::string(field) + ": " + std::to_string(value.size()) +
                           " bytes, over the limit of " + std::to_string(max_bytes) +
                           " (limits.max_" + field + "_bytes)");
  }
  return Status::OK();
}

std::string Trim(std::string_view s) {
  const size_t b = s.find_first_not_of(" \t\r\n");
  if (b == std::string_view::npos) return "";
  const size_t e = s.find_last_not_of(" \t\r\n");
  return std::string(s.substr(b, e - b + 1));
}

}  // namespace

std::string NormalizeTag(std::string_view tag) { return NfkcCaseFold(Trim(tag)); }

Status ValidateNewFact(const NewFact& f, const LimitOptions& limits) {
  ENGRAM_RETURN_IF_ERROR(CheckText("content", f.content, limits.max_content_bytes, false));
  ENGRAM_RETURN_IF_ERROR(CheckText("scope", f.scope, limits.max_scope_bytes, false));
  if (HasControl(f.scope)) return InvalidArgument("scope: contains control characters");
  ENGRAM_RETURN_IF_ERROR(CheckText("kind", f.kind, limits.max_kind_bytes, false));
  ENGRAM_RETURN_IF_ERROR(CheckText("source", f.source, limits.max_source_bytes, true));
  if (f.tags.size() > limits.max_tags) {
    return InvalidArgument("tags: " + std::to_string(f.tags.size()) + " tags, over the limit of " +
                           std::to_string(limits.max_tags) + " (limits.max_tags)");
  }
  for (const auto& tag : f.tags) {
    ENGRAM_RETURN_IF_ERROR(CheckText("tag", tag, limits.max_tag_bytes, false));
    if (HasControl(tag)) return InvalidArgument("tags: '" + tag + "' has control characters");
  }
  if (!std::isfinite(f.confidence) || f.confidence < 0 || f.confidence > 1) {
    return InvalidArgument("confidence: " + std::to_string(f.confidence) + " is outside [0, 1]");
  }
  ENGRAM_RETURN_IF_ERROR(CheckText("metadata", f.metadata, limits.max_metadata_bytes, false));
  ENGRAM_ASSIGN_OR_RETURN(const nlohmann::json meta, ParseJson(f.metadata, "metadata"));
  if (!meta.is_object()) return InvalidArgument("metadata: not a JSON object");
  if (f.access_count && *f.access_count < 0) {
    return InvalidArgument("access_count: negative");
  }
  if (f.superseded_by) {
    if (!LooksLikeIdPrefix(*f.superseded_by) || f.superseded_by->size() != 24) {
      return InvalidArgument("superseded_by: '" + *f.superseded_by +
                             "' is not a fact id (24 lower-case hex characters)");
    }
    if (*f.superseded_by == FactId(f.content)) {
      return InvalidArgument("superseded_by: a fact cannot supersede itself");
    }
  }
  for (const auto& [name, time] :
       {std::pair{"valid_until", f.valid_until}, std::pair{"expires_at", f.expires_at}}) {
    if (time && *time < 0) return InvalidArgument(std::string(name) + ": before 1970");
  }
  if (f.id) {
    const std::string expected = FactId(f.content);
    if (*f.id != expected) {
      return InvalidArgument("id: '" + *f.id + "' does not match the content (expected '" +
                             expected + "')");
    }
  }
  return Status::OK();
}

Result<FactFilter> NormalizeFilter(const FactFilter& filter) {
  FactFilter out = filter;
  for (auto* tags : {&out.tags_any, &out.tags_all}) {
    for (std::string& t : *tags) t = NormalizeTag(t);
  }
  for (const auto& [key, value] : out.metadata) {
    if (key.empty() || key.find('"') != std::string::npos) {
      return InvalidArgument("filter: metadata key '" + key +
                             "' must be non-empty and must not contain '\"'");
    }
  }
  if (out.since && out.until && *out.since >= *out.until) {
    return InvalidArgument("filter: since must come before until");
  }
  return out;
}

Status ValidateEngineOptions(const EngineOptions& o) {
  const auto in = [](double v, double lo, double hi) {
    return std::isfinite(v) && v >= lo && v <= hi;
  };
  if (!in(o.bm25.k1, 0, 10)) return InvalidArgument("engine: options: bm25.k1 outside [0, 10]");
  if (!in(o.bm25.b, 0, 1)) return InvalidArgument("engine: options: bm25.b outside [0, 1]");
  if (!in(o.bm25.tag_boost, 0, 10)) {
    return InvalidArgument("engine: options: bm25.tag_boost outside [0, 10]");
  }
  if (!in(o.temporal.half_life_days, 1e-6, 1e9)) {
    return InvalidArgument("engine: options: temporal.half_life_days must be positive");
  }
  const FusionWeights& w = o.fusion.weights;
  if (!std::isfinite(w.semantic) || !std::isfinite(w.lexical) || !std::isfinite(w.temporal)) {
    return InvalidArgument("engine: options: fusion weights must be finite");
  }
  const LimitOptions& l = o.limits;
  if (l.max_content_bytes == 0 || l.max_tag_bytes == 0 || l.max_scope_bytes == 0 ||
      l.max_kind_bytes == 0 || l.max_metadata_bytes < 2) {
    return InvalidArgument("engine: options: limits must be positive");
  }
  if (o.hyde.num_keywords > 20) {
    return InvalidArgument("engine: options: hyde.num_keywords outside [0, 20]");
  }
  if (o.hyde.max_tokens < 16 || o.hyde.max_tokens > 2048) {
    return InvalidArgument("engine: options: hyde.max_tokens outside [16, 2048]");
  }
  if (o.readers > 64) return InvalidArgument("engine: options: readers outside [0, 64]");
  if (!o.store_url.empty() && !IsPostgresUrl(o.store_url)) {
    // Not echoed: a mistyped URL may still carry a password.
    return InvalidArgument("engine: options: store.url is not a postgresql:// or postgres:// URL");
  }
  if (o.access_delay_ms < 0 || o.access_delay_ms > 60000) {
    return InvalidArgument("engine: options: access_delay_ms outside [0, 60000]");
  }
  const ContextOptions& c = o.context;
  if (c.chunk_bytes < 64 || c.chunk_bytes > 65536) {
    return InvalidArgument("engine: options: context.chunk_bytes outside [64, 65536]");
  }
  if (c.overlap_lines > 100) {
    return InvalidArgument("engine: options: context.overlap_lines outside [0, 100]");
  }
  if (c.max_file_bytes == 0) {
    return InvalidArgument("engine: options: context.max_file_bytes must be positive");
  }
  return Status::OK();
}

Fact BuildFact(const NewFact& in, Timestamp now) {
  Fact f;
  f.id = FactId(in.content);
  f.scope = in.scope;
  f.content = in.content;
  std::set<std::string> tags;
  for (const auto& t : in.tags) tags.insert(NormalizeTag(t));
  f.tags.assign(tags.begin(), tags.end());
  f.kind = in.kind;
  f.source = in.source;
  f.created_at = in.created_at.value_or(now);
  f.updated_at = in.updated_at.value_or(in.created_at ? f.created_at : now);
  f.last_accessed = in.last_accessed.value_or(f.created_at);
  f.access_count = in.access_count.value_or(0);
  f.confidence = in.confidence;
  f.metadata = DumpJson(ParseJson(in.metadata, "metadata").value());
  f.superseded_by = in.superseded_by.value_or("");
  f.valid_until = f.superseded_by.empty() ? 0 : in.valid_until.value_or(f.updated_at);
  f.expires_at = in.expires_at.value_or(0);
  return f;
}

std::vector<std::string> MergeDescription(const Fact& incoming, Fact* stored) {
  std::vector<std::string> changed;
  if (incoming.kind != kDefaultKind && incoming.kind != stored->kind) {
    stored->kind = incoming.kind;
    changed.emplace_back("kind");
  }
  if (!incoming.source.empty() && incoming.source != stored->source) {
    stored->source = incoming.source;
    changed.emplace_back("source");
  }
  if (incoming.confidence != 1.0 && incoming.confidence != stored->confidence) {
    stored->confidence = incoming.confidence;
    changed.emplace_back("confidence");
  }
  const auto add = ParseJson(incoming.metadata, "metadata");
  if (add.ok() && add->is_object() && !add->empty()) {
    auto merged = ParseJson(stored->metadata, "metadata");
    if (!merged.ok() || !merged->is_object()) merged = nlohmann::json::object();
    merged->update(*add);
    const std::string text = DumpJson(*merged);
    if (text != stored->metadata) {
      stored->metadata = text;
      changed.emplace_back("metadata");
    }
  }
  if (incoming.expires_at != 0 && incoming.expires_at != stored->expires_at) {
    stored->expires_at = incoming.expires_at;
    changed.emplace_back("expires_at");
  }
  return changed;
}

}  // namespace engram
