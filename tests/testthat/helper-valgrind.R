# `make valgrind` sets PJRT_VALGRIND. Tests skipped there still run in every ordinary run.
skip_under_valgrind <- function(why = "too slow under valgrind (make valgrind)") {
  skip_if(nzchar(Sys.getenv("PJRT_VALGRIND")), why)
}
