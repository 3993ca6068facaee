// The structs behind the C API's opaque handles (include/engram/c.h), and
// the helpers every entry point shares: turning a Status into a code and a
// message, and checking the pointers a caller passed.
//
// Internal to src/capi; nothing here is exported.
#ifndef ENGRAM_SRC_CAPI_HANDLES_H_
#define ENGRAM_SRC_CAPI_HANDLES_H_

#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "engram/c.h"
#include "engram/engine.h"
#include "src/config/config.h"

struct engram_options_t {
  engram::ConfigFlags settings;  // keys set by engram_options_set, checked
  bool read_config = false;
  bool create_if_missing = true;
};

struct engram_t {
  std::unique_ptr<engram::Engine> engine;
  engram::ResolvedConfig config;      // as resolved at open, for engram_config_json
  std::vector<std::string> warnings;  // engram_open's
};

struct engram_fact_t {
  engram::Fact fact;
};

struct engram_facts_t {
  std::vector<engram_fact_t> facts;
};

struct engram_new_fact_t {
  engram::NewFact fact;
};

struct engram_filter_t {
  engram::FactFilter filter;
};

struct engram_list_options_t {
  engram::ListOptions options;
};

struct engram_search_options_t {
  engram::SearchOptions options;
};

struct engram_search_result_t {
  engram::SearchResponse response;  // its hits' facts are moved into `facts`
  bool explained = false;
  std::vector<engram_fact_t> facts;  // the hits' facts, as handles, in hit order
};

namespace engram::capi {

// Stores `status`'s message in *errmsg (malloc'd) when errmsg is given, or
// NULL for OK; returns its code.
engram_code Report(const Status& status, char** errmsg);

// A copy of `text` allocated with malloc, for the caller to engram_free.
char* CopyOut(const std::string& text);

// InvalidArgument naming parameter `name` of `function` when `p` is null.
Status Required(const void* p, const char* function, const char* name);

// `text` or `fallback` when `text` is null.
inline std::string OrDefault(const char* text, const char* fallback) {
  return text == nullptr ? std::string(fallback) : std::string(text);
}

// Runs `body` (returning Status), turning any exception that escapes the
// library into ENGRAM_INTERNAL instead of unwinding into C.
template <typename Body>
engram_code Guarded(char** errmsg, Body body) {
  try {
    return Report(body(), errmsg);
  } catch (const std::exception& e) {
    return Report(Internal(std::string("capi: unexpected exception: ") + e.what()), errmsg);
  } catch (...) {
    return Report(Internal("capi: unexpected exception"), errmsg);
  }
}

}  // namespace engram::capi

#endif  // ENGRAM_SRC_CAPI_HANDLES_H_
