# Many devices: programs that declare a process grid (replicas x partitions) run on several
# devices at once, with their collectives between them.

#' Run a program on several devices at once
#'
#' A program whose module declares `mhlo.num_replicas = R` and `mhlo.num_partitions = P` (as
#' JAX's `pmap` and `shard_map` export them) runs as `R * P` processes, one per device, each
#' with its own arguments; its collectives (`all_reduce`, `all_gather`, `reduce_scatter`,
#' `all_to_all`, `collective_permute`, `collective_broadcast`, `collective_reduce`) combine
#' values between them, and `replica_id` / `partition_id` tell each process where it is.
#' `pjrt_process_grid()` gives the grid a compiled program declares.
#'
#' Process `k` (1-based, replica-major: replica `(k - 1) %/% P`, partition `(k - 1) %% P`, both
#' 0-based as the program sees them) runs on `devices[[k]]` with `args[[k]]`, whose buffers
#' must be on that device. The processes run concurrently, each on its own thread with an
#' equal share of the cores; the call returns when all have finished.
#'
#' This function is pjrt's own: upstream pjrt has no many-device call. It follows PJRT's shape
#' (one argument list per device in, one result list per device out) and JAX's names
#' (replicas, partitions). Nothing is donated in such a run: buffers marked for donation stay
#' usable. [pjrt_shard()] and [pjrt_unshard()] split an R array across devices and gather the
#' pieces back.
#'
#' After [pjrt_distributed_init()], a program whose grid has as many processes as the ranks run
#' devices in all runs across the ranks: `args`, `devices` and the result hold this rank's
#' processes only (its first is process `pjrt_distributed()$first_process + 1`).
#'
#' @section Failures:
#' When a process fails, the collectives its peers are waiting in fail at once, and the error
#' is the first failure's, naming its process (`process (1, 0): ...`). A collective whose peers
#' never arrive (a program that runs fewer collectives on some devices) fails every member after
#' `timeout` seconds, naming the processes that never came. An interrupt (Ctrl-C) while the
#' processes run stops all of them.
#'
#' @param executable A `PJRTLoadedExecutable` from [pjrt_compile()].
#' @param args A list with one element per process: a list of PJRTBuffers (the arguments of
#'   `@main`, in order), or a single PJRTBuffer when `@main` takes one argument.
#' @param devices `NULL` (the first `R * P` devices of the executable's platform, in order) or
#'   a list of distinct PJRTDevices (or device specs such as `"cpu:1"`), one per process.
#' @param simplify When `TRUE` (default), a program with one result gives one buffer per
#'   process; otherwise each process's results are a list.
#' @param timeout Seconds a collective waits for its peers; `NULL` uses the environment
#'   variable `PJRT_COLLECTIVE_TIMEOUT`, else 60.
#' @return A list with one element per process: a PJRTBuffer, or a list of them.
#' @seealso [pjrt_shard()], [pjrt_execute()], `vignette("many-devices", package = "pjrt")`.
#' @examplesIf length(devices("cpu")) >= 2
#' program <- pjrt_program("
#' module @sum attributes {mhlo.num_replicas = 2 : i32} {
#'   func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
#'     %s = \"stablehlo.all_reduce\"(%x) ({
#'     ^bb0(%a: tensor<f32>, %b: tensor<f32>):
#'       %0 = stablehlo.add %a, %b : tensor<f32>
#'       stablehlo.return %0 : tensor<f32>
#'     }) : (tensor<3xf32>) -> tensor<3xf32>
#'     return %s : tensor<3xf32>
#'   }
#' }")
#' executable <- pjrt_compile(program)
#' pjrt_process_grid(executable)
#' pieces <- pjrt_shard(1:6, devices("cpu")[1:2], dtype = "f32")
#' pjrt_execute_sharded(executable, pieces)
#' @export
pjrt_execute_sharded <- function(executable, args, devices = NULL, simplify = TRUE,
                                 timeout = NULL) {
  call <- environment()
  check_executable(executable, call)
  check_bool(simplify, "simplify", call)
  grid <- with_core(ffi_executable_grid(executable), call)
  processes <- local_process_count(grid[[1]] * grid[[2]])
  specs <- process_devices(executable, devices, processes, call)
  lists <- process_arguments(args, processes, call)
  timeout_ms <- check_timeout(timeout, call)
  results <- with_core(ffi_program_execute_processes(executable, lists, specs, timeout_ms), call)
  if (simplify) {
    results <- lapply(results, function(r) if (length(r) == 1L) r[[1L]] else r)
  }
  results
}

#' @rdname pjrt_execute_sharded
#' @return `pjrt_process_grid()`: the integer vector `c(replicas = R, partitions = P)`.
#' @export
pjrt_process_grid <- function(executable) {
  check_executable(executable)
  grid <- with_core(ffi_executable_grid(executable))
  c(replicas = grid[[1]], partitions = grid[[2]])
}

process_devices <- function(executable, devices, processes, call) {
  if (is.null(devices)) {
    available <- devices.default(device(executable)$platform)
    if (length(available) < processes) {
      cli::cli_abort(c(
        "The program runs on {processes} devices, but this session has {length(available)}.",
        i = "Set the environment variable {.envvar PJRT_CPU_DEVICE_COUNT} before pjrt loads for more CPU devices."
      ), call = call)
    }
    devices <- available[seq_len(processes)]
  }
  if (!is.list(devices) || length(devices) != processes) {
    cli::cli_abort(
      "{.arg devices} must be a list of {processes} device{?s}, one per process, not {.obj_type_friendly {devices}}.",
      call = call
    )
  }
  vapply(devices, function(d) device_spec(d, call), character(1))
}

process_arguments <- function(args, processes, call) {
  if (!is.list(args) || inherits(args, "PJRTBuffer") || length(args) != processes) {
    cli::cli_abort(
      "{.arg args} must be a list of {processes} argument list{?s}, one per process, not {.obj_type_friendly {args}}.",
      call = call
    )
  }
  lapply(seq_along(args), function(k) {
    list_k <- if (inherits(args[[k]], "PJRTBuffer")) list(args[[k]]) else args[[k]]
    if (!is.list(list_k)) {
      cli::cli_abort(
        "{.arg args[[{k}]]} must be a list of PJRTBuffers or a PJRTBuffer, not {.obj_type_friendly {list_k}}.",
        call = call
      )
    }
    for (j in seq_along(list_k)) {
      if (!inherits(list_k[[j]], "PJRTBuffer")) {
        cli::cli_abort(
          "Argument {j} of process {k} must be a PJRTBuffer, not {.obj_type_friendly {list_k[[j]]}}.",
          call = call
        )
      }
    }
    unname(list_k)
  })
}

check_timeout <- function(timeout, call) {
  if (is.null(timeout)) return(0)
  if (!is.numeric(timeout) || length(timeout) != 1L || is.na(timeout) || timeout <= 0 ||
      timeout > 1e7) {
    cli::cli_abort(
      "{.arg timeout} must be NULL or a positive number of seconds, not {.obj_type_friendly {timeout}}.",
      call = call
    )
  }
  max(1, round(timeout * 1000))
}

#' Split an R array across devices, and gather it back
#'
#' `pjrt_shard()` cuts `x` into equal blocks along `axis` and makes one buffer of each block on
#' each device, in order: the per-device arguments of [pjrt_execute_sharded()] for
#' data-parallel work. `pjrt_unshard()` reads such buffers back ([as_array()]) and binds them
#' along `axis` into one R array. A vector counts as a one-dimensional array.
#'
#' @param x An R vector, matrix or array.
#' @param devices A list of PJRTDevices (or device specs); `length(devices)` must divide the
#'   extent of `axis`.
#' @param axis The 1-based dimension to split along (or bind along).
#' @param dtype The buffers' dtype, as for [pjrt_buffer()] (`NULL`: from `x`'s type).
#' @param buffers A list of PJRTBuffers (or of one-buffer lists) with equal extents except along
#'   `axis`, such as one result per process from [pjrt_execute_sharded()].
#' @return `pjrt_shard()`: a list of PJRTBuffers, one per device. `pjrt_unshard()`: an R array
#'   (a vector when the pieces are one-dimensional).
#' @examplesIf length(devices("cpu")) >= 2
#' pieces <- pjrt_shard(matrix(1:8, 4), devices("cpu")[1:2], dtype = "i32")
#' pieces
#' pjrt_unshard(pieces)
#' @export
pjrt_shard <- function(x, devices, axis = 1L, dtype = NULL) {
  call <- environment()
  dims <- dim(x) %||% length(x)
  axis <- check_axis(axis, length(dims), call)
  if (!is.list(devices) || length(devices) == 0L) {
    cli::cli_abort("{.arg devices} must be a non-empty list of devices.", call = call)
  }
  n <- length(devices)
  if (dims[[axis]] %% n != 0L) {
    cli::cli_abort(
      "{n} devices cannot split axis {axis} of extent {dims[[axis]]} into equal blocks.",
      call = call
    )
  }
  size <- dims[[axis]] %/% n
  lapply(seq_len(n), function(k) {
    block <- array_block(x, dims, axis, (k - 1L) * size + seq_len(size))
    pjrt_buffer(block, dtype = dtype, device = devices[[k]])
  })
}

#' @rdname pjrt_shard
#' @export
pjrt_unshard <- function(buffers, axis = 1L) {
  call <- environment()
  if (!is.list(buffers) || length(buffers) == 0L) {
    cli::cli_abort("{.arg buffers} must be a non-empty list of PJRTBuffers.", call = call)
  }
  pieces <- lapply(buffers, function(b) {
    if (is.list(b) && length(b) == 1L) b <- b[[1L]]
    if (!inherits(b, "PJRTBuffer")) {
      cli::cli_abort("{.arg buffers} must hold PJRTBuffers, not {.obj_type_friendly {b}}.", call = call)
    }
    as_array(b)
  })
  dims <- lapply(pieces, function(p) dim(p) %||% length(p))
  rank <- length(dims[[1]])
  axis <- check_axis(axis, rank, call)
  for (d in dims) {
    if (length(d) != rank || any(d[-axis] != dims[[1]][-axis])) {
      cli::cli_abort("The pieces must have equal extents except along axis {axis}.", call = call)
    }
  }
  bind_along(pieces, dims, axis)
}

check_axis <- function(axis, rank, call) {
  if (!is.numeric(axis) || length(axis) != 1L || is.na(axis) || axis != round(axis) ||
      axis < 1 || axis > rank) {
    cli::cli_abort(
      "{.arg axis} must be a whole number from 1 to {rank}, not {.obj_type_friendly {axis}}.",
      call = call
    )
  }
  as.integer(axis)
}

# Elements `index` of `x` along `axis`, keeping every dimension (R's `[` with drop = FALSE).
array_block <- function(x, dims, axis, index) {
  if (length(dims) == 1L) return(x[index])
  subscripts <- rep(list(TRUE), length(dims))
  subscripts[[axis]] <- index
  do.call(`[`, c(list(x), subscripts, list(drop = FALSE)))
}

# The pieces bound along `axis`: moved to the last dimension, concatenated, moved back.
bind_along <- function(pieces, dims, axis) {
  rank <- length(dims[[1]])
  if (rank == 1L) return(unlist(pieces, use.names = FALSE))
  order <- c(setdiff(seq_len(rank), axis), axis)
  moved <- lapply(pieces, function(p) aperm(p, order))
  total <- sum(vapply(dims, function(d) d[[axis]], numeric(1)))
  out <- array(unlist(moved, use.names = FALSE), dim = c(dims[[1]][-axis], total))
  aperm(out, order(order))
}
