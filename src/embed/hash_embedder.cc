#include "src/embed/hash_embedder.h"

#include <cmath>
#include <string>

#include "src/common/hash.h"
#include "src/common/unicode.h"
#include "src/common/utf8.h"
#include "src/text/analyzer.h"

namespace engram {
namespace {

void AddFeature(std::string_view feature, std::vector<float>* v) {
  const uint64_t h = Fnv1a64(feature);
  const size_t bucket = static_cast<size_t>(h % v->size());
  (*v)[bucket] += (h >> 63) != 0U ? -1.0F : 1.0F;
}

}  // namespace

HashEmbedder::HashEmbedder(size_t dimension) : space_{"hash", "fnv1a", dimension} {}

Result<std::vector<std::vector<float>>> HashEmbedder::Embed(const std::vector<std::string>& texts,
                                                            EmbedPurpose) const {
  std::vector<std::vector<float>> out;
  out.reserve(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    size_t bad = 0;
    if (!IsValidUtf8(texts[i], &bad)) {
      return InvalidArgument("embed: hash: text " + std::to_string(i) + ": invalid UTF-8 at byte " +
                             std::to_string(bad + 1));
    }
    std::vector<float> v(space_.dimension, 0.0F);
    for (const AnalyzedToken& t : Analyze(texts[i])) AddFeature("w:" + t.term, &v);
    const std::string folded = FoldAccents(NfkcCaseFold(texts[i]));
    for (size_t pos = 0; pos + 3 <= folded.size(); ++pos) {
      AddFeature("c:" + folded.substr(pos, 3), &v);
    }
    double norm = 0.0;
    for (float x : v) norm += static_cast<double>(x) * x;
    if (norm == 0.0) {
      // Under three bytes and no term: one feature for the whole text.
      AddFeature("t:" + folded, &v);
      norm = 1.0;
    }
    const auto inv = static_cast<float>(1.0 / std::sqrt(norm));
    for (float& x : v) x *= inv;
    out.push_back(std::move(v));
  }
  return out;
}

}  // namespace engram
