# An all_reduce (sum) of 64 MB of f32 across 2 MPI ranks on this machine, through pjrt
# (bench/mpi/allreduce_pjrt.R), against Open MPI's own MPI_Allreduce of the same buffer
# (bench/mpi/allreduce.c, compiled here with mpicc), run alternately in the same run: medians of
# each. The target is <= 1.5x. Skipped where mpirun, mpicc or pjrt's MPI are missing.
# Run with `Rscript bench/mpi_allreduce.R`; COLLECTIVE_MB sets the size (default 64), CALLS the
# calls each launch of the two makes (default 10). pjrt's results are new buffers (as upstream
# pjrt's are): a dropped one returns its memory when R collects it, which for a result that
# survived a collection is a full one, so a long loop maps fresh pages between those.
library(pjrt)
if (!pjrt_distributed()$mpi || !nzchar(Sys.which("mpirun")) || !nzchar(Sys.which("mpicc"))) {
  cat("mpi_allreduce: skipped (no MPI here)\n")
  quit(save = "no")
}
here <- if (file.exists("bench/mpi/allreduce.c")) "bench/mpi" else "mpi"
mb <- as.numeric(Sys.getenv("COLLECTIVE_MB", "64"))
n <- as.integer(mb * 2^20 / 4)
baseline <- file.path(tempdir(), "allreduce")
stopifnot(system2("mpicc", c("-O2", file.path(here, "allreduce.c"), "-o", baseline)) == 0)
mpirun <- function(...) {
  out <- system2("mpirun", c("--allow-run-as-root", "--oversubscribe", "-np", "2", ...),
                 stdout = TRUE, env = "OMPI_MCA_rmaps_base_oversubscribe=1")
  as.numeric(out[grepl("^[0-9.]+$", out)])
}
rounds <- 4L
calls <- as.integer(Sys.getenv("CALLS", "10"))
times <- list(mpi = numeric(), pjrt = numeric())
for (r in seq_len(rounds)) {
  times$mpi <- c(times$mpi, mpirun(baseline, n, calls))
  times$pjrt <- c(times$pjrt, mpirun("Rscript", file.path(here, "allreduce_pjrt.R"), n, calls))
}
medians <- vapply(times, median, numeric(1))
cat(sprintf("all_reduce of %g MB f32 across 2 ranks, %d calls a launch: MPI_Allreduce %.1f ms, pjrt %.1f ms (%.2fx)\n",
            mb, calls, 1000 * medians[["mpi"]], 1000 * medians[["pjrt"]],
            medians[["pjrt"]] / medians[["mpi"]]))
