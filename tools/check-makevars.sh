#!/usr/bin/env bash
# Fails when src/Makevars.in's object lists and the C++ sources differ: a source file missing from
# the list would be left out of the R build silently (until a symbol is missing at load time).
set -euo pipefail
cd "$(dirname "$0")/../src"
listed=$(sed -n '/^[A-Z_]*OBJECTS = \\$/,/[^\\]$/p' Makevars.in | tr ' \\' '\n\n' |
  grep '\.o$' | sed 's/\.o$/.cpp/' | sort)
present=$( (ls ./*.cpp; find core/base core/memory core/convert core/format core/harray core/io core/program -name "*.cpp") |
  sed 's|^\./||' | sort)
if [ "$listed" != "$present" ]; then
  echo "src/Makevars.in does not list exactly the C++ sources:" >&2
  diff <(echo "$listed") <(echo "$present") >&2 || true
  exit 1
fi
echo "src/Makevars.in lists all $(echo "$present" | wc -l) C++ sources"
