#include "src/server/request_args.h"

#include <algorithm>
#include <charconv>

namespace engram {
namespace {

using nlohmann::json;

std::string Shown(const json& v) {
  std::string type = v.type_name();
  if (v.is_string()) {
    std::string text = v.get<std::string>();
    if (text.size() > 40) text = text.substr(0, 40) + "...";
    return "string \"" + text + "\"";
  }
  return type;
}

}  // namespace

Result<RequestArgs> RequestArgs::Of(const json& value, std::string what) {
  if (value.is_null()) return RequestArgs(json::object(), std::move(what), false);
  if (!value.is_object()) {
    return InvalidArgument(what + ": expected a JSON object, got " + value.type_name());
  }
  return RequestArgs(value, std::move(what), false);
}

RequestArgs RequestArgs::FromQuery(json params, std::string what) {
  return RequestArgs(std::move(params), std::move(what), true);
}

Status RequestArgs::FieldError(std::string_view name, const std::string& message) const {
  return InvalidArgument(what_ + ": field '" + std::string(name) + "': " + message);
}

Status RequestArgs::OnlyFields(std::initializer_list<std::string_view> known) const {
  for (const auto& [key, unused] : value_.items()) {
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string names;
      for (std::string_view k : known) {
        if (!names.empty()) names += ", ";
        names += k;
      }
      std::string message = what_ + ": unknown field '";
      message += key;
      message += "' (known: " + names + ")";
      return InvalidArgument(message);
    }
  }
  return Status::OK();
}

bool RequestArgs::Has(std::string_view name) const { return Find(name) != nullptr; }

const json* RequestArgs::Find(std::string_view name) const {
  const auto it = value_.find(name);
  if (it == value_.end() || it->is_null()) return nullptr;
  return &*it;
}

Result<std::optional<std::string>> RequestArgs::OptionalString(std::string_view name,
                                                               size_t max_bytes) const {
  const json* v = Find(name);
  if (v == nullptr) return std::optional<std::string>();
  if (!v->is_string()) return FieldError(name, "must be a string, not " + Shown(*v));
  std::string text = v->get<std::string>();
  if (text.size() > max_bytes) {
    return FieldError(name, "is " + std::to_string(text.size()) + " bytes; the limit is " +
                                std::to_string(max_bytes));
  }
  return std::optional<std::string>(std::move(text));
}

Result<std::string> RequestArgs::RequiredString(std::string_view name, size_t max_bytes) const {
  ENGRAM_ASSIGN_OR_RETURN(std::optional<std::string> text, OptionalString(name, max_bytes));
  if (!text) return FieldError(name, "is required");
  if (text->find_first_not_of(" \t\r\n") == std::string::npos) {
    return FieldError(name, "must not be empty");
  }
  return std::move(*text);
}

Result<int64_t> RequestArgs::Int(std::string_view name, int64_t lo, int64_t hi,
                                 int64_t fallback) const {
  const json* v = Find(name);
  if (v == nullptr) return fallback;
  const std::string range =
      "must be an integer in " + std::to_string(lo) + ".." + std::to_string(hi) + ", not ";
  int64_t n = 0;
  if (v->is_number_integer()) {
    if (v->is_number_unsigned() && v->get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
      return FieldError(name, range + v->dump());
    }
    n = v->get<int64_t>();
  } else if (from_query_ && v->is_string()) {
    const std::string text = v->get<std::string>();
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc() || end != text.data() + text.size() || text.empty()) {
      return FieldError(name, range + Shown(*v));
    }
  } else {
    return FieldError(name, range + (v->is_number() ? v->dump() : Shown(*v)));
  }
  if (n < lo || n > hi) return FieldError(name, range + std::to_string(n));
  return n;
}

Result<bool> RequestArgs::Bool(std::string_view name, bool fallback) const {
  const json* v = Find(name);
  if (v == nullptr) return fallback;
  if (v->is_boolean()) return v->get<bool>();
  if (from_query_ && v->is_string()) {
    const std::string text = v->get<std::string>();
    if (text == "true" || text == "1") return true;
    if (text == "false" || text == "0") return false;
  }
  return FieldError(name, "must be true or false, not " + Shown(*v));
}

Result<std::vector<std::string>> RequestArgs::Strings(std::string_view name, size_t max_bytes,
                                                      size_t max_count) const {
  const json* v = Find(name);
  std::vector<std::string> out;
  if (v == nullptr) return out;
  const json items = v->is_array() ? *v : json::array({*v});
  if (items.size() > max_count) {
    return FieldError(name, "has " + std::to_string(items.size()) + " items; the limit is " +
                                std::to_string(max_count));
  }
  for (const json& item : items) {
    if (!item.is_string()) {
      return FieldError(name, "must be a string or an array of strings, not " + Shown(item));
    }
    std::string text = item.get<std::string>();
    if (text.size() > max_bytes) {
      return FieldError(name, "an item is " + std::to_string(text.size()) +
                                  " bytes; the limit is " + std::to_string(max_bytes));
    }
    out.push_back(std::move(text));
  }
  return out;
}

}  // namespace engram
