// The memory browser (src/server/web/): the page `engram serve` answers at
// "/" and the files it loads from "/ui/". They are built into the server
// (cmake/embed_files.cmake), so nothing is read from disk or fetched from
// elsewhere at run time, and they hold no memory of their own: the page
// reads and writes facts through the HTTP API like any other client.
#ifndef ENGRAM_SRC_SERVER_WEB_ASSETS_H_
#define ENGRAM_SRC_SERVER_WEB_ASSETS_H_

#include <string_view>
#include <vector>

namespace engram {

struct WebFile {
  std::string_view name;  // relative to src/server/web/, e.g. "app.js"
  std::string_view body;
};

// Every file of the page, in the order CMake lists them. Defined in the
// generated web_files.cc.
const std::vector<WebFile>& WebFiles();

// The file called `name`, or nullptr.
const WebFile* FindWebFile(std::string_view name);

// The Content-Type a file is served with, from its extension
// ("text/html; charset=utf-8", "text/javascript; charset=utf-8", ...).
std::string_view WebContentType(std::string_view name);

}  // namespace engram

#endif  // ENGRAM_SRC_SERVER_WEB_ASSETS_H_
