#include "src/server/request_guard.h"

#include <algorithm>
#include <cctype>

namespace engram {
namespace {

std::string Lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// "name", "name:port", "[v6]" or "[v6]:port" -> the name, brackets kept
// for IPv6; empty when the port part is not digits.
std::string HostName(std::string_view host) {
  std::string_view name = host;
  if (!host.empty() && host.front() == '[') {
    const size_t close = host.find(']');
    if (close == std::string_view::npos) return "";
    name = host.substr(0, close + 1);
    host.remove_prefix(close + 1);
  } else {
    const size_t colon = host.rfind(':');
    if (colon == std::string_view::npos) return Lower(name);
    name = host.substr(0, colon);
    host.remove_prefix(colon);
  }
  if (!host.empty()) {
    if (host.front() != ':' || host.size() == 1) return "";
    for (char c : host.substr(1)) {
      if (std::isdigit(static_cast<unsigned char>(c)) == 0) return "";
    }
  }
  return Lower(name);
}

bool IsLoopbackName(const std::string& name) {
  return name == "localhost" || name == "127.0.0.1" || name == "[::1]";
}

GuardRefusal Forbidden(std::string message) {
  return GuardRefusal{403, "forbidden", std::move(message)};
}

}  // namespace

std::vector<std::string> SplitOriginList(std::string_view list) {
  std::vector<std::string> out;
  while (!list.empty()) {
    const size_t comma = list.find(',');
    const std::string_view item = Trim(list.substr(0, comma));
    if (!item.empty()) out.emplace_back(item);
    if (comma == std::string_view::npos) break;
    list.remove_prefix(comma + 1);
  }
  return out;
}

std::optional<GuardRefusal> CheckHost(std::string_view host, const RequestGuardOptions& options) {
  const std::string bound = Lower(options.bound_host);
  if (bound == "0.0.0.0" || bound == "::" || bound == "[::]") return std::nullopt;
  if (host.empty()) return std::nullopt;  // HTTP/1.0: no name to rebind
  const std::string name = HostName(Trim(host));
  const std::string bound_name =
      bound.find(':') != std::string::npos && bound.front() != '[' ? "[" + bound + "]" : bound;
  if (!name.empty() && (IsLoopbackName(name) || name == bound_name)) return std::nullopt;
  return Forbidden("request: Host '" + std::string(host) + "' is not this server (" +
                   options.bound_host +
                   " or localhost); a page on another name may have been rebound to it");
}

std::optional<GuardRefusal> CheckOrigin(std::string_view origin, std::string_view host,
                                        const RequestGuardOptions& options) {
  origin = Trim(origin);
  if (origin.empty()) return std::nullopt;
  for (const std::string& allowed : options.allowed_origins) {
    if (Lower(origin) == Lower(allowed)) return std::nullopt;
  }
  const std::string lower = Lower(origin);
  const std::string own_host = Lower(Trim(host));
  for (std::string_view scheme : {"http://", "https://"}) {
    if (lower.rfind(scheme, 0) != 0) continue;
    const std::string_view rest = std::string_view(lower).substr(scheme.size());
    if (IsLoopbackName(HostName(rest))) return std::nullopt;
    if (!own_host.empty() && rest == own_host) return std::nullopt;
  }
  return Forbidden("request: Origin '" + std::string(origin) +
                   "' may not use this server; allow it in server.allowed_origins");
}

std::optional<GuardRefusal> CheckContentType(std::string_view method,
                                             std::string_view content_type) {
  if (method != "POST" && method != "PUT" && method != "PATCH") return std::nullopt;
  const std::string_view media = Trim(content_type.substr(0, content_type.find(';')));
  if (Lower(media) == "application/json") return std::nullopt;
  return GuardRefusal{415, "unsupported_media_type",
                      "request body: Content-Type must be application/json, not '" +
                          std::string(content_type.empty() ? "(none)" : content_type) +
                          "' (curl: -H 'Content-Type: application/json')"};
}

}  // namespace engram
