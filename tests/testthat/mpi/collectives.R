# Run under mpirun by test-distributed.R: every collective across the ranks at each dtype it
# allows. Arguments: OUTPUT_FOLDER DEVICES_PER_RANK. Process p of the grid (p = 0, 1, ...)
# moves x = (1:12) + 10 * p and folds y = (0:11) %% 3 + 1 + p %% 2 (small, so that sums and
# products stay exact in every dtype), each in each dtype; each rank saves its processes' results (as R reads
# them back) to OUTPUT_FOLDER/rank-<rank>.rds, and the test checks them against values it
# computes itself.
args <- commandArgs(trailingOnly = TRUE)
out_dir <- args[[1]]
per_rank <- as.integer(args[[2]])
Sys.setenv(PJRT_CPU_DEVICE_COUNT = per_rank)
library(pjrt)
pjrt_threads(1L)
info <- pjrt_distributed_init(devices = per_rank)
n <- sum(info$devices)

# The MLIR element type of each dtype, and the bodies of the folds it allows.
element <- c(f32 = "f32", f64 = "f64", f16 = "f16", bf16 = "bf16", i8 = "i8", i16 = "i16",
             i32 = "i32", i64 = "i64", ui8 = "ui8", ui16 = "ui16", ui32 = "ui32", ui64 = "ui64",
             c64 = "complex<f32>", c128 = "complex<f64>", pred = "i1")
folds <- function(dtype) {
  if (dtype == "pred") return(c(and = "and", or = "or"))
  if (dtype %in% c("c64", "c128")) return(c(sum = "add", prod = "multiply"))
  if (grepl("^(i|ui)", dtype)) {
    return(c(sum = "add", max = "maximum", min = "minimum", and = "and", or = "or"))
  }
  c(sum = "add", max = "maximum", min = "minimum", prod = "multiply")
}

program_for <- function(dtype) {
  e <- element[[dtype]]
  t <- function(shape) sprintf("tensor<%s%s>", shape, e)
  ops <- character()
  results <- character()
  add_result <- function(name, shape) {
    results[[length(results) + 1L]] <<- name
    names(results)[[length(results)]] <<- t(shape)
  }
  for (fold in names(folds(dtype))) {
    ops <- c(ops, sprintf('%%r_%s = "stablehlo.all_reduce"(%%y) ({
    ^bb0(%%a: %s, %%b: %s):
      %%0 = stablehlo.%s %%a, %%b : %s
      stablehlo.return %%0 : %s
    }) : (%s) -> %s', fold, t(""), t(""), folds(dtype)[[fold]], t(""), t(""), t("12x"), t("12x")))
    add_result(paste0("%r_", fold), "12x")
  }
  ops <- c(ops, sprintf('%%gather = "stablehlo.all_gather"(%%x) {all_gather_dim = 0 : i64} : (%s) -> %s',
                        t("12x"), t(sprintf("%dx", 12 * n))))
  add_result("%gather", sprintf("%dx", 12 * n))
  ops <- c(ops, sprintf('%%permute = "stablehlo.collective_permute"(%%x) {source_target_pairs = dense<[%s]> : tensor<%dx2xi64>} : (%s) -> %s',
                        paste(sprintf("[%d, %d]", 0:(n - 1), (0:(n - 1) + 1) %% n), collapse = ", "),
                        n, t("12x"), t("12x")))
  add_result("%permute", "12x")
  ops <- c(ops, sprintf('%%broadcast = "stablehlo.collective_broadcast"(%%x) {replica_groups = dense<[[%s]]> : tensor<1x%dxi64>} : (%s) -> %s',
                        paste((0:(n - 1) + n - 1) %% n, collapse = ", "), n, t("12x"), t("12x")))
  add_result("%broadcast", "12x")
  if (dtype != "pred") {
    ops <- c(ops, sprintf('%%scatter = "stablehlo.reduce_scatter"(%%y) ({
    ^bb0(%%a: %s, %%b: %s):
      %%0 = stablehlo.add %%a, %%b : %s
      stablehlo.return %%0 : %s
    }) {scatter_dimension = 0 : i64} : (%s) -> %s', t(""), t(""), t(""), t(""), t("12x"), t(sprintf("%dx", 12 %/% n))))
    add_result("%scatter", sprintf("%dx", 12 %/% n))
  }
  ops <- c(ops, sprintf('%%alltoall = "stablehlo.all_to_all"(%%x) {split_dimension = 0 : i64, concat_dimension = 0 : i64, split_count = %d : i64} : (%s) -> %s',
                        n, t("12x"), t("12x")))
  add_result("%alltoall", "12x")
  ops <- c(ops, '%replica = stablehlo.replica_id : tensor<ui32>')
  results[[length(results) + 1L]] <- "%replica"
  names(results)[[length(results)]] <- "tensor<ui32>"
  sprintf("module @collectives attributes {mhlo.num_replicas = %d : i32} {
  func.func @main(%%x: %s, %%y: %s) -> (%s) {
    %s
    return %s : %s
  }
}", n, t("12x"), t("12x"), paste(names(results), collapse = ", "), paste(ops, collapse = "\n    "),
          paste(results, collapse = ", "), paste(names(results), collapse = ", "))
}

input_of <- function(process, dtype, folded) {
  v <- if (folded) (0:11) %% 3 + 1 + process %% 2 else (1:12) + 10 * process
  if (dtype == "pred") return(if (folded) v %% 2 == 1 else v %% 3 != 0)
  if (dtype %in% c("c64", "c128")) return(complex(real = v, imaginary = -v))
  v
}

local <- devices("cpu")[seq_len(per_rank)]
results <- list()
for (dtype in names(element)) {
  executable <- pjrt_compile(pjrt_program(program_for(dtype)))
  args <- lapply(seq_len(per_rank), function(k) {
    p <- info$first_process + k - 1L
    list(pjrt_buffer(input_of(p, dtype, FALSE), dtype = dtype, device = local[[k]]),
         pjrt_buffer(input_of(p, dtype, TRUE), dtype = dtype, device = local[[k]]))
  })
  out <- pjrt_execute_sharded(executable, args, devices = local, simplify = FALSE)
  results[[dtype]] <- lapply(out, function(process) lapply(process, as_array))
}
saveRDS(list(rank = info$rank, size = info$size, first = info$first_process, results = results,
             folds = lapply(setNames(nm = names(element)), function(d) names(folds(d)))),
        file.path(out_dir, sprintf("rank-%d.rds", info$rank)))
