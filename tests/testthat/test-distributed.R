# Programs across R processes through MPI: every collective across 2 and 3 ranks (and 2 ranks of
# 2 devices) at every dtype it allows, against values computed here; the training example's
# figures from 1 process x 2 devices, 2 ranks and 4 ranks, against the same loop in base R; a
# rank killed mid-loop; ranks that compiled different programs; MPI started by Rmpi. The runs start `mpirun` with
# the scripts in tests/testthat/mpi (skipped where mpirun or pjrt's MPI is missing).

test_that("a process that joined no ranks says so", {
  info <- pjrt_distributed()
  expect_false(info$active)
  expect_identical(info$rank, 0L)
  expect_identical(info$size, 1L)
  expect_identical(info$devices, integer())
  expect_type(info$mpi, "logical")
})

test_that("pjrt_distributed_init() checks its arguments before it joins", {
  # The session's device count depends on how the suite runs.
  sessions_devices <- function(lines) sub("has [0-9]+ CPU devices?", "has N CPU devices", lines)
  expect_snapshot(error = TRUE, transform = sessions_devices, {
    pjrt_distributed_init(devices = 0)
    pjrt_distributed_init(devices = 1.5)
    pjrt_distributed_init(devices = 10000)
    pjrt_distributed_init(timeout = -1)
  })
  expect_false(pjrt_distributed()$active)
})

skip_without_mpi <- function() {
  skip_on_cran()
  skip_under_valgrind()
  skip_if_not(pjrt_distributed()$mpi, "this build of pjrt has no MPI")
  skip_if(!nzchar(Sys.which("mpirun")), "mpirun is not installed")
}

mpi_script <- function(name) test_path("mpi", name)
example_script <- function() system.file("examples", "mpi_sgd.R", package = "pjrt")

# Runs `args` under mpirun with `ranks` ranks (Rscript alone when `ranks` is NULL), the R
# libraries of this session, and `env`; returns its output lines, status and seconds taken.
run_ranks <- function(ranks, args, env = character(), mpirun_args = character()) {
  libs <- paste(.libPaths(), collapse = .Platform$path.sep)
  env <- c(paste0("R_LIBS=", libs), "OMPI_ALLOW_RUN_AS_ROOT=1",
           "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1", "OMPI_MCA_rmaps_base_oversubscribe=1", env)
  rscript <- file.path(R.home("bin"), "Rscript")
  command <- if (is.null(ranks)) rscript else "mpirun"
  full <- if (is.null(ranks)) args else
    c(mpirun_args, "-np", ranks, "-x", "R_LIBS", "-x", "PJRT_COLLECTIVE_TIMEOUT", rscript, args)
  seconds <- system.time(
    out <- suppressWarnings(system2(command, full, stdout = TRUE, stderr = TRUE, env = env))
  )[["elapsed"]]
  status <- attr(out, "status") %||% 0L
  # mpirun warns of variables -x names that are unset.
  out <- grep("could not find environment variable", out, value = TRUE, invert = TRUE)
  list(lines = out, status = status, seconds = seconds)
}

# What process p's collectives give: the processes q = 0 .. n - 1 move x = (1:12) + 10 * q
# and fold y = (0:11) %% 3 + 1 + q %% 2 (mpi/collectives.R).
expected_collectives <- function(dtype, fold_names, n, p) {
  as_type <- function(v, folded) {
    if (dtype == "pred") return(if (folded) v %% 2 == 1 else v %% 3 != 0)
    if (dtype %in% c("c64", "c128")) return(complex(real = v, imaginary = -v))
    v
  }
  x <- lapply(0:(n - 1), function(q) as_type((1:12) + 10 * q, FALSE))
  y <- lapply(0:(n - 1), function(q) as_type((0:11) %% 3 + 1 + q %% 2, TRUE))
  fold <- function(f) Reduce(function(a, b) {
    switch(f, sum = a + b, prod = a * b, max = pmax(a, b), min = pmin(a, b),
           and = if (is.logical(a)) a & b else bitwAnd(a, b),
           or = if (is.logical(a)) a | b else bitwOr(a, b))
  }, y)
  block <- 12 %/% n
  out <- lapply(fold_names, fold)
  out <- c(out, list(unlist(x)))                      # all_gather
  out <- c(out, list(x[[(p - 1) %% n + 1]]))         # collective_permute from p - 1
  out <- c(out, list(x[[n]]))                         # broadcast from process n - 1
  if (dtype != "pred") {
    out <- c(out, list(fold("sum")[p * block + seq_len(block)]))  # reduce_scatter
  }
  out <- c(out, list(unlist(lapply(x, function(v) v[p * block + seq_len(block)]))))  # all_to_all
  c(out, list(p))                                     # replica_id
}

check_collective_run <- function(ranks, per_rank) {
  out_dir <- withr::local_tempdir()
  run <- run_ranks(ranks, c(mpi_script("collectives.R"), out_dir, per_rank))
  expect_identical(run$status, 0L, info = paste(run$lines, collapse = "\n"))
  n <- ranks * per_rank
  for (rank in 0:(ranks - 1)) {
    saved <- readRDS(file.path(out_dir, sprintf("rank-%d.rds", rank)))
    expect_identical(saved$size, ranks)
    expect_identical(saved$first, rank * per_rank)
    for (dtype in names(saved$results)) {
      for (k in seq_len(per_rank)) {
        p <- saved$first + k - 1L
        got <- lapply(saved$results[[dtype]][[k]], function(v) {
          as.vector(if (inherits(v, "integer64")) as.numeric(v) else v)
        })
        want <- expected_collectives(dtype, saved$folds[[dtype]], n, p)
        expect_equal(got, want, info = sprintf("%s, process %d of %d", dtype, p, n),
                     ignore_attr = TRUE)
      }
    }
  }
}

test_that("every collective crosses 2 and 3 ranks at every dtype", {
  skip_without_mpi()
  check_collective_run(2L, 1L)
  check_collective_run(3L, 1L)
})

test_that("collectives cross 2 ranks of 2 devices each", {
  skip_without_mpi()
  check_collective_run(2L, 2L)
})

# The example's loop in base R: the loss before the last of `steps` gradient steps.
base_r_training_loss <- function(steps = 300L) {
  rows <- 1024L
  features <- 8L
  set.seed(42)
  x <- cbind(matrix(rnorm(rows * features), rows, features), 1)
  true_w <- c(seq(-1, 1, length.out = features), 0.25)
  y <- as.numeric(runif(rows) < plogis(x %*% true_w))
  w <- numeric(features + 1L)
  for (i in seq_len(steps)) {
    p <- as.vector(plogis(x %*% w))
    loss <- -mean(y * log(p) + (1 - y) * log(1 - p))
    w <- w - 0.5 / rows * as.vector(crossprod(x, p - y))
  }
  list(loss = loss, checksum = sum(w * seq_along(w)))
}

figures <- function(lines) {
  loss <- sub("^final loss: ", "", grep("^final loss: ", lines, value = TRUE))
  checksum <- sub("^checksum: ", "", grep("^checksum: ", lines, value = TRUE))
  c(loss = loss, checksum = checksum)
}

test_that("the training example prints the same figures on 2 devices, 2 ranks and 4 ranks", {
  skip_without_mpi()
  one_process <- run_ranks(NULL, c(example_script(), "--devices", "2"))
  two_ranks <- run_ranks(2L, example_script())
  four_ranks <- run_ranks(4L, example_script())
  for (run in list(one_process, two_ranks, four_ranks)) {
    expect_identical(run$status, 0L, info = paste(run$lines, collapse = "\n"))
  }
  expect_length(figures(one_process$lines), 2L)
  expect_identical(figures(two_ranks$lines), figures(one_process$lines))
  expect_identical(figures(four_ranks$lines), figures(one_process$lines))
  base <- base_r_training_loss()
  expect_equal(as.numeric(figures(one_process$lines)[["loss"]]), base$loss, tolerance = 1e-5)
  expect_equal(as.numeric(figures(one_process$lines)[["checksum"]]), base$checksum,
               tolerance = 1e-6)
})

test_that("a rank killed mid-loop makes the other fail with a clear error in seconds", {
  skip_without_mpi()
  run <- run_ranks(2L, c(example_script(), "--fail-at", "50"),
                   env = "PJRT_COLLECTIVE_TIMEOUT=5", mpirun_args = "--enable-recovery")
  text <- gsub("\\s+", " ", paste(run$lines, collapse = " "))
  # mpirun --enable-recovery ends with status 0 whatever the ranks did: rank 0's R ended with
  # the error instead of printing its figures.
  expect_match(text, "Execution halted", fixed = TRUE)
  expect_no_match(text, "final loss", fixed = TRUE)
  expect_match(text, "'stablehlo.all_reduce' rank 0 waited past its collective timeout",
               fixed = TRUE)
  expect_match(text, "which never arrived", fixed = TRUE)
  expect_lt(run$seconds, 30)
})

test_that("ranks that compiled different programs fail at once, naming the ranks", {
  skip_without_mpi()
  run <- run_ranks(2L, mpi_script("mismatch.R"), env = "PJRT_COLLECTIVE_TIMEOUT=20")
  expect_identical(run$status, 0L, info = paste(run$lines, collapse = "\n"))
  reports <- sort(gsub("\\s+", " ", grep("^rank [01]: ", run$lines, value = TRUE)))
  expect_length(reports, 2L)
  expect_match(reports[[1]], "rank 0: .*rank 0 and rank 1 run different programs")
  expect_match(reports[[2]], "rank 1: .*rank 1 and rank 0 run different programs")
  expect_match(reports[[1]], "every rank must compile the same program text", fixed = TRUE)
  expect_lt(run$seconds, 15)
})

test_that("pjrt shares MPI that Rmpi started, and leaves it to Rmpi to finalise", {
  skip_without_mpi()
  # Not skip_if_not_installed(): loading Rmpi here would start MPI in this process, and
  # mpirun started from an MPI process fails.
  skip_if(!nzchar(system.file(package = "Rmpi")), "Rmpi is not installed")
  run <- run_ranks(2L, mpi_script("beside_rmpi.R"))
  expect_identical(run$status, 0L, info = paste(run$lines, collapse = "\n"))
  # Ranks 0 and 1 contribute (1, 2) and (2, 4): pjrt's sum (3, 6); Rmpi's sum of 1 and 2: 3.
  reports <- grep("rank [01]: ", run$lines, value = TRUE)
  expect_identical(sort(sub(".*(rank [01]: )", "\\1", reports)),
                   c("rank 0: 3 6 3 finalized", "rank 1: 3 6 3 finalized"),
                   info = paste(run$lines, collapse = "\n"))
})
