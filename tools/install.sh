#!/usr/bin/env bash
# Installs pjrt (clean objects, compiled with $JOBS jobs) and harmonium into R's first library,
# unless that library already holds both, built from exactly these sources by this R: then it
# says so and returns at once, so `make demo`, `make test` and `make site` each build once.
# src/Makevars is left out of the fingerprint: `configure` writes it during the install.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build
library=$(Rscript --vanilla -e 'cat(.libPaths()[1])')
fingerprint=$({
  echo "$library"
  R --version | head -n 1
  find DESCRIPTION NAMESPACE configure R src inst harmonium -type f \
    ! -name '*.o' ! -name '*.so' ! -name '*.dll' ! -path src/Makevars -print0 | sort -z |
    xargs -0 sha1sum
} | sha1sum | cut -c1-40)
stamp=build/installed.sha1
if [[ -f $stamp && $(cat "$stamp") == "$fingerprint" ]] &&
  Rscript --vanilla -e 'invisible(find.package(c("pjrt", "harmonium")))' >/dev/null 2>&1; then
  echo "pjrt is installed and up to date in $library"
  exit 0
fi
rm -f "$stamp"
if ! MAKEFLAGS=-j"${JOBS:-2}" R CMD INSTALL --preclean --no-multiarch . >build/install.log 2>&1 ||
  ! R CMD INSTALL harmonium >>build/install.log 2>&1; then
  cat build/install.log
  exit 1
fi
echo "$fingerprint" >"$stamp"
echo "pjrt installed in $library"
