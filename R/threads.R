# The thread count of large conversions, copies and the BLAS (option pjrt.threads,
# PJRT_NUM_THREADS).

#' Threads used by large conversions
#'
#' Converting, copying and reading buffers of more than about a mebibyte runs on several
#' threads; smaller ones always run on the calling thread. `pjrt_threads()` reports how many
#' threads are used and sets that number, as the option `pjrt.threads`.
#'
#' The count comes from, in this order: the option `pjrt.threads`, the environment variable
#' `PJRT_NUM_THREADS`, and otherwise the cores this R process may use (OpenMP's
#' `OMP_NUM_THREADS` and the process's CPU affinity). It never exceeds `OMP_THREAD_LIMIT` or
#' the number of processors. In a process forked from R (`parallel::mclapply()`), the count
#' is always 1.
#'
#' The same count governs the BLAS R links (OpenBLAS, MKL or BLIS, whose thread setters pjrt
#' looks up when the library has them): `pjrt_threads(n)` sets it at once, so R's own matrix
#' products follow it too, and every matrix product in a program sets it from the count in
#' effect before it runs. A batch of small products runs its batches on pjrt's threads with
#' the BLAS on one thread, never threads inside threads.
#'
#' When another process keeps the same cores busy, threads that are not scheduled promptly
#' would make every conversion wait for them; pjrt notices such a wait and runs on the
#' calling thread alone for a while (from a tenth of a second, doubling while the cores stay
#' busy).
#'
#' @section Huge pages:
#' Writing a large new array costs a page fault per 4 KiB page touched. With the environment
#' variable `PJRT_HUGE_PAGES` set to `"1"`, outputs of 4 MiB or more (new buffers and the
#' vectors `as_array()` returns) ask Linux for transparent huge pages (2 MiB), which makes
#' such conversions several times faster when the system has free huge pages at hand. It is
#' off by default: on virtual machines that give free memory back to their host, a huge page
#' touched again after a pause of a few seconds is far slower than the small pages it
#' replaces. The variable is read at each large allocation.
#'
#' @section Recycled memory:
#' Results of 1 MiB or more (the vectors `as_array()`, `as_raw()` and `collect()` return), and
#' buffers of that size (including what programs make and drop while they run), take their
#' memory from blocks pjrt keeps after earlier results and buffers have died: a block within a
#' quarter above the size needed is reused, its pages already mapped, so refilling it runs at
#' memory speed instead of paying a page fault per 4 KiB. At most 1 GiB is kept (256 blocks);
#' a block unused for 10 seconds is returned to the system at the next large allocation or
#' collection (nothing runs in the background, so an idle session may hold up to that much
#' until then). The environment variable `PJRT_RECYCLE_MB` sets the limit in MiB (`0` keeps
#' nothing); it is read whenever such a block is given back. A process forked from R never reuses
#' its parent's blocks.
#'
#' R does not count such results in the heap size that triggers its garbage collections, so
#' pjrt keeps the count: when the live ones would pass what survived the last collection plus
#' as much again (at least 1 GiB), it asks R for a collection first, as R itself would.
#'
#' @section Buffer memory:
#' The memory of buffers pjrt allocates on the host (conversions, program results) is not R's
#' either: it is freed as soon as R collects the last buffer using it. pjrt counts it and asks
#' for a collection once it has grown by as much as is live (R's heap included, at least 256
#' MiB), as R does for its own heap, so a loop that replaces a large buffer holds about what the
#' same loop over R vectors holds. Buffers that alias R vectors or map files
#' use no such memory.
#'
#' @param threads `NULL` (the default) to only report the count; a whole number >= 1 to set
#'   it; `0` to go back to the environment variable or the default.
#' @return The number of threads large operations use. When setting, the number used before,
#'   invisibly.
#' @export
#' @examples
#' pjrt_threads()
#' old <- pjrt_threads(1)
#' pjrt_threads()
#' pjrt_threads(old)
pjrt_threads <- function(threads = NULL) {
  check_thread_sources()
  old <- with_core(ffi_threads())
  if (is.null(threads)) return(old)
  if (!is_number(threads)) {
    cli::cli_abort("{.arg threads} must be a whole number >= 0 or NULL, not {.obj_type_friendly {threads}}.")
  }
  if (threads < 0 || threads != trunc(threads)) {
    cli::cli_abort("{.arg threads} must be a whole number >= 0 or NULL, not {threads}.")
  }
  options(pjrt.threads = if (threads == 0) NULL else as.integer(min(threads, .Machine$integer.max)))
  with_core(ffi_blas_threads(TRUE))
  invisible(old)
}

# The option and the environment variable, when set, must be positive whole numbers (the
# loops that read them ignore anything else).
check_thread_sources <- function(call = caller_env()) {
  option <- getOption("pjrt.threads")
  if (!is.null(option) && !(is_number(option) && option >= 1 && option == trunc(option))) {
    cli::cli_abort("Option {.code pjrt.threads} must be a whole number >= 1, not {.obj_type_friendly {option}}.",
                   call = call)
  }
  variable <- Sys.getenv("PJRT_NUM_THREADS")
  if (nzchar(variable) && !grepl("^[0-9]*[1-9][0-9]*$", variable)) {
    cli::cli_abort("Environment variable {.envvar PJRT_NUM_THREADS} must be a whole number >= 1, not {.val {variable}}.",
                   call = call)
  }
}
