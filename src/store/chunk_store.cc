#include "src/store/chunk_store.h"

#include <nlohmann/json.hpp>

#include "src/common/json_text.h"

namespace engram {

std::string EncodeRoots(const std::vector<std::string>& roots) {
  return nlohmann::json(roots).dump();
}

Result<std::vector<std::string>> DecodeRoots(const std::string& text,
                                             const std::string& attachment) {
  const nlohmann::json roots = ParseJson(text, "").value_or(nullptr);
  if (!roots.is_array()) {
    return Corruption("context: attachment '" + attachment + "': roots are not a JSON array");
  }
  std::vector<std::string> out;
  for (const auto& r : roots) {
    if (r.is_string()) out.push_back(r.get<std::string>());
  }
  return out;
}

Result<int64_t> ChunkStore::Create(const std::string& name, const std::vector<std::string>& roots,
                                   const std::string& chunking, Timestamp now) {
  StoredAttachment a;
  a.info.name = name;
  a.info.roots = roots;
  a.info.created_at = now;
  a.info.refreshed_at = now;
  a.chunking = chunking;
  return Restore(a);
}

Status AttachmentNameTaken(const std::string& name) {
  return Status(StatusCode::kAlreadyExists,
                "an attachment named '" + name +
                    "' already exists (detach it, refresh it, or choose another name)");
}

}  // namespace engram
