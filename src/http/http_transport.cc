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

std::string UrlForMessage(std::string_view url) {
  url = url.substr(0, url.find_first_of("?#"));
  const size_t scheme_end = url.find("://");
  const size_t authority_begin = scheme_end == std::string_view::npos ? 0 : scheme_end + 3;
  const size_t path_begin = url.find('/', authority_begin);
  const std::string_view authority = url.substr(authority_begin, path_begin - authority_begin);
  const size_t at = authority.rfind('@');
  std::string out(url.substr(0, authority_begin));
  out += at == std::string_view::npos ? authority : authority.substr(at + 1);
  if (path_begin != std::string_view::npos) out += url.substr(path_begin);
  return out;
}

}  // namespace engram
