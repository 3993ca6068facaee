// IndexSaver with a recording save function: when saves come, how a save
// that was cancelled or failed is tried again, and what SaveAllNow does. `make
// test` also runs this target under ThreadSanitizer.
#include "src/engine/index_saver.h"

#include <gtest/gtest.h>

#include <chrono>
#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace engram {
namespace {

using std::chrono::milliseconds;
using std::chrono::steady_clock;

// Records each call and answers with the next scripted status (OK when the
// script has run out).
class RecordingSave {
 public:
  struct Call {
    std::string scope;
    steady_clock::time_point began;
    steady_clock::time_point ended;
  };

  // Each save takes `take` (slept before it answers).
  IndexSaver::Save Function(milliseconds take = milliseconds(0)) {
    return [this, take](const std::string& scope) {
      const steady_clock::time_point began = steady_clock::now();
      std::this_thread::sleep_for(take);
      std::lock_guard lock(mutex_);
      calls_.push_back({scope, began, steady_clock::now()});
      Status answer = Status::OK();
      if (!script_.empty()) {
        answer = script_.front();
        script_.erase(script_.begin());
      }
      called_.notify_all();
      return answer;
    };
  }
  void Script(std::vector<Status> answers) {
    std::lock_guard lock(mutex_);
    script_ = std::move(answers);
  }
  // Waits up to 30 s for `n` calls in all; the calls so far.
  std::vector<Call> WaitFor(size_t n) {
    std::unique_lock lock(mutex_);
    called_.wait_for(lock, std::chrono::seconds(30), [&] { return calls_.size() >= n; });
    return calls_;
  }
  std::vector<Call> Calls() {
    std::lock_guard lock(mutex_);
    return calls_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable called_;
  std::vector<Call> calls_;
  std::vector<Status> script_;
};

TEST(IndexSaverTest, ABurstOfChangesIsOneSaveAfterTheDelay) {
  RecordingSave save;
  IndexSaver saver(save.Function(), /*delay_ms=*/50);
  const auto start = steady_clock::now();
  for (int i = 0; i < 5; ++i) saver.Changed("a");
  saver.Changed("b");
  EXPECT_EQ(saver.Pending(), 2u);
  const std::vector<RecordingSave::Call> calls = save.WaitFor(2);
  EXPECT_GE(steady_clock::now() - start, milliseconds(50));
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].scope, "a");
  EXPECT_EQ(calls[1].scope, "b");
  saver.Stop();
  EXPECT_EQ(save.Calls().size(), 2u) << "each scope saved once";
  EXPECT_EQ(saver.Pending(), 0u);

  // Stopped, it starts no thread: a change waits for SaveAllNow.
  saver.Changed("c");
  std::this_thread::sleep_for(milliseconds(200));
  EXPECT_EQ(save.Calls().size(), 2u);
  EXPECT_TRUE(saver.SaveAllNow().ok());
  EXPECT_EQ(save.Calls().size(), 3u);
}

TEST(IndexSaverTest, ACancelledSaveIsTriedAgainAndIsNoProblem) {
  RecordingSave save;
  save.Script({Cancelled("index replaced"), Cancelled("index replaced")});
  IndexSaver saver(save.Function(), /*delay_ms=*/1);
  saver.Changed("a");
  const std::vector<RecordingSave::Call> calls = save.WaitFor(3);
  ASSERT_EQ(calls.size(), 3u);
  for (const RecordingSave::Call& call : calls) EXPECT_EQ(call.scope, "a");
  saver.Stop();
  EXPECT_EQ(saver.Pending(), 0u);
  EXPECT_FALSE(saver.TakeProblem().has_value()) << "a cancelled save is no problem";
}

// A save that took t keeps the scope's next one off for kRestFactor x t,
// however soon the scope changes again, even while the save ran.
TEST(IndexSaverTest, AScopeRestsInProportionToItsLastSave) {
  RecordingSave save;
  const milliseconds take(40);
  IndexSaver saver(save.Function(take), /*delay_ms=*/1);
  saver.Changed("a");
  ASSERT_EQ(save.WaitFor(1).size(), 1u);
  saver.Changed("a");
  const std::vector<RecordingSave::Call> calls = save.WaitFor(2);
  ASSERT_EQ(calls.size(), 2u);
  const auto rest = calls[1].began - calls[0].ended;
  EXPECT_GE(rest, IndexSaver::kRestFactor * (calls[0].ended - calls[0].began));
  EXPECT_GE(rest, IndexSaver::kRestFactor * take);
  saver.Stop();
  EXPECT_EQ(saver.Pending(), 0u);
}

TEST(IndexSaverTest, AFailedSaveIsReportedOnceAndTriedAgain) {
  RecordingSave save;
  save.Script({IOError("disk full")});
  IndexSaver saver(save.Function(), /*delay_ms=*/1);
  saver.Changed("a");
  ASSERT_EQ(save.WaitFor(2).size(), 2u);
  saver.Stop();
  const std::optional<std::string> problem = saver.TakeProblem();
  ASSERT_TRUE(problem.has_value());
  EXPECT_EQ(*problem, "disk full");
  EXPECT_FALSE(saver.TakeProblem().has_value());
  EXPECT_EQ(saver.Pending(), 0u);
}

TEST(IndexSaverTest, SaveAllNowSavesWhatWaits) {
  RecordingSave save;
  IndexSaver saver(save.Function(), /*delay_ms=*/3600000);
  saver.Changed("b");
  saver.Changed("a");
  save.Script({Status::OK(), IOError("read-only")});
  const Status all = saver.SaveAllNow();
  EXPECT_EQ(all.code(), StatusCode::kIOError);
  const std::vector<RecordingSave::Call> calls = save.Calls();
  ASSERT_EQ(calls.size(), 2u);
  EXPECT_EQ(calls[0].scope, "a");
  EXPECT_EQ(calls[1].scope, "b");
  EXPECT_EQ(saver.Pending(), 1u) << "the failed one waits";
  EXPECT_TRUE(saver.SaveAllNow().ok());
  EXPECT_EQ(save.Calls().size(), 3u);
  EXPECT_EQ(saver.Pending(), 0u);
}

}  // namespace
}  // namespace engram
