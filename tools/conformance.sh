#!/usr/bin/env bash
# Runs the StableHLO interpreter's conformance files (a folder of .mlir files split on
# `// -----`, e.g. stablehlo/tests/interpret from the StableHLO repository) on our runtime:
# per-file counts of passed / failed / unsupported functions and the first error of each.
# Usage: tools/conformance.sh FOLDER [FILE-PATTERN]
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
folder="${1:?usage: tools/conformance.sh FOLDER [FILE-PATTERN]}"
pattern="${2:-*.mlir}"
build="$root/build/core"
[ -f "$build/Makefile" ] || cmake -S "$root/src/core" -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$build" -j"${JOBS:-2}" --target ndbuf_conformance >/dev/null
find "$folder" -maxdepth 1 -name "$pattern" | sort | xargs "$build/ndbuf_conformance"
