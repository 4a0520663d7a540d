# Child processes for tests whose failure could crash or hang the R session running them.

# `expr`'s value, computed in a forked child; "timeout" when it runs past `timeout` seconds
# (the child is killed) and "died" when the child ends without a value (a fatal signal).
in_fork <- function(expr, timeout = 60) {
  job <- parallel::mcparallel(expr, silent = TRUE)
  done <- parallel::mccollect(job, wait = FALSE, timeout = timeout)
  if (is.null(done)) {
    tools::pskill(job$pid, tools::SIGKILL)
    parallel::mccollect(job, wait = TRUE)
    return("timeout")
  }
  value <- done[[1]]
  if (is.null(value)) "died" else value
}
