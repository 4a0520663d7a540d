# Sourced by tools/install.sh and the Makefile's R package builds: where ccache is installed, R
# compiles through it (a user Makevars, build/ccache.mk, that puts ccache before R's compilers and
# includes the user's own Makevars). Objects are cached by content, not by folder
# (CCACHE_NOHASHDIR: R compiles with -g, which would otherwise key them on the folder), so the
# tarball R CMD build makes, unpacked in a new temporary folder each time, still hits the cache.
if command -v ccache >/dev/null 2>&1 && [[ ${R_MAKEVARS_USER:-} != */build/ccache.mk ]]; then
  export CCACHE_NOHASHDIR=true
  user_makevars=${R_MAKEVARS_USER:-$HOME/.R/Makevars}
  {
    [[ -f $user_makevars ]] && echo "include $user_makevars"
    for compiler in CC CXX CXX17; do
      echo "$compiler = ccache $(R CMD config "$compiler")"
    done
  } >build/ccache.mk
  export R_MAKEVARS_USER=$PWD/build/ccache.mk
fi
