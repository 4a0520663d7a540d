#!/usr/bin/env bash
# Installs the system and R packages pjrt needs, skipping what is already there.
set -euo pipefail

APT_PACKAGES=(cmake g++ make googletest libgtest-dev libbenchmark-dev nlohmann-json3-dev
              clang libclang-rt-14-dev valgrind r-base-dev)
R_PACKAGES=(cpp11 bit64 cli rlang testthat waldo withr safetensors bench)

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing Debian packages: ${missing[*]}"
  "${sudo_cmd[@]}" apt-get update -qq
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "${missing[@]}"
fi

Rscript --vanilla - "${R_PACKAGES[@]}" <<'RSCRIPT'
wanted <- commandArgs(trailingOnly = TRUE)
have <- rownames(installed.packages())
missing <- setdiff(wanted, have)
if (length(missing) > 0) {
  message("Installing R packages: ", paste(missing, collapse = ", "))
  options(Ncpus = 2)
  install.packages(missing, repos = "https://cloud.r-project.org")
}
still <- setdiff(wanted, rownames(installed.packages()))
if (length(still) > 0) stop("Could not install R packages: ", paste(still, collapse = ", "))
RSCRIPT
