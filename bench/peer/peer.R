# pjrt side by side with PyTorch (Debian's python3-torch, run through /usr/bin/python3) on the
# computations of bench/peer/cases.R, in one run: each case is timed in pjrt and in a PyTorch
# process back to back (the order alternating between rounds), on the same input values (the
# row-major bytes of pjrt's buffers), with the same thread count. Prints, per case, the medians'
# range over the rounds, the ratio pjrt / PyTorch (below 1: pjrt is faster), each program's compile time and the
# largest difference between the two (first) results; then the geometric mean of the ratios.
#
# Run from the repository root: Rscript bench/peer/peer.R
# Environment: PEER_ROUNDS (3), PEER_THREADS (all cores), PEER_ITERATIONS (10),
# PEER_WARMUP_SECONDS (0.25; see time_pjrt()),
# PEER_SCALE (1; larger divides the big dims for a quick run), PEER_PYTHON (/usr/bin/python3),
# PEER_CASES (a regular expression: only the cases whose names match it; default all).
source(file.path("bench", "helpers.R"))
source(file.path("bench", "peer", "cases.R"))

rounds <- as.integer(Sys.getenv("PEER_ROUNDS", "3"))
threads <- as.integer(Sys.getenv("PEER_THREADS", parallel::detectCores()))
iterations <- as.integer(Sys.getenv("PEER_ITERATIONS", "10"))
warmup_seconds <- as.numeric(Sys.getenv("PEER_WARMUP_SECONDS", "0.25"))
scale <- as.numeric(Sys.getenv("PEER_SCALE", "1"))
python <- Sys.getenv("PEER_PYTHON", "/usr/bin/python3")
if (system2(python, c("-c", shQuote("import torch")), stdout = FALSE, stderr = FALSE) != 0) {
  stop("PyTorch is not installed for ", python, " (Debian: apt-get install python3-torch)")
}
pjrt_threads(threads)

cases <- peer_cases(scale)
pattern <- Sys.getenv("PEER_CASES", "")
if (nzchar(pattern)) cases <- Filter(function(case) grepl(pattern, case$name), cases)
folder <- tempfile("peer")
dir.create(folder)
on.exit(unlink(folder, recursive = TRUE), add = TRUE)

# Compiles each program (timing it) and writes its inputs for PyTorch.
manifest <- character()
for (k in seq_along(cases)) {
  case <- cases[[k]]
  cases[[k]]$compile_ms <- 1000 * time_median(pjrt_compile(pjrt_program(case$program)))
  cases[[k]]$executable <- pjrt_compile(pjrt_program(case$program))
  cases[[k]]$buffers <- case_buffers(case)
  for (i in seq_along(cases[[k]]$buffers)) {
    b <- cases[[k]]$buffers[[i]]
    path <- file.path(folder, sprintf("%s-%d.bin", case$torch, i))
    writeBin(as_raw(b, row_major = TRUE), path)
    manifest <- c(manifest, paste(case$torch, as.character(elt_type(b)),
                                  paste(shape(b), collapse = ","), path, sep = "\t"))
  }
}
writeLines(manifest, file.path(folder, "manifest.tsv"))

run_pjrt <- function(case) do.call(pjrt_execute, c(list(case$executable), case$buffers))

# Untimed runs before the timed ones, as torch_cases.py gives each case: at least three and at
# least `warmup_seconds` of them, so that both sides are timed in a loop's steady state. PyTorch
# reuses a result's memory as soon as the result is dropped; pjrt's results of a few MiB go back
# to its block recycler only when R's garbage collector finds them dead (a young collection per
# 64 MiB of new results), so a loop's first 64 MiB of results fault in fresh pages (about
# 0.4 ms a MiB on a virtual machine). With three runs only, a case with 4-8 MiB results timed
# that start: every run of a 1024 x 1024 product, most of an embedding lookup's.
# PEER_WARMUP_SECONDS=0 times the start as before.
time_pjrt <- function(case) {
  start <- bench::hires_time()
  runs <- 0
  while (runs < 3 || bench::hires_time() - start < warmup_seconds) {
    awaited(run_pjrt(case))
    runs <- runs + 1
  }
  time_median(run_pjrt(case), iterations = iterations)
}

# PyTorch serves the cases from one process fed through two named pipes, so each case is timed
# there right beside pjrt's timing of it: on a shared machine both then run under the same load
# (whole rounds on one side and then the other, minutes apart, gave ratios that moved 2x from
# round to round).
to_torch <- file.path(folder, "to-torch")
from_torch <- file.path(folder, "from-torch")
if (system2("mkfifo", shQuote(c(to_torch, from_torch))) != 0) stop("mkfifo failed")
# The shell opens the command's output pipe first, then its input: opened here in that order.
system2(python, c(shQuote(file.path("bench", "peer", "torch_cases.py")), shQuote(folder),
                  threads, iterations, "--serve", "--warmup-seconds", warmup_seconds),
        stdout = from_torch, stdin = to_torch,
        wait = FALSE)
answers <- fifo(from_torch, "r", blocking = TRUE)
requests <- fifo(to_torch, "w", blocking = TRUE)
# The first cases' timings once shared the cores with PyTorch's start (importing torch, reading
# the inputs): round 1's ratios ran up to 5x those of later rounds.
if (!identical(readLines(answers, n = 1), "ready")) stop("PyTorch's process did not start")
time_torch <- function(case) {
  writeLines(case$torch, requests)
  flush(requests)
  line <- readLines(answers, n = 1)
  if (length(line) == 0) stop("PyTorch's process ended (its error is above)")
  fields <- strsplit(line, "\t", fixed = TRUE)[[1]]
  stopifnot(identical(fields[[1]], case$torch))
  as.numeric(fields[[2]])
}

# Each case on both sides back to back, pjrt first in odd rounds and PyTorch first in even ones.
# Each side starts 50 ms after the other ended: both keep OpenMP threads that spin for a few
# milliseconds after their work before they sleep, and a run started meanwhile shares the cores
# with them (pjrt's Cholesky of 1000 took 11.5 ms right after PyTorch's against 8.3 ms alone).
settled <- function(time_side, case) {
  Sys.sleep(0.05)
  time_side(case)
}
pjrt_seconds <- torch_seconds <- matrix(NA_real_, length(cases), rounds)
for (r in seq_len(rounds)) {
  for (k in seq_along(cases)) {
    if (r %% 2 == 1) {
      pjrt_seconds[k, r] <- settled(time_pjrt, cases[[k]])
      torch_seconds[k, r] <- settled(time_torch, cases[[k]])
    } else {
      torch_seconds[k, r] <- settled(time_torch, cases[[k]])
      pjrt_seconds[k, r] <- settled(time_pjrt, cases[[k]])
    }
  }
}
close(requests)
close(answers)

# The largest difference between the two results (the first of several: top_k's values),
# relative to the largest magnitude; complex values differ by their modulus.
difference <- function(case) {
  ours <- run_pjrt(case)
  if (is.list(ours)) ours <- ours[[1]]
  bytes <- readBin(file.path(folder, paste0(case$torch, ".out")), "raw", 1e9)
  theirs <- pjrt_buffer(bytes, dtype = as.character(elt_type(ours)), shape = shape(ours),
                        row_major = TRUE)
  a <- as.vector(as_array(ours))
  b <- as.vector(as_array(theirs))
  max(abs(a - b)) / max(1, abs(b))
}

range_text <- function(v, digits = 3) {
  r <- range(v)
  if (signif(r[1], digits) == signif(r[2], digits)) return(format(signif(r[1], digits)))
  paste0(signif(r[1], digits), "-", signif(r[2], digits))
}

cat(sprintf("pjrt against PyTorch %s, %d thread(s), %d rounds of %d iterations%s\n\n",
            system2(python, c("-c", shQuote("import torch; print(torch.__version__)")),
                    stdout = TRUE),
            threads, rounds, iterations, if (scale != 1) sprintf(", sizes / %g", scale) else ""))
cat(sprintf("%-40s %14s %14s %12s %10s %9s\n", "case", "pjrt ms", "PyTorch ms", "ratio",
            "compile ms", "max diff"))
ratios <- pjrt_seconds / torch_seconds
for (k in seq_along(cases)) {
  cat(sprintf("%-40s %14s %14s %12s %10.2f %9.1e\n", cases[[k]]$name,
              range_text(1000 * pjrt_seconds[k, ]), range_text(1000 * torch_seconds[k, ]),
              range_text(ratios[k, ]), cases[[k]]$compile_ms, difference(cases[[k]])))
}
geomeans <- exp(colMeans(log(ratios)))
cat(sprintf("\ngeometric mean of the ratios: %s (per round: %s)\n", range_text(geomeans),
            paste(signif(geomeans, 3), collapse = ", ")))
