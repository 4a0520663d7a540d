# Which R entry points into the C++ bindings (the .Call wrappers cpp11 generates in R/cpp11.R)
# each test file calls, and whether the files listed in tests/memcheck.txt call them all.
#   Rscript tools/memcheck-coverage.R          checks the list: fails naming any entry point no
#                                              listed file calls
#   Rscript tools/memcheck-coverage.R --all    prints, for every test file, its time and calls
# Run from the package root, against the installed package.
args <- commandArgs(trailingOnly = TRUE)
ns <- asNamespace("pjrt")
entry_points <- grep("^ffi_", names(ns), value = TRUE)
entry_points <- entry_points[vapply(entry_points, function(name) {
  any(grepl(".Call(", deparse(body(get(name, ns))), fixed = TRUE))
}, logical(1))]

# A wrapper records its own call; a function that calls .Call() directly (a few hot paths do)
# records the entry points it names.
called <- new.env()
record <- function(function_name, entry_names) {
  suppressMessages(trace(function_name, where = ns, print = FALSE, tracer = substitute(
    for (n in names) assign(n, TRUE, envir = e), list(names = entry_names, e = called))))
}
for (name in setdiff(names(ns), entry_points)) {
  value <- get(name, ns)
  if (!is.function(value) || is.primitive(value)) next
  named <- regmatches(deparse(body(value)), gregexpr("_pjrt_ffi_[a-z0-9_]+", deparse(body(value))))
  named <- intersect(sub("^_pjrt_", "", unlist(named)), entry_points)
  if (length(named) > 0) record(name, named)
}
for (name in entry_points) record(name, name)

run_file <- function(file) {
  rm(list = ls(called), envir = called)
  filter <- paste0("^", sub("^test-(.*)\\.R$", "\\1", file), "$")
  seconds <- system.time(testthat::test_dir("tests/testthat", package = "pjrt",
    load_package = "installed", filter = filter, reporter = "silent",
    stop_on_failure = FALSE))[["elapsed"]]
  list(seconds = seconds, calls = sort(ls(called)))
}

memcheck_lines <- function() {
  lines <- trimws(sub("#.*", "", readLines("tests/memcheck.txt")))
  lines[nzchar(lines)]
}
listed <- function() {
  files <- grep("^!", memcheck_lines(), value = TRUE, invert = TRUE)
  paste0("test-", files, ".R")
}
# Entry points the list exempts ("!name"): ones only processes started by mpirun call.
exempt <- function() sub("^!", "", grep("^!", memcheck_lines(), value = TRUE))

if (identical(args, "--all")) {
  for (file in list.files("tests/testthat", "^test-.*\\.R$")) {
    result <- run_file(file)
    cat(sprintf("%s %.1f %s\n", file, result$seconds, paste(result$calls, collapse = " ")))
  }
} else {
  covered <- character()
  for (file in listed()) covered <- union(covered, run_file(file)$calls)
  uncovered <- setdiff(entry_points, c(covered, exempt()))
  if (length(uncovered) > 0) {
    stop("No test file in tests/memcheck.txt calls these bindings: ",
         paste(sort(uncovered), collapse = ", "), call. = FALSE)
  }
  cat("The", length(listed()), "files of tests/memcheck.txt call all", length(entry_points),
      "entry points into the bindings but the", length(exempt()), "it exempts\n")
}
