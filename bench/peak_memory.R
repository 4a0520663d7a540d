# Peak memory of a run of softmax + layer norm over a 4096 x 1024 f32 buffer made from an R
# matrix (the peer benchmark's program): after warm-up runs (the second re-lays the buffer out
# row-major), the process's resident high-water mark is reset (/proc/self/clear_refs) and one
# more run is made; its peak growth, plus the input it reads, is compared with its input and
# output (target: at most inputs + outputs + 10%). Freed blocks are not kept for reuse here
# (PJRT_RECYCLE_MB=0), so the result's memory is mapped during the run and counted.
# Linux only. Run with `Rscript bench/peak_memory.R`.
if (!file.exists("/proc/self/clear_refs")) {
  cat("peak memory: skipped (needs Linux's /proc/self/clear_refs)\n")
  quit(save = "no")
}
Sys.setenv(PJRT_RECYCLE_MB = "0")
source(file.path("bench", "helpers.R"))
source(file.path("bench", "peer", "cases.R"))

status_kib <- function(field) {
  line <- grep(paste0("^", field, ":"), readLines("/proc/self/status"), value = TRUE)
  as.numeric(sub("^[^0-9]*([0-9]+).*$", "\\1", line))
}
case <- Filter(function(c) grepl("softmax", c$name), peer_cases(1))[[1]]
exe <- pjrt_compile(pjrt_program(case$program))
x <- case_buffers(case)[[1]]
for (i in 1:3) y <- awaited(pjrt_execute(exe, x))
rm(y)
invisible(gc())
input_mib <- prod(shape(x)) * 4 / 2^20
writeLines("5", "/proc/self/clear_refs")  # the high-water mark starts again from the current size
before <- status_kib("VmRSS")
y <- awaited(pjrt_execute(exe, x))
peak <- (status_kib("VmHWM") - before) / 1024
output_mib <- prod(shape(y)) * 4 / 2^20
cat(sprintf(paste0("softmax + layer norm 4096 x 1024 f32, %d thread(s): peak growth of a run %.1f MiB ",
                   "(its output %.0f MiB; input %.0f MiB held before the run); ",
                   "peak over inputs + outputs %.3f (target <= 1.10)\n"),
            pjrt_threads(), peak, output_mib, input_mib, (input_mib + peak) / (input_mib + output_mib)))
