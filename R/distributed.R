# Runs spread over several R processes (ranks) that MPI launched: each runs the processes of a
# program's grid on its own devices, and the collectives cross between ranks through MPI.

# Set once MPI is joined: its finalizer ends MPI when R exits, where pjrt started it.
distributed_state <- new.env(parent = emptyenv())

#' Run programs across R processes with MPI
#'
#' Started under `mpirun` (`mpirun -np 4 Rscript train.R`), each R process is one MPI *rank*.
#' `pjrt_distributed_init()` joins the ranks: each says how many CPU devices it runs, and the
#' grid of a many-device program (see [pjrt_execute_sharded()]) is spread over all of them, rank
#' 0's devices first. A program compiled for as many processes as the ranks have devices in all
#' then runs across them: every rank calls [pjrt_execute_sharded()] with the arguments of its own
#' processes only and gets their results, and the collectives (`all_reduce`, `all_gather`, ...)
#' travel between ranks through MPI (where a collective spans every rank with one device each,
#' a gather runs as `MPI_Allgather` and a fold as a ring of point-to-point messages; other
#' exchanges are point-to-point messages).
#' `pjrt_distributed()` tells where this process stands.
#'
#' MPI that another package already initialised in this R process (pbdMPI, Rmpi) is shared,
#' never initialised twice, and left for that package to finalise; otherwise pjrt initialises
#' MPI here and finalises it when R exits. pjrt makes one MPI call at a time, so MPI started by
#' another package with any thread level serves it. This is pjrt's own API: upstream pjrt has
#' no multi-process runs.
#'
#' @section Failures:
#' Every wait between ranks is bounded by `timeout` (at initialisation) and by the collective
#' timeout of the run (`timeout` of [pjrt_execute_sharded()], else the environment variable
#' `PJRT_COLLECTIVE_TIMEOUT`, else 60 seconds). A rank that died, exited or runs fewer
#' collectives makes the others fail with an error naming the ranks they waited for; ranks
#' that compiled different programs fail at the first run of that program, naming them. An
#' exchange that failed cannot be cancelled inside MPI, so after such an error every later
#' collective across ranks fails at once: end the job and start it again. By default `mpirun`
#' itself ends every rank as soon as one dies; start it with `--enable-recovery` (Open MPI) to
#' let the survivors report the failure themselves.
#'
#' @param devices How many CPU devices this rank runs (they must exist: see
#'   `PJRT_CPU_DEVICE_COUNT`). Ranks may run different numbers.
#' @param timeout Seconds to wait for every rank to join; `NULL` uses
#'   `PJRT_COLLECTIVE_TIMEOUT`, else 60.
#' @return A list: `active` (whether this process joined its ranks), `rank` (0-based, as MPI
#'   numbers ranks), `size` (how many ranks), `devices` (an integer vector: how many devices
#'   each rank runs), `first_process` (0-based: the grid process of this rank's first device)
#'   and `mpi` (whether this build of pjrt has MPI). `pjrt_distributed_init()` returns it
#'   invisibly.
#' @seealso `vignette("many-devices", package = "pjrt")`, whose section "Across R processes with
#'   MPI" runs a training loop across ranks, and its script
#'   `system.file("examples", "mpi_sgd.R", package = "pjrt")`.
#' @examples
#' pjrt_distributed()$active
#' \dontrun{
#' # Run as: mpirun -np 2 Rscript script.R
#' info <- pjrt_distributed_init()
#' info$rank
#' }
#' @export
pjrt_distributed_init <- function(devices = 1L, timeout = NULL) {
  call <- environment()
  if (!is.numeric(devices) || length(devices) != 1L || is.na(devices) ||
      devices != round(devices) || devices < 1 || devices > 65536) {
    cli::cli_abort(
      "{.arg devices} must be a whole number of devices from 1, not {.obj_type_friendly {devices}}.",
      call = call
    )
  }
  available <- length(devices.default("cpu"))
  if (devices > available) {
    cli::cli_abort(c(
      "This rank cannot run {devices} devices: this session has {available} CPU device{?s}.",
      i = "Set the environment variable {.envvar PJRT_CPU_DEVICE_COUNT} before pjrt loads for more."
    ), call = call)
  }
  timeout_ms <- check_timeout(timeout, call)
  info <- with_core(ffi_distributed_init(as.integer(devices), timeout_ms), call)
  if (is.null(distributed_state$ender)) {
    distributed_state$ender <- new.env(parent = emptyenv())
    reg.finalizer(distributed_state$ender, function(e) ffi_distributed_end(), onexit = TRUE)
  }
  invisible(info)
}

#' @rdname pjrt_distributed_init
#' @export
pjrt_distributed <- function() {
  with_core(ffi_distributed_info())
}

# How many of a grid's `processes` run in this R process: all of them, or this rank's share
# when the ranks run exactly that many devices in all.
local_process_count <- function(processes) {
  info <- ffi_distributed_info()
  if (isTRUE(info$active) && info$size > 1L && sum(info$devices) == processes) {
    return(info$devices[[info$rank + 1L]])
  }
  processes
}
