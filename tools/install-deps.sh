#!/usr/bin/env bash
# Installs the system and R packages pjrt needs, skipping what is already there. R packages
# come from Debian (r-cran-*) where Debian has them, otherwise from the package repositories
# R itself is configured with (options("repos"), e.g. set in Rprofile.site); this script
# names no repository of its own.
set -euo pipefail

# libopenblas-openmp-dev: an optimised BLAS and LAPACK that dispatches on the CPU at run time;
# installing it makes it the system BLAS and LAPACK (Debian's alternatives), which R and the
# program runtime call through $(BLAS_LIBS) and $(LAPACK_LIBS). Its OpenMP build shares the runtime's thread pool.
# oneDNN (libdnnl-dev) runs f32 convolutions; its OpenMP build shares libgomp with the package.
# SLEEF (libsleef-dev) computes exp, log, sin and the other transcendentals on vector lanes.
# FFTW (libfftw3-dev) runs stablehlo.fft.
# Open MPI (libopenmpi-dev, openmpi-bin: mpirun) carries collectives between R processes.
APT_PACKAGES=(cmake g++ make googletest libgtest-dev libbenchmark-dev nlohmann-json3-dev
              clang clang-format libclang-rt-14-dev libomp-14-dev python3 valgrind r-base-dev pandoc ccache
              libopenblas-openmp-dev libeigen3-dev pkg-config libdnnl-dev
              libsleef-dev libfftw3-dev libopenmpi-dev openmpi-bin)
# Imports and Suggests (Rmpi: the test that pjrt shares MPI with it), then what `make check` and
# `make site` use.
R_PACKAGES=(cpp11 bit64 cli rlang testthat waldo withr safetensors bench nanoarrow Rmpi
            knitr rmarkdown roxygen2 pkgdown)

sudo_cmd=()
[ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
apt_updated=0

apt_install() {
  if [ "$apt_updated" -eq 0 ]; then
    "${sudo_cmd[@]}" apt-get update -qq
    apt_updated=1
  fi
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -qq "$@"
}

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg -s "$pkg" >/dev/null 2>&1 || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "Installing Debian packages: ${missing[*]}"
  apt_install "${missing[@]}"
fi

# R packages R cannot load yet.
r_missing() {
  Rscript --no-save --no-restore -e '
    wanted <- commandArgs(trailingOnly = TRUE)
    missing <- wanted[!vapply(wanted, requireNamespace, logical(1), quietly = TRUE)]
    if (length(missing) > 0) cat(missing, sep = "\n")
  ' "$@" | grep -v "^$" || true
}

mapfile -t still < <(r_missing "${R_PACKAGES[@]}")
debian=()
for pkg in "${still[@]}"; do
  deb="r-cran-${pkg,,}"
  if apt-cache show "$deb" >/dev/null 2>&1; then debian+=("$deb"); fi
done
if [ ${#debian[@]} -gt 0 ]; then
  echo "Installing Debian packages: ${debian[*]}"
  apt_install "${debian[@]}"
  mapfile -t still < <(r_missing "${R_PACKAGES[@]}")
fi

[ ${#still[@]} -eq 0 ] && exit 0
# Not --vanilla: that would skip the site profile, where the machine's repositories are set.
Rscript --no-save --no-restore - "${still[@]}" <<'RSCRIPT'
wanted <- commandArgs(trailingOnly = TRUE)
repos <- getOption("repos")
repos <- repos[!is.na(repos) & nzchar(repos) & repos != "@CRAN@"]
if (length(repos) == 0) {
  stop("R packages ", paste(wanted, collapse = ", "), " are missing, Debian has no package ",
       "for them, and R has no package repository configured. Set one, e.g. with ",
       "options(repos = c(CRAN = \"<mirror URL>\")) in Rprofile.site, then run this again.",
       call. = FALSE)
}
message("Installing R packages: ", paste(wanted, collapse = ", "),
        " (from ", paste(repos, collapse = ", "), ")")
options(Ncpus = 2)
install.packages(wanted, repos = repos)
failed <- wanted[!vapply(wanted, requireNamespace, logical(1), quietly = TRUE)]
if (length(failed) > 0) stop("Could not install R packages: ", paste(failed, collapse = ", "))
RSCRIPT
