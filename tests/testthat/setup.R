# testthat skips snapshot expectations when it believes it runs on CRAN, i.e. when NOT_CRAN
# is unset in a non-interactive session. The project's runners (make test-r, .ci/run) call
# testthat::test_dir() from Rscript without NOT_CRAN, which would silently skip every error and
# warning snapshot. Runs outside R CMD check are therefore treated as not on CRAN.
if (!nzchar(Sys.getenv("NOT_CRAN")) && !nzchar(Sys.getenv("_R_CHECK_PACKAGE_NAME_"))) {
  Sys.setenv(NOT_CRAN = "true")
  withr::defer(Sys.unsetenv("NOT_CRAN"), teardown_env())
}
