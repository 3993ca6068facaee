#include "src/server/web_assets.h"

#include <utility>

namespace engram {

const WebFile* FindWebFile(std::string_view name) {
  for (const WebFile& file : WebFiles()) {
    if (file.name == name) return &file;
  }
  return nullptr;
}

std::string_view WebContentType(std::string_view name) {
  static constexpr std::pair<std::string_view, std::string_view> kTypes[] = {
      {".html", "text/html; charset=utf-8"},
      {".js", "text/javascript; charset=utf-8"},
      {".css", "text/css; charset=utf-8"},
      {".svg", "image/svg+xml"},
  };
  for (const auto& [extension, type] : kTypes) {
    if (name.size() > extension.size() &&
        name.substr(name.size() - extension.size()) == extension) {
      return type;
    }
  }
  return "application/octet-stream";
}

}  // namespace engram
