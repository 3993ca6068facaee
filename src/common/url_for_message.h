// A URL as it may appear in a log line or an error message: without the
// credentials and options a user may have put in it. Used for provider
// endpoints and for store URLs alike.
//
// Thread-safety: a pure function.
#ifndef ENGRAM_SRC_COMMON_URL_FOR_MESSAGE_H_
#define ENGRAM_SRC_COMMON_URL_FOR_MESSAGE_H_

#include <string>
#include <string_view>

namespace engram {

// `url` as scheme, host, port and path, without user info, query or
// fragment (where keys and passwords like to hide).
// "https://u:p@host:8443/v1/x?key=k" -> "https://host:8443/v1/x";
// "postgresql://u:p@db/mem?password=x" -> "postgresql://db/mem".
std::string UrlForMessage(std::string_view url);

}  // namespace engram

#endif  // ENGRAM_SRC_COMMON_URL_FOR_MESSAGE_H_
