#!/usr/bin/env bash
# Runs a GoogleTest binary in SHARDS processes at once (GoogleTest's own sharding), each
# running its share of the tests in one process, prints each shard's output, and fails if any
# shard failed. One process per shard instead of ctest's one per test: under the sanitizers a
# process start costs about half a second, paid 900 times over by ctest.
#   tools/gtest-shards.sh SHARDS BINARY [ARGS...]
set -uo pipefail
shards=$1
binary=$2
shift 2
logs=$(mktemp -d)
pids=()
for ((index = 0; index < shards; index++)); do
  GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$index "$binary" --gtest_brief=1 "$@" \
    >"$logs/$index" 2>&1 &
  pids+=($!)
done
status=0
for ((index = 0; index < shards; index++)); do
  wait "${pids[$index]}" || status=1
  echo "== $(basename "$binary"), shard $((index + 1)) of $shards"
  cat "$logs/$index"
done
rm -rf "$logs"
exit $status
