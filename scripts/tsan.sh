#!/usr/bin/env bash
# Runs every test that starts threads again under ThreadSanitizer, in a tree
# configured with -DENGRAM_SANITIZE_THREAD=ON: builds the test targets that
# hold them, then runs each target with a filter naming its threaded tests.
# A name in a filter that matches no test (a test renamed or gone) is an
# error, so no test drops out unseen. Stops at the first race or failure.
# scripts/tsan.supp lists what is suppressed, and why.
#
# Usage: scripts/tsan.sh BUILD_DIR [JOBS]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:?usage: scripts/tsan.sh BUILD_DIR [JOBS]}
jobs=${2:-$(nproc)}

# target directory, target, and the tests of it that start threads
# ('*': every test of the target does).
threaded=(
  "src/common common_test RwLockTest.*"
  "src/store store_test ReaderPoolTest.*:FactStoreOpenTest.TwoProcessesCreatingOneStoreBothOpenIt"
  "src/text text_test StemmerTest.ConcurrentThreadsGetConsistentStems:BilingualDictionaryTest.HeadwordsInEveryBucketAreFoundFromAnyThread"
  "src/embed embed_test UseLiteTokenizerGoldenTest.EncodeIsSafeFromManyThreads:UseLiteEncoderTest.ConcurrentCallsGiveTheSameVectors"
  "src/http http_test CurlTransportTest.SeveralThreadsSendAtOnce"
  "src/llm llm_test */RemoteLlmTest.ConcurrentCallsEachGetTheirOwnAnswer/*"
  "src/engine engine_test FlatAndHnsw/SemanticConcurrencyTest.SearchesRunBesideWritesAndSeeWholeFacts/*:HydeEngineTest.SearchesDuringReloadsNeverFail"
  "src/engine backfill_test *"
  "src/engine access_recorder_test *"
  "src/engine vector_cache_test *"
  "src/server server_test HttpServerAuthTest.AnotherAddressNeedsTheTokenOnEveryRequest:HttpServerReloadTest.SwitchingProviderMidRunFailsNoRequest:HttpServerStopTest.StopLetsARequestInFlightFinish"
)

targets=()
for entry in "${threaded[@]}"; do
  read -r _ target _ <<< "$entry"
  targets+=("$target")
done
cmake --build "$build" -j "$jobs" --target "${targets[@]}"

export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/scripts/tsan.supp"
for entry in "${threaded[@]}"; do
  read -r dir target filter <<< "$entry"
  binary="$build/$dir/$target"
  IFS=: read -r -a names <<< "$filter"
  for name in "${names[@]}"; do
    if ! "$binary" --gtest_filter="$name" --gtest_list_tests | grep -q '^  '; then
      echo "tsan: $target has no test matching '$name'" >&2
      exit 1
    fi
  done
  echo "tsan: $target ($filter)"
  "$binary" --gtest_filter="$filter" --gtest_brief=1
done
