// The C API's codes, memory, version, options and the store handle.
#include <cstdlib>
#include <cstring>

#include "engram/version.h"
#include "src/capi/handles.h"
#include "src/engine/stats_json.h"
#include "src/loader/engine_loader.h"

namespace engram::capi {

engram_code Report(const Status& status, char** errmsg) {
  if (errmsg != nullptr) *errmsg = status.ok() ? nullptr : CopyOut(status.message());
  return static_cast<engram_code>(status.code());
}

char* CopyOut(const std::string& text) {
  char* out = static_cast<char*>(std::malloc(text.size() + 1));
  if (out == nullptr) return nullptr;
  std::memcpy(out, text.c_str(), text.size() + 1);
  return out;
}

Status Required(const void* p, const char* function, const char* name) {
  if (p != nullptr) return Status::OK();
  return InvalidArgument(std::string(function) + ": " + name + " is NULL");
}

namespace {

// The process environment without engram's own settings (ENGRAM_*, the
// seed's CHATCLI_*): what the library reads unless asked to read the
// configuration as the CLI does. HOME, XDG_* and the providers' variables
// remain.
Environment ProviderEnvironment() {
  return [](const std::string& name) -> std::optional<std::string> {
    if (name.rfind("ENGRAM_", 0) == 0 || name.rfind("CHATCLI_", 0) == 0) return std::nullopt;
    return ProcessEnvironment()(name);
  };
}

}  // namespace
}  // namespace engram::capi

using engram::Status;
using engram::capi::Guarded;
using engram::capi::Required;

extern "C" {

const char* engram_code_name(int code) {
  if (code < ENGRAM_OK || code > ENGRAM_INTERNAL) return "unknown";
  return engram::StatusCodeName(static_cast<engram::StatusCode>(code)).data();
}

void engram_free(void* ptr) { std::free(ptr); }

const char* engram_version(void) { return engram::Version(); }

int engram_version_number(void) { return ENGRAM_VERSION_NUMBER; }

engram_options_t* engram_options_create(void) { return new engram_options_t(); }

void engram_options_destroy(engram_options_t* options) { delete options; }

engram_code engram_options_set(engram_options_t* options, const char* key, const char* value,
                               char** errmsg) {
  return Guarded(errmsg, [&]() -> Status {
    ENGRAM_RETURN_IF_ERROR(Required(options, "engram_options_set", "options"));
    ENGRAM_RETURN_IF_ERROR(Required(key, "engram_options_set", "key"));
    ENGRAM_RETURN_IF_ERROR(Required(value, "engram_options_set", "value"));
    ENGRAM_ASSIGN_OR_RETURN(std::string checked, engram::CheckSetting(key, value));
    options->settings[key] = std::move(checked);
    return Status::OK();
  });
}

engram_code engram_options_get(const engram_options_t* options, const char* key, char** value,
                               char** errmsg) {
  return Guarded(errmsg, [&]() -> Status {
    ENGRAM_RETURN_IF_ERROR(Required(options, "engram_options_get", "options"));
    ENGRAM_RETURN_IF_ERROR(Required(key, "engram_options_get", "key"));
    ENGRAM_RETURN_IF_ERROR(Required(value, "engram_options_get", "value"));
    ENGRAM_ASSIGN_OR_RETURN(
        engram::ResolvedConfig config,
        engram::ResolveConfig(engram::capi::ProviderEnvironment(), options->settings, false));
    for (const engram::ConfigEntry& entry : config.entries) {
      if (entry.key != key) continue;
      *value = engram::capi::CopyOut(entry.value);
      return Status::OK();
    }
    return engram::InvalidArgument(std::string("config: unknown key '") + key + "'");
  });
}

void engram_options_read_config(engram_options_t* options, int enabled) {
  if (options != nullptr) options->read_config = enabled != 0;
}

void engram_options_create_if_missing(engram_options_t* options, int enabled) {
  if (options != nullptr) options->create_if_missing = enabled != 0;
}

engram_code engram_open(const engram_options_t* options, const char* path, engram_t** out,
                        char** errmsg) {
  return Guarded(errmsg, [&]() -> Status {
    ENGRAM_RETURN_IF_ERROR(Required(out, "engram_open", "out"));
    *out = nullptr;
    const engram_options_t defaults;
    const engram_options_t& opts = options == nullptr ? defaults : *options;
    engram::ConfigFlags settings = opts.settings;
    if (path != nullptr) settings["db"] = path;
    const engram::Environment env =
        opts.read_config ? engram::ProcessEnvironment() : engram::capi::ProviderEnvironment();
    ENGRAM_ASSIGN_OR_RETURN(engram::ResolvedConfig config,
                            engram::ResolveConfig(env, settings, opts.read_config));
    config.engine.create_if_missing = opts.create_if_missing;
    auto db = std::make_unique<engram_t>();
    db->warnings = std::move(config.warnings);
    config.warnings.clear();
    db->config = config;
    ENGRAM_ASSIGN_OR_RETURN(db->engine, engram::OpenConfiguredEngine(
                                            std::move(config), engram::EmbedderNeed::kIfAvailable,
                                            nullptr, &db->warnings));
    *out = db.release();
    return Status::OK();
  });
}

void engram_close(engram_t* db) { delete db; }

size_t engram_warning_count(const engram_t* db) { return db == nullptr ? 0 : db->warnings.size(); }

const char* engram_warning(const engram_t* db, size_t index) {
  if (db == nullptr || index >= db->warnings.size()) return nullptr;
  return db->warnings[index].c_str();
}

engram_code engram_config_json(engram_t* db, char** json, char** errmsg) {
  return Guarded(errmsg, [&]() -> Status {
    ENGRAM_RETURN_IF_ERROR(Required(db, "engram_config_json", "db"));
    ENGRAM_RETURN_IF_ERROR(Required(json, "engram_config_json", "json"));
    ENGRAM_ASSIGN_OR_RETURN(engram::StoreStats stats, db->engine->Stats());
    const nlohmann::json out = {{"settings", engram::ConfigEntriesJson(db->config)},
                                {"store", engram::StoreStatsToJson(stats)}};
    *json = engram::capi::CopyOut(out.dump());
    return Status::OK();
  });
}

}  // extern "C"
