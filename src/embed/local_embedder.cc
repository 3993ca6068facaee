#include "src/embed/local_embedder.h"

#include <unicode/uchar.h>

#include <utility>

#include "src/common/unicode.h"
#include "src/common/utf8.h"

namespace engram {

Result<std::unique_ptr<LocalEmbedder>> LocalEmbedder::Load(const std::string& model_path,
                                                           const UseLiteEncoderOptions& options) {
  ENGRAM_ASSIGN_OR_RETURN(std::unique_ptr<UseLiteEncoder> encoder,
                          UseLiteEncoder::Load(model_path, options));
  return std::unique_ptr<LocalEmbedder>(new LocalEmbedder(std::move(encoder), SpaceOf(options)));
}

EmbeddingSpace LocalEmbedder::SpaceOf(const UseLiteEncoderOptions& options) {
  const char* model = options.long_text == UseLiteLongText::kWindows      ? kUseLiteWindowsModel
                      : options.long_text == UseLiteLongText::kBestWindow ? kUseLiteBestWindowModel
                                                                          : kUseLiteModel;
  return EmbeddingSpace{"local", model, UseLiteEncoder::kDimension};
}

LocalEmbedder::LocalEmbedder(std::unique_ptr<UseLiteEncoder> encoder, EmbeddingSpace space)
    : encoder_(std::move(encoder)), space_(std::move(space)) {}

std::string LocalEmbedder::Prepare(const std::string& text) {
  bool upper = false;
  size_t pos = 0;
  while (pos < text.size()) {
    const auto cp = static_cast<UChar32>(NextCodePoint(text, &pos));
    if (u_islower(cp)) return text;
    upper = upper || u_isupper(cp);
  }
  return upper ? NfkcCaseFold(text) : text;
}

Result<std::vector<std::vector<float>>> LocalEmbedder::Embed(const std::vector<std::string>& texts,
                                                             EmbedPurpose purpose) const {
  std::vector<std::string> prepared;
  prepared.reserve(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) {
    size_t bad = 0;
    if (!IsValidUtf8(texts[i], &bad)) {
      return InvalidArgument("embed: local: text " + std::to_string(i) +
                             ": invalid UTF-8 at byte " + std::to_string(bad + 1));
    }
    prepared.push_back(Prepare(texts[i]));
  }
  if (purpose == EmbedPurpose::kQuery && Space().MaxVectorsPerDocument() > 1) {
    // A query is one vector: a long one is read whole, its windows averaged.
    return encoder_->Embed(prepared, UseLiteLongText::kWindows);
  }
  return encoder_->Embed(prepared);
}

}  // namespace engram
