// Embedders for tests, behind the Embedder seam:
//  - ConceptEmbedder: five concepts, each a set of synonyms; a text's vector
//    counts its words per concept (plus a small constant sixth component),
//    so synonyms embed alike and nothing else does. Deterministic.
//  - TableEmbedder: vectors looked up by exact text (random data tests).
//  - CountingEmbedder: wraps another and counts the texts it embeds.
//  - ScriptedFaultEmbedder: returns a chosen bad vector (NaN, wrong
//    dimension, zero) or an error, for the rejection paths.
#ifndef ENGRAM_TESTS_TEST_EMBEDDERS_H_
#define ENGRAM_TESTS_TEST_EMBEDDERS_H_

#include <atomic>
#include <cctype>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "engram/embedder.h"

namespace engram::testing {

class ConceptEmbedder final : public Embedder {
 public:
  // concepts[i] lists the lower-case words of concept i.
  explicit ConceptEmbedder(std::vector<std::vector<std::string>> concepts)
      : concepts_(std::move(concepts)) {
    space_ = {"test", "concepts", concepts_.size() + 1};
  }
  const EmbeddingSpace& Space() const override { return space_; }
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts,
                                                EmbedPurpose) const override {
    std::vector<std::vector<float>> out;
    for (const std::string& text : texts) {
      std::vector<float> v(space_.dimension, 0.0f);
      v.back() = 0.05f;  // never a zero norm
      std::string word;
      std::istringstream in(text);
      while (in >> word) {
        std::string w;
        for (char c : word) {
          if (std::isalnum(static_cast<unsigned char>(c))) {
            w += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
          }
        }
        if (w.size() > 3 && w.back() == 's') w.pop_back();  // plural
        for (size_t i = 0; i < concepts_.size(); ++i) {
          for (const std::string& synonym : concepts_[i]) {
            if (w == synonym) v[i] += 1.0f;
          }
        }
      }
      double norm = 0;
      for (float x : v) norm += x * x;
      for (float& x : v) x = static_cast<float>(x / std::sqrt(norm));
      out.push_back(std::move(v));
    }
    return out;
  }

 private:
  std::vector<std::vector<std::string>> concepts_;
  EmbeddingSpace space_;
};

class TableEmbedder final : public Embedder {
 public:
  TableEmbedder(size_t dimension, std::map<std::string, std::vector<float>> table)
      : table_(std::move(table)) {
    space_ = {"test", "table", dimension};
  }
  const EmbeddingSpace& Space() const override { return space_; }
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts,
                                                EmbedPurpose) const override {
    std::vector<std::vector<float>> out;
    for (const std::string& t : texts) {
      const auto it = table_.find(t);
      if (it == table_.end()) return NotFound("no vector for '" + t + "'");
      out.push_back(it->second);
    }
    return out;
  }

 private:
  std::map<std::string, std::vector<float>> table_;
  EmbeddingSpace space_;
};

class CountingEmbedder final : public Embedder {
 public:
  explicit CountingEmbedder(std::shared_ptr<const Embedder> inner) : inner_(std::move(inner)) {}
  const EmbeddingSpace& Space() const override { return inner_->Space(); }
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts,
                                                EmbedPurpose purpose) const override {
    (purpose == EmbedPurpose::kDocument ? documents_ : queries_) += texts.size();
    return inner_->Embed(texts, purpose);
  }
  size_t documents() const { return documents_.load(); }
  size_t queries() const { return queries_.load(); }

 private:
  std::shared_ptr<const Embedder> inner_;
  mutable std::atomic<size_t> documents_{0};
  mutable std::atomic<size_t> queries_{0};
};

class ScriptedFaultEmbedder final : public Embedder {
 public:
  enum class Fault { kNone, kNaN, kInfinity, kZero, kWrongDimension, kError, kTooFew };
  explicit ScriptedFaultEmbedder(size_t dimension) { space_ = {"test", "faulty", dimension}; }
  void set_fault(Fault f) { fault_ = f; }
  const EmbeddingSpace& Space() const override { return space_; }
  Result<std::vector<std::vector<float>>> Embed(const std::vector<std::string>& texts,
                                                EmbedPurpose) const override {
    if (fault_ == Fault::kError) return Unavailable("provider down");
    std::vector<std::vector<float>> out;
    for (size_t i = 0; i < texts.size(); ++i) {
      std::vector<float> v(space_.dimension, 0.0f);
      v[(texts[i].size() + i) % space_.dimension] = 1.0f;
      if (fault_ == Fault::kNaN) v[1] = std::numeric_limits<float>::quiet_NaN();
      if (fault_ == Fault::kInfinity) v[0] = std::numeric_limits<float>::infinity();
      if (fault_ == Fault::kZero) v.assign(space_.dimension, 0.0f);
      if (fault_ == Fault::kWrongDimension) v.push_back(1.0f);
      out.push_back(std::move(v));
    }
    if (fault_ == Fault::kTooFew && !out.empty()) out.pop_back();
    return out;
  }

 private:
  EmbeddingSpace space_;
  std::atomic<Fault> fault_{Fault::kNone};
};

}  // namespace engram::testing

#endif  // ENGRAM_TESTS_TEST_EMBEDDERS_H_
