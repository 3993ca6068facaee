#include "src/vindex/flat_index.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <limits>
#include <system_error>
#include <thread>

#include "src/vindex/row_scan.h"
#include "src/vindex/top_k.h"
#include "src/vindex/vector_math.h"

namespace engram {
namespace {

// Each thread of a parallel search gets at least this many rows.
constexpr size_t kMinRowsPerThread = 4096;

// Rows whose code sums ScanCodes takes per DotRowsInt8 call.
constexpr size_t kCodeBlockRows = 256;

// The bound's allowance, per unit of the query's length, for the rounding
// of the float dot product of a stored (unit) row: at most about n 2^-24
// (3.1e-5 at 512 dimensions), taken twice, plus 1e-6 for the rest (the
// code score and the bound are computed in double). See flat_index.h.
double ScoreSlack(size_t dimension) {
  return 2.0 * static_cast<double>(dimension) * 0x1p-24 + 1e-6;
}

// `x` rounded up to the next float, so that a bound kept as a float stays a
// bound.
float RoundedUp(double x) {
  const auto f = static_cast<float>(x);
  return static_cast<double>(f) >= x ? f : std::nextafter(f, std::numeric_limits<float>::max());
}

// The lengths of a vector `v` coded as `codes` at `scale`: of what the
// codes leave out (|v - scale codes|), of the coded vector (|scale codes|)
// and of `v` itself, each computed in double and rounded up a little.
struct CodeLengths {
  double left_out = 0.0;
  double coded = 0.0;
  double whole = 0.0;
};
template <typename Code>
CodeLengths LengthsOf(std::span<const float> v, float scale, const Code* codes) {
  double left_out2 = 0.0;
  double coded2 = 0.0;
  double whole2 = 0.0;
  for (size_t i = 0; i < v.size(); ++i) {
    const double x = v[i];
    const double coded = static_cast<double>(scale) * codes[i];
    left_out2 += (x - coded) * (x - coded);
    coded2 += coded * coded;
    whole2 += x * x;
  }
  constexpr double kUp = 1.0 + 1e-12;
  return {std::sqrt(left_out2) * kUp, std::sqrt(coded2) * kUp, std::sqrt(whole2) * kUp};
}

}  // namespace

FlatIndex::FlatIndex(size_t dimension, FlatIndexOptions options)
    : dimension_(dimension), options_(options) {}

Status FlatIndex::Upsert(int64_t label, std::span<const float> vector) {
  if (vector.size() != dimension_) return CheckVector(vector, dimension_);
  // The vector is written where it goes and checked and normalised there,
  // with no copy on the way; a bad one is taken back out.
  const auto found = row_of_.find(label);
  const bool present = found != row_of_.end();
  const size_t row = present ? found->second : labels_.size();
  std::vector<float> previous;
  if (present) {
    previous.assign(rows_.begin() + (row * dimension_), rows_.begin() + ((row + 1) * dimension_));
    std::copy(vector.begin(), vector.end(), rows_.begin() + (row * dimension_));
  } else {
    rows_.insert(rows_.end(), vector.begin(), vector.end());
  }
  Status normalized =
      NormalizeInPlace(std::span<float>(rows_.data() + (row * dimension_), dimension_));
  if (!normalized.ok()) {
    if (present) {
      std::copy(previous.begin(), previous.end(), rows_.begin() + (row * dimension_));
    } else {
      rows_.resize(row * dimension_);
    }
    return normalized;
  }
  if (!present) {
    labels_.push_back(label);
    row_of_.emplace(label, row);
  }
  if (KeepsCodes()) {
    codes_.resize(labels_.size() * dimension_);
    code_bounds_.resize(labels_.size());
    code_bounds_[row] =
        CodeRow(std::span<const float>(rows_.data() + (row * dimension_), dimension_),
                codes_.data() + (row * dimension_));
  }
  return Status::OK();
}

FlatIndex::CodeBound FlatIndex::CodeRow(std::span<const float> row, int8_t* codes) {
  CodeBound bound;
  bound.scale = QuantizeInt8(row, codes);
  const CodeLengths lengths = LengthsOf(row, bound.scale, codes);
  bound.error = RoundedUp(lengths.left_out);
  bound.norm = RoundedUp(lengths.coded);
  return bound;
}

FlatIndex::QueryCodes FlatIndex::CodesOfQuery(std::span<const float> query) {
  QueryCodes q;
  q.codes.resize(query.size());
  q.scale = QuantizeQueryCodes(query, q.codes.data());
  const CodeLengths lengths = LengthsOf(query, q.scale, q.codes.data());
  q.error = lengths.left_out;
  q.norm = lengths.whole;
  return q;
}

bool FlatIndex::KeepsCodes() const { return options_.int8_scan && dimension_ <= kMaxInt8Dimension; }

void FlatIndex::MoveRow(size_t from, size_t to) {
  std::copy_n(rows_.begin() + static_cast<std::ptrdiff_t>(from * dimension_), dimension_,
              rows_.begin() + static_cast<std::ptrdiff_t>(to * dimension_));
  labels_[to] = labels_[from];
  if (KeepsCodes()) {
    std::copy_n(codes_.begin() + static_cast<std::ptrdiff_t>(from * dimension_), dimension_,
                codes_.begin() + static_cast<std::ptrdiff_t>(to * dimension_));
    code_bounds_[to] = code_bounds_[from];
  }
}

void FlatIndex::Truncate(size_t rows) {
  labels_.resize(rows);
  rows_.resize(rows * dimension_);
  if (KeepsCodes()) {
    codes_.resize(rows * dimension_);
    code_bounds_.resize(rows);
  }
}

bool FlatIndex::Remove(int64_t label) {
  const auto found = row_of_.find(label);
  if (found == row_of_.end()) return false;
  const size_t row = found->second;
  const size_t last = labels_.size() - 1;
  row_of_.erase(found);
  if (row != last) {
    MoveRow(last, row);
    row_of_[labels_[row]] = row;
  }
  Truncate(last);
  return true;
}

size_t FlatIndex::Prune(const std::function<bool(int64_t)>& keep) {
  // One compacting pass: kept rows slide down over removed ones, in order.
  size_t kept = 0;
  for (size_t row = 0; row < labels_.size(); ++row) {
    const int64_t label = labels_[row];
    if (!keep(label)) {
      row_of_.erase(label);
      continue;
    }
    if (kept != row) {
      MoveRow(row, kept);
      row_of_[label] = kept;
    }
    ++kept;
  }
  const size_t removed = labels_.size() - kept;
  Truncate(kept);
  return removed;
}

size_t FlatIndex::SearchThreads() const {
  const size_t rows = labels_.size();
  if (rows < options_.parallel_min_rows) return 1;
  size_t threads = options_.threads;
  if (threads == 0) threads = std::max<size_t>(1, std::thread::hardware_concurrency());
  return std::max<size_t>(1, std::min(threads, rows / kMinRowsPerThread));
}

void FlatIndex::ScanRows(const float* query, size_t begin, size_t end, size_t k, float min_score,
                         std::vector<ScoredLabel>* heap, float* row_scores) const {
  ScanRowRange(query, rows_.data(), labels_.data(), dimension_, begin, end, k, min_score,
               /*skip=*/nullptr, heap, row_scores);
}

void FlatIndex::ScanCodes(const float* query, const QueryCodes& codes, size_t begin, size_t end,
                          size_t k, float min_score, std::vector<ScoredLabel>* heap) const {
  // Phase 1: each row's score by its codes, with the bound on how far the
  // float score can be (flat_index.h). A row stays a candidate while its
  // upper end reaches the k-th largest lower end so far (`floor`, from the
  // min-heap `lowers`), which only rises; rows still below min_score at
  // their upper end never can be hits.
  const double slack = ScoreSlack(dimension_) * codes.norm;
  struct Candidate {
    size_t row;
    double upper;
  };
  std::vector<Candidate> candidates;
  std::vector<double> lowers;  // a min-heap of the k largest lower ends
  lowers.reserve(std::min(k, end - begin));
  double floor = -std::numeric_limits<double>::infinity();
  std::array<int32_t, kCodeBlockRows> sums{};
  for (size_t block = begin; block < end; block += kCodeBlockRows) {
    const size_t count = std::min(kCodeBlockRows, end - block);
    DotRowsInt8(codes.codes.data(), codes_.data() + (block * dimension_), count, dimension_,
                sums.data());
    for (size_t i = 0; i < count; ++i) {
      const CodeBound& row = code_bounds_[block + i];
      const double approximate = static_cast<double>(sums[i]) * row.scale * codes.scale;
      const double bound = (static_cast<double>(row.norm) * codes.error) +
                           (static_cast<double>(row.error) * codes.norm) + slack;
      const double upper = approximate + bound;
      if (upper < floor || upper < min_score) continue;
      candidates.push_back({block + i, upper});
      const double lower = approximate - bound;
      if (lowers.size() < k) {
        lowers.push_back(lower);
        std::push_heap(lowers.begin(), lowers.end(), std::greater<>());
      } else if (lower > lowers.front()) {
        std::pop_heap(lowers.begin(), lowers.end(), std::greater<>());
        lowers.back() = lower;
        std::push_heap(lowers.begin(), lowers.end(), std::greater<>());
      }
      if (lowers.size() == k) floor = lowers.front();
    }
  }
  // Phase 2: the candidates the final floor leaves, scored exactly as
  // ScanRows scores every row. At least k rows score at least the floor,
  // and every row left out scores below it.
  heap->reserve(std::min(k, end - begin));
  for (const Candidate& candidate : candidates) {
    if (candidate.upper < floor) continue;
    const float score = Dot(query, rows_.data() + (candidate.row * dimension_), dimension_);
    if (score >= min_score) OfferHit({labels_[candidate.row], score}, k, heap);
  }
}

Result<std::vector<ScoredLabel>> FlatIndex::Search(std::span<const float> query, size_t k,
                                                   float min_score) const {
  return Scan(query, k, min_score, nullptr);
}

Result<std::vector<ScoredLabel>> FlatIndex::SearchAndScore(
    std::span<const float> query, size_t k, float min_score, std::span<const int64_t> labels,
    std::vector<std::optional<float>>* scores) const {
  if (KeepsCodes()) {
    // The code scan scores few rows in float: the labels' rows are read
    // apart, in row order, the next one fetched while one is scored.
    ENGRAM_ASSIGN_OR_RETURN(std::vector<ScoredLabel> hits, Scan(query, k, min_score, nullptr));
    ScoreLabels(query.data(), labels, scores);
    return hits;
  }
  std::vector<float> row_scores(labels_.size());
  // k == 0 still scans: the labels want their scores.
  ENGRAM_ASSIGN_OR_RETURN(std::vector<ScoredLabel> hits,
                          Scan(query, std::max<size_t>(k, 1), min_score, row_scores.data()));
  if (k == 0) hits.clear();
  scores->clear();
  scores->reserve(labels.size());
  for (const int64_t label : labels) {
    const auto found = row_of_.find(label);
    scores->push_back(found == row_of_.end() ? std::nullopt
                                             : std::optional<float>(row_scores[found->second]));
  }
  return hits;
}

Result<std::vector<ScoredLabel>> FlatIndex::Scan(std::span<const float> query, size_t k,
                                                 float min_score, float* row_scores) const {
  ENGRAM_RETURN_IF_ERROR(CheckVector(query, dimension_));
  std::vector<ScoredLabel> hits;
  const size_t rows = labels_.size();
  if (k == 0 || rows == 0) return hits;

  // Each slice of rows is scanned in float, or by its codes when the index
  // keeps them (then row_scores is null: SearchAndScore does not ask).
  const bool by_codes = KeepsCodes();
  const QueryCodes codes = by_codes ? CodesOfQuery(query) : QueryCodes{};
  const auto scan = [&](size_t begin, size_t end, std::vector<ScoredLabel>* heap) {
    if (by_codes) {
      ScanCodes(query.data(), codes, begin, end, k, min_score, heap);
    } else {
      ScanRows(query.data(), begin, end, k, min_score, heap, row_scores);
    }
  };

  const size_t threads = SearchThreads();
  if (threads == 1) {
    scan(0, rows, &hits);
    SortHits(k, &hits);
    return hits;
  }

  // Slice i covers rows [i * rows / threads, (i + 1) * rows / threads); the
  // calling thread scans slice 0.
  std::vector<std::vector<ScoredLabel>> heaps(threads);
  std::vector<std::thread> workers;
  workers.reserve(threads - 1);
  const auto slice_begin = [&](size_t i) { return i * rows / threads; };
  for (size_t i = 1; i < threads; ++i) {
    const size_t begin = slice_begin(i);
    const size_t end = slice_begin(i + 1);
    try {
      workers.emplace_back([&scan, &heaps, i, begin, end] { scan(begin, end, &heaps[i]); });
    } catch (const std::system_error&) {
      // No thread to be had: scan this slice here instead.
      scan(begin, end, &heaps[i]);
    }
  }
  scan(0, slice_begin(1), &heaps[0]);
  for (std::thread& worker : workers) worker.join();

  for (const std::vector<ScoredLabel>& heap : heaps)
    hits.insert(hits.end(), heap.begin(), heap.end());
  SortHits(k, &hits);
  return hits;
}

void FlatIndex::ScoreLabels(const float* query, std::span<const int64_t> labels,
                            std::vector<std::optional<float>>* scores) const {
  scores->assign(labels.size(), std::nullopt);
  std::vector<std::pair<size_t, size_t>> rows;  // (row, index into labels)
  rows.reserve(labels.size());
  for (size_t i = 0; i < labels.size(); ++i) {
    const auto found = row_of_.find(labels[i]);
    if (found != row_of_.end()) rows.emplace_back(found->second, i);
  }
  std::sort(rows.begin(), rows.end());
  constexpr size_t kCacheLine = 64;
  const size_t row_bytes = dimension_ * sizeof(float);
  for (size_t j = 0; j < rows.size(); ++j) {
    if (j + 1 < rows.size()) {
      const char* next =
          reinterpret_cast<const char*>(rows_.data() + (rows[j + 1].first * dimension_));
      for (size_t b = 0; b < row_bytes; b += kCacheLine) __builtin_prefetch(next + b);
    }
    (*scores)[rows[j].second] = Dot(query, rows_.data() + (rows[j].first * dimension_), dimension_);
  }
}

std::optional<float> FlatIndex::Score(std::span<const float> query, int64_t label) const {
  if (query.size() != dimension_) return std::nullopt;
  const auto found = row_of_.find(label);
  if (found == row_of_.end()) return std::nullopt;
  return Dot(query.data(), rows_.data() + (found->second * dimension_), dimension_);
}

std::span<const float> FlatIndex::Vector(int64_t label) const {
  const auto found = row_of_.find(label);
  if (found == row_of_.end()) return {};
  return {rows_.data() + (found->second * dimension_), dimension_};
}

std::vector<int64_t> FlatIndex::Labels() const {
  std::vector<int64_t> labels = labels_;
  std::sort(labels.begin(), labels.end());
  return labels;
}

void FlatIndex::Reserve(size_t rows) {
  rows_.reserve(rows * dimension_);
  labels_.reserve(rows);
  row_of_.reserve(rows);
  if (KeepsCodes()) {
    codes_.reserve(rows * dimension_);
    code_bounds_.reserve(rows);
  }
}

size_t FlatIndex::MemoryBytes() const {
  // An unordered_map node holds the pair and a next pointer; each bucket is
  // one pointer.
  constexpr size_t kMapNodeBytes = sizeof(std::pair<const int64_t, size_t>) + sizeof(void*);
  return (rows_.capacity() * sizeof(float)) + (labels_.capacity() * sizeof(int64_t)) +
         (row_of_.size() * kMapNodeBytes) + (row_of_.bucket_count() * sizeof(void*)) +
         codes_.capacity() + (code_bounds_.capacity() * sizeof(CodeBound));
}

}  // namespace engram
