# MLP training, pjrt side by side with PyTorch eager (Debian's python3-torch through
# /usr/bin/python3), one thread each, in one run: for depth 0, 4, 8 hidden layers of width 10,
# 40, 160, batch 32, f32, SGD on a regression (bench/peer/training_programs.R), it times
# - the whole training loop as one `while` program (as anvl's nv_while + value_and_gradient
#   make it), per step;
# - the same step compiled alone and called from an R loop once per batch, parameters donated,
#   per call; pjrt's share of a call is that time less the loop program's time per step;
# - PyTorch: torch.nn.Sequential of Linear and ReLU, MSELoss and torch.optim.SGD, per step;
# on the same data and initial parameters (made from R arrays), and prints the ratios, against
# the latency issue's targets (loop geomean <= 0.2x, no row above 0.35x; a call's share <= 15 us),
# and the two final losses.
#
# Run from the repository root: Rscript bench/peer/training.R
# Environment: TRAINING_ROUNDS (3), TRAINING_STEPS (400), PEER_PYTHON (/usr/bin/python3).
source(file.path("bench", "helpers.R"))
source(file.path("bench", "peer", "training_programs.R"))

rounds <- as.integer(Sys.getenv("TRAINING_ROUNDS", "3"))
steps <- as.integer(Sys.getenv("TRAINING_STEPS", "400"))
python <- Sys.getenv("PEER_PYTHON", "/usr/bin/python3")
if (system2(python, c("-c", shQuote("import torch")), stdout = FALSE, stderr = FALSE) != 0) {
  stop("PyTorch is not installed for ", python, " (Debian: apt-get install python3-torch)")
}
pjrt_threads(1L)
batch <- 32L
batches <- 16L
lr <- 0.01

configs <- expand.grid(width = c(10L, 40L, 160L), depth = c(0L, 4L, 8L))
folder <- tempfile("training")
dir.create(folder)
on.exit(unlink(folder, recursive = TRUE), add = TRUE)

f32 <- function(v) pjrt_buffer(v, dtype = "f32")
write_row_major <- function(buffer, path) writeBin(as_raw(buffer, row_major = TRUE), path)

# Data, initial parameters, both programs and the R loop's batches of each configuration; the
# inputs are written for PyTorch, with a manifest line per configuration.
setups <- lapply(seq_len(nrow(configs)), function(k) {
  depth <- configs$depth[k]
  width <- configs$width[k]
  set.seed(20261205 + k)
  x <- matrix(rnorm(batch * batches * width), ncol = width)
  y <- matrix(sin(rowSums(x) / sqrt(width)), ncol = 1)
  params <- initial_parameters(depth, width, seed = k)
  name <- sprintf("depth %d width %d", depth, width)
  prefix <- file.path(folder, sprintf("d%dw%d", depth, width))
  write_row_major(f32(x), paste0(prefix, "-x.bin"))
  write_row_major(f32(y), paste0(prefix, "-y.bin"))
  for (i in seq_along(params)) write_row_major(f32(params[[i]]), sprintf("%s-p%d.bin", prefix, i))
  rows <- function(b) (b - 1) * batch + seq_len(batch)
  list(
    name = name, depth = depth, width = width, prefix = prefix, x = x, y = y, params = params,
    loop = pjrt_compile(pjrt_program(training_loop_program(depth, width, batch, batches, steps,
                                                           lr))),
    step = pjrt_compile(pjrt_program(training_step_program(depth, width, batch, lr))),
    batches = lapply(seq_len(batches), function(b) {
      list(f32(x[rows(b), , drop = FALSE]), f32(y[rows(b), , drop = FALSE]))
    }))
})
writeLines(vapply(setups, function(s) paste(s$name, s$depth, s$width, s$prefix, sep = "\t"), ""),
           file.path(folder, "manifest.tsv"))

# Seconds per step of the loop program, and its final loss.
time_loop <- function(s) {
  args <- c(list(s$loop, f32(s$x), f32(s$y)), lapply(s$params, f32))
  start <- bench::hires_time()
  out <- awaited(do.call(pjrt_execute, args))
  list(seconds = as.numeric(bench::hires_time() - start) / steps, loss = as_array(out[[1]]))
}

# Seconds per call of the step program from an R loop, parameters donated each call.
time_r_loop <- function(s) {
  params <- lapply(s$params, f32)
  n <- length(params)
  start <- bench::hires_time()
  for (i in seq_len(steps)) {
    b <- s$batches[[(i - 1L) %% batches + 1L]]
    out <- do.call(pjrt_execute, c(list(s$step), params, b))
    params <- out[seq_len(n)]
  }
  awaited(out)
  list(seconds = as.numeric(bench::hires_time() - start) / steps, loss = as_array(out[[n + 1L]]))
}

time_torch <- function() {
  out <- system2(python, c(shQuote(file.path("bench", "peer", "torch_training.py")),
                           shQuote(folder), steps, batch, batches, lr), stdout = TRUE)
  fields <- strsplit(out, "\t", fixed = TRUE)
  names <- vapply(fields, `[[`, "", 1)
  list(seconds = setNames(as.numeric(vapply(fields, `[[`, "", 2)), names),
       loss = setNames(as.numeric(vapply(fields, `[[`, "", 3)), names))
}

n <- length(setups)
loop_s <- call_s <- torch_s <- matrix(NA_real_, n, rounds)
losses <- matrix(NA_real_, n, 3, dimnames = list(NULL, c("loop", "r", "torch")))
for (r in seq_len(rounds)) {
  for (k in seq_len(n)) {
    loop <- time_loop(setups[[k]])
    call <- time_r_loop(setups[[k]])
    loop_s[k, r] <- loop$seconds
    call_s[k, r] <- call$seconds
    losses[k, ] <- c(loop$loss, call$loss, NA)
  }
  torch <- time_torch()
  torch_s[, r] <- torch$seconds[vapply(setups, `[[`, "", "name")]
  losses[, "torch"] <- torch$loss[vapply(setups, `[[`, "", "name")]
}

# Floating-point operations of the matrix products of one step: each layer's forward product,
# its weight gradient, and its input gradient except the first layer's (x is no parameter).
# Divided by a step's time, the rate to hold against the machine's multiply-add peak
# (src/core/bench/fma_peak_bench): the widest rows are bound by it.
product_flops <- function(depth, width) {
  dims <- layer_dims(depth, width)
  per_layer <- 2 * batch * dims$ins * dims$outs
  3 * sum(per_layer) - per_layer[1]
}

range_text <- function(v, digits = 3) {
  r <- range(v)
  if (signif(r[1], digits) == signif(r[2], digits)) return(format(signif(r[1], digits)))
  paste0(signif(r[1], digits), "-", signif(r[2], digits))
}

cat(sprintf(paste0("MLP training (SGD, batch %d, f32, %d steps) against PyTorch %s eager, ",
                   "one thread each, %d rounds\n\n"), batch, steps,
            system2(python, c("-c", shQuote("import torch; print(torch.__version__)")),
                    stdout = TRUE), rounds))
cat(sprintf("%-22s %12s %12s %10s %12s %12s %12s %22s\n", "model", "loop us", "PyTorch us",
            "ratio", "loop GFLOP/s", "R call us", "share us", "final loss loop/torch"))
ratios <- loop_s / torch_s
share <- call_s - loop_s
for (k in seq_len(n)) {
  flops <- product_flops(setups[[k]]$depth, setups[[k]]$width)
  cat(sprintf("%-22s %12s %12s %10s %12s %12s %12s %22s\n", setups[[k]]$name,
              range_text(1e6 * loop_s[k, ]), range_text(1e6 * torch_s[k, ]),
              range_text(ratios[k, ]), range_text(flops / loop_s[k, ] / 1e9),
              range_text(1e6 * call_s[k, ]), range_text(1e6 * share[k, ]),
              sprintf("%.5g / %.5g", losses[k, "loop"], losses[k, "torch"])))
}
geomeans <- exp(colMeans(log(ratios)))
cat(sprintf("\nloop / PyTorch: geometric mean %s (target <= 0.2), worst row %s (target <= 0.35)\n",
            range_text(geomeans), range_text(apply(ratios, 2, max))))
cat(sprintf("pjrt's share of an R call: median %s us, worst %s us (target <= 15)\n",
            range_text(apply(1e6 * share, 2, median)), range_text(apply(1e6 * share, 2, max))))
