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

# target directory, target, the tests of it that start threads ('*':
# every test of the target does), and TSAN_OPTIONS of its own, if any.
#
# vector_cache_test builds several hnswlib graphs, each with 65,536 lock
# stripes and a lock per node: past a number of mutexes, TSan's deadlock
# detector loses their identities and reports lock-order cycles with no
# stack, which no suppression can name (hnswlib's one real pattern is
# suppressed in scripts/tsan.supp). It runs with deadlock detection off and
# every race check on; the saver's own locking is checked with it on, in
# index_saver_test.
threaded=(
  "src/common common_test RwLockTest.*:RunBesideTest.*"
  "src/store store_test ReaderPoolTest.*:WalCheckpointerTest.*:FactStoreOpenTest.TwoProcessesCreatingOneStoreBothOpenIt"
  "src/text text_test StemmerTest.ConcurrentThreadsGetConsistentStems:BilingualDictionaryTest.HeadwordsInEveryBucketAreFoundFromAnyThread"
  "src/embed embed_test UseLiteTokenizerGoldenTest.EncodeIsSafeFromManyThreads:UseLiteEncoderTest.ConcurrentCallsGiveTheSameVectors:LoadingEmbedderTest.*:LocalEmbedderTest.AModelLoadedInTheBackgroundEmbedsAsOneLoadedFirst"
  "src/http http_test CurlTransportTest.SeveralThreadsSendAtOnce"
  "src/llm llm_test */RemoteLlmTest.ConcurrentCallsEachGetTheirOwnAnswer/*"
  "src/store store_postgres_test PgStoreTest.WritersOfOneScopeCommitVectorLabelsInTheOrderTheyDrewThem:PgStoreTest.AnUpdateAndAForgetOfTheSameFactBothCommit:PgConnectionTest.AConnectionResetWithoutAnSqlstateIsLostAndUnavailable:PgSchemaTest.AServerMakingTheSchemaHoldsTheOthersUntilItCommits:PgSchemaTest.ServersStartingTogetherAllSucceedAndMakeItOnce"
  "src/engine engine_test FlatAndHnsw/SemanticConcurrencyTest.SearchesRunBesideWritesAndSeeWholeFacts/*:Backends/HydeEngineTest.SearchesDuringReloadsNeverFail/*:Backends/SemanticTest.AThirdEngineSeesEveryVectorTwoOthersWroteAtOnce/*:Backends/SemanticTest.EmbeddingBesideTheMatchSearchesAsEmbeddingFirst/*"
  "src/engine backfill_test *"
  "src/engine access_recorder_test *"
  "src/engine vector_cache_test * detect_deadlocks=0"
  "src/engine index_saver_test *"
  "src/engine lexical_cache_test LexicalCacheTest.SearchesBesideWritesGetIndexesOfTheirOwnSnapshot"
  "src/server server_test HttpServerAuthTest.AnotherAddressNeedsTheTokenOnEveryRequest:HttpServerReloadTest.SwitchingProviderMidRunFailsNoRequest:HttpServerStopTest.StopLetsARequestInFlightFinish"
)

targets=()
for entry in "${threaded[@]}"; do
  read -r _ target _ <<< "$entry"
  targets+=("$target")
done
cmake --build "$build" -j "$jobs" --target "${targets[@]}"

# Tests of the PostgreSQL store run on a throw-away cluster of their own,
# as under ctest (scripts/pg_cluster.sh), stopped at the end.
pg_state=$(mktemp -u /tmp/engram-tsan-pg.XXXXXX)
trap 'scripts/pg_cluster.sh stop "$pg_state"' EXIT
scripts/pg_cluster.sh start "$pg_state"
export ENGRAM_TEST_POSTGRES_STATE=$pg_state

export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$PWD/scripts/tsan.supp"
for entry in "${threaded[@]}"; do
  read -r dir target filter own_options <<< "$entry"
  binary="$build/$dir/$target"
  IFS=: read -r -a names <<< "$filter"
  for name in "${names[@]}"; do
    if ! "$binary" --gtest_filter="$name" --gtest_list_tests | grep -q '^  '; then
      echo "tsan: $target has no test matching '$name'" >&2
      exit 1
    fi
  done
  echo "tsan: $target ($filter${own_options:+; $own_options})"
  TSAN_OPTIONS="$TSAN_OPTIONS${own_options:+:$own_options}" \
    "$binary" --gtest_filter="$filter" --gtest_brief=1
done
