#include "src/common/url_for_message.h"

namespace engram {

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
