#include "src/http/http_transport.h"

#include <cctype>

namespace engram {

namespace {

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i]))) {
      return false;
    }
  }
  return true;
}

}  // namespace

std::optional<std::string> FindHeader(const HttpHeaders& headers, std::string_view name) {
  for (const auto& [header_name, value] : headers) {
    if (EqualsIgnoreCase(header_name, name)) return value;
  }
  return std::nullopt;
}

}  // namespace engram
