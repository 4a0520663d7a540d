#!/usr/bin/env bash
# Installs pjrt as users get it: `R CMD build` makes the source package (vignettes included),
# tools/check-tarball.R checks that it holds every file of ours, and `R CMD INSTALL` installs
# that tarball, compiled with $JOBS jobs; then harmonium. Returns at once when R's first library
# already holds both, built from exactly these sources by this R, so `make demo`, `make test` and
# `make site` each build once. Where ccache is installed the compiler runs through it
# (tools/ccache-env.sh), so a rebuild of unchanged sources takes seconds.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
library=$(Rscript --vanilla -e 'cat(.libPaths()[1])')
fingerprint=$({
  echo "$library"
  R --version | head -n 1
  find DESCRIPTION NAMESPACE .Rbuildignore configure cleanup R src inst man vignettes harmonium \
    -type f ! -name '*.o' ! -name '*.so' ! -name '*.dll' ! -path src/Makevars -print0 |
    sort -z | xargs -0 sha1sum
} | sha1sum | cut -c1-40)
stamp=build/installed.sha1
if [[ -f $stamp && $(cat "$stamp") == "$fingerprint" ]] &&
  Rscript --vanilla -e 'invisible(find.package(c("pjrt", "harmonium")))' >/dev/null 2>&1; then
  echo "pjrt is installed and up to date in $library"
  exit 0
fi
rm -f "$stamp"
# shellcheck source=tools/ccache-env.sh
source tools/ccache-env.sh
export MAKEFLAGS=-j"${JOBS:-2}"

# R CMD build copies the whole folder before it applies .Rbuildignore, build/ included, so it
# reads a copy of the sources without build outputs.
stage=build/package/pjrt
rm -rf build/package build/pjrt_*.tar.gz
mkdir -p "$stage"
tar --exclude=./build --exclude=./.git --exclude='*.o' --exclude='*.so' --exclude=./src/Makevars \
  -cf - . | tar -xf - -C "$stage"
log=$PWD/build/install.log
if ! (cd build && R CMD build package/pjrt) >"$log" 2>&1; then
  cat "$log"
  echo "R CMD build failed (log above)" >&2
  exit 1
fi
tarball=$(ls build/pjrt_*.tar.gz)
Rscript --vanilla tools/check-tarball.R "$tarball"
if ! R CMD INSTALL --no-multiarch "$tarball" >>"$log" 2>&1 ||
  ! R CMD INSTALL harmonium >>"$log" 2>&1; then
  cat "$log"
  exit 1
fi
echo "$fingerprint" >"$stamp"
echo "pjrt installed in $library from $tarball"
