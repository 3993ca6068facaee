#include "src/embed/remote_embedder.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <mutex>
#include <system_error>
#include <thread>
#include <utility>

#include "src/common/utf8.h"

namespace engram {
namespace {

// "1 text", "4 texts".
std::string Count(size_t n, std::string_view noun) {
  std::string s = std::to_string(n) + " " + std::string(noun);
  if (n != 1) s += "s";
  return s;
}

// Runs task(0..count-1), at most `parallelism` at once, the calling thread
// among the workers. After a failure no new task starts; the error of the
// lowest failed index is returned.
Status RunAll(size_t count, size_t parallelism, const std::function<Status(size_t)>& task) {
  if (parallelism <= 1 || count <= 1) {
    for (size_t i = 0; i < count; ++i) ENGRAM_RETURN_IF_ERROR(task(i));
    return Status::OK();
  }
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;
  size_t failed_index = count;  // guarded by mutex
  Status first_error;           // guarded by mutex
  auto worker = [&] {
    for (size_t i = next++; i < count && !failed.load(); i = next++) {
      Status status = task(i);
      if (status.ok()) continue;
      std::lock_guard lock(mutex);
      if (i < failed_index) {
        failed_index = i;
        first_error = std::move(status);
      }
      failed = true;
    }
  };
  std::vector<std::thread> threads;
  const size_t workers = std::min(parallelism, count);
  threads.reserve(workers - 1);
  for (size_t t = 1; t < workers; ++t) {
    try {
      threads.emplace_back(worker);
    } catch (const std::system_error&) {
      break;  // no more threads to be had: the ones running do the work
    }
  }
  worker();
  for (std::thread& t : threads) t.join();
  return first_error;
}

// `value` as a unit vector of `dimension` floats.
Result<std::vector<float>> UnitVector(const nlohmann::json& value, size_t dimension,
                                      const std::string& what, size_t index) {
  const std::string name = what + ": vector " + std::to_string(index);
  if (!value.is_array()) return Unavailable(name + " is not an array of numbers");
  if (value.size() != dimension) {
    return Unavailable(name + " has " + std::to_string(value.size()) + " dimensions, expected " +
                       std::to_string(dimension));
  }
  double norm2 = 0.0;
  for (const nlohmann::json& x : value) {
    if (!x.is_number()) return Unavailable(name + " has a value that is not a number");
    const double d = x.get<double>();
    if (!std::isfinite(d) || std::abs(d) > std::numeric_limits<float>::max()) {
      return Unavailable(name + " has a NaN or infinite value");
    }
    norm2 += d * d;
  }
  if (norm2 == 0.0) return Unavailable(name + " is all zeros");
  const double inv = 1.0 / std::sqrt(norm2);
  std::vector<float> out;
  out.reserve(dimension);
  for (const nlohmann::json& x : value) out.push_back(static_cast<float>(x.get<double>() * inv));
  return out;
}

}  // namespace

RemoteEmbedder::RemoteEmbedder(EmbeddingSpace space, size_t max_batch, size_t parallelism,
                               std::vector<std::string> secrets)
    : space_(std::move(space)),
      what_("embed: " + space_.provider),
      max_batch_(std::max<size_t>(max_batch, 1)),
      parallelism_(std::max<size_t>(parallelism, 1)),
      secrets_(std::move(secrets)) {}

Result<std::vector<std::vector<float>>> RemoteEmbedder::Embed(const std::vector<std::string>& texts,
                                                              EmbedPurpose purpose) const {
  for (size_t i = 0; i < texts.size(); ++i) {
    size_t bad = 0;
    if (texts[i].empty())
      return InvalidArgument(what_ + ": text " + std::to_string(i) + " is empty");
    if (!IsValidUtf8(texts[i], &bad)) {
      return InvalidArgument(what_ + ": text " + std::to_string(i) + ": invalid UTF-8 at byte " +
                             std::to_string(bad + 1));
    }
  }
  std::vector<std::vector<float>> out(texts.size());
  const std::span<const std::string> all(texts);
  const size_t batches = (texts.size() + max_batch_ - 1) / max_batch_;
  const Status status = RunAll(batches, parallelism_, [&](size_t b) {
    const size_t first = b * max_batch_;
    return EmbedInto(all.subspan(first, std::min(max_batch_, texts.size() - first)), first, purpose,
                     &out);
  });
  if (!status.ok()) return Status(status.code(), Redact(status.message(), secrets_));
  return out;
}

Status RemoteEmbedder::EmbedInto(std::span<const std::string> texts, size_t first,
                                 EmbedPurpose purpose, std::vector<std::vector<float>>* out) const {
  ENGRAM_ASSIGN_OR_RETURN(std::vector<nlohmann::json> vectors, EmbedBatch(texts, purpose));
  if (vectors.size() != texts.size()) {
    return Unavailable(what_ + ": answer has " + Count(vectors.size(), "vector") + " for " +
                       Count(texts.size(), "text"));
  }
  for (size_t i = 0; i < vectors.size(); ++i) {
    ENGRAM_ASSIGN_OR_RETURN((*out)[first + i],
                            UnitVector(vectors[i], space_.dimension, what_, first + i));
  }
  return Status::OK();
}

const KnownModel* FindModel(std::span<const KnownModel> models, std::string_view name) {
  for (const KnownModel& m : models) {
    if (m.name == name) return &m;
  }
  return nullptr;
}

Result<size_t> ChooseDimension(std::string_view what, std::string_view model,
                               std::span<const KnownModel> models, size_t requested) {
  const std::string prefix = std::string(what) + ": " + std::string(model);
  const KnownModel* known = FindModel(models, model);
  if (known == nullptr) {
    if (requested > 0) return requested;
    std::vector<std::string_view> names;
    names.reserve(models.size());
    for (const KnownModel& m : models) names.push_back(m.name);
    return InvalidArgument(std::string(what) + ": model '" + std::string(model) +
                           "' has no known dimension; set the dimensions option (known models: " +
                           JoinNames(names) + ")");
  }
  const ModelDimensions& dims = known->dims;
  if (requested == 0 || requested == dims.native) return dims.native;
  const std::string asked = ", not " + std::to_string(requested);
  if (dims.truncatable) {
    if (requested <= dims.native) return requested;
    return InvalidArgument(prefix + " gives at most " + std::to_string(dims.native) +
                           " dimensions" + asked);
  }
  if (!dims.choices.empty()) {
    if (std::find(dims.choices.begin(), dims.choices.end(), requested) != dims.choices.end()) {
      return requested;
    }
    std::vector<std::string> numbers;
    for (size_t c : dims.choices) numbers.push_back(std::to_string(c));
    return InvalidArgument(
        prefix + " gives " +
        JoinNames(std::vector<std::string_view>(numbers.begin(), numbers.end())) + " dimensions" +
        asked);
  }
  return InvalidArgument(prefix + " gives " + std::to_string(dims.native) + " dimensions only" +
                         asked);
}

std::string JoinNames(const std::vector<std::string_view>& names) {
  std::string out;
  for (size_t i = 0; i < names.size(); ++i) {
    if (i > 0) out += i + 1 == names.size() ? " or " : ", ";
    out += names[i];
  }
  return out;
}

Status RequireApiKey(const RemoteOptions& options, std::string_view what,
                     std::string_view variable) {
  if (!options.api_key.empty() || !options.base_url.empty()) return Status::OK();
  return InvalidArgument(std::string(what) + ": no API key; set " + std::string(variable));
}

Result<std::vector<nlohmann::json>> TakeArray(nlohmann::json* answer, std::string_view key,
                                              std::string_view what) {
  const auto it = answer->is_object() ? answer->find(std::string(key)) : answer->end();
  if (it == answer->end() || !it->is_array()) {
    return Unavailable(std::string(what) + ": answer has no '" + std::string(key) + "' array");
  }
  std::vector<nlohmann::json> out;
  out.reserve(it->size());
  for (nlohmann::json& v : *it) out.push_back(std::move(v));
  return out;
}

Result<std::vector<nlohmann::json>> TakeIndexedData(nlohmann::json* answer, std::string_view what) {
  ENGRAM_ASSIGN_OR_RETURN(std::vector<nlohmann::json> data, TakeArray(answer, "data", what));
  std::vector<nlohmann::json> out(data.size());
  std::vector<bool> seen(data.size(), false);
  for (size_t i = 0; i < data.size(); ++i) {
    nlohmann::json& entry = data[i];
    const auto index = entry.is_object() ? entry.find("index") : entry.end();
    const auto embedding = entry.is_object() ? entry.find("embedding") : entry.end();
    if (index == entry.end() || !index->is_number_integer() || embedding == entry.end()) {
      return Unavailable(std::string(what) + ": answer's data entry " + std::to_string(i) +
                         " lacks an index or an embedding");
    }
    const auto at = index->get<int64_t>();
    if (at < 0 || static_cast<size_t>(at) >= data.size() || seen[at]) {
      return Unavailable(std::string(what) + ": answer's data entry " + std::to_string(i) +
                         " has index " + std::to_string(at) + ", expected each of 0.." +
                         std::to_string(data.size() - 1) + " once");
    }
    seen[at] = true;
    out[at] = std::move(*embedding);
  }
  return out;
}

}  // namespace engram
