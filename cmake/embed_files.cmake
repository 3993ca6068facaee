# Writes OUTPUT, a C++ source defining the memory browser's files
# (src/server/web_assets.h): each of FILES, named relative to DIR, as its
# bytes in a string literal. Run at build time:
#   cmake -DDIR=... -DOUTPUT=... -DFILES="a;b" -P embed_files.cmake
set(body "// Generated from ${DIR} by cmake/embed_files.cmake; do not edit.\n")
string(APPEND body "#include \"src/server/web_assets.h\"\n\nnamespace engram {\nnamespace {\n\n")
set(table "")
set(index 0)
foreach(name IN LISTS FILES)
  file(READ "${DIR}/${name}" hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "\\\\x\\1" escaped "${hex}")
  string(APPEND body "constexpr char kFile${index}[] = \"${escaped}\";\n")
  string(APPEND table "    {\"${name}\", {kFile${index}, sizeof kFile${index} - 1}},\n")
  math(EXPR index "${index} + 1")
endforeach()
string(APPEND body "\n}  // namespace\n\nconst std::vector<WebFile>& WebFiles() {\n")
string(APPEND body "  static const std::vector<WebFile> files = {\n${table}  };\n  return files;\n}\n\n")
string(APPEND body "}  // namespace engram\n")
file(WRITE "${OUTPUT}.tmp" "${body}")
# Rewritten only when it changed, so an unchanged page rebuilds nothing.
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
