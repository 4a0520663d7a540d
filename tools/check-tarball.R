# Fails when the source package R CMD build made lacks a file of ours: every file git tracks
# (and every untracked file git does not ignore), less what .Rbuildignore leaves out on purpose,
# must be in the tarball. R CMD build also drops, without a word, folders named like `check` or
# `*old` and some hidden files; this is where that shows. Outside a git checkout there is no list
# to compare with, and it says so.
#   Rscript tools/check-tarball.R build/pjrt_0.1.0.tar.gz
tarball <- commandArgs(trailingOnly = TRUE)[[1]]
files <- suppressWarnings(system2("git", c("ls-files", "--cached", "--others", "--exclude-standard"),
                                  stdout = TRUE, stderr = FALSE))
if (!is.null(attr(files, "status"))) {
  cat("check-tarball: not a git checkout,", tarball, "not compared with the sources\n")
  quit(status = 0)
}
# As R CMD build reads .Rbuildignore: Perl regular expressions without case, matched against
# each path, a folder's match leaving out everything under it; the file itself is left out too.
patterns <- c("^\\.Rbuildignore$", grep("\\S", readLines(".Rbuildignore"), value = TRUE))
ignored <- function(path) any(vapply(patterns, grepl, logical(1), x = path, perl = TRUE,
                                     ignore.case = TRUE))
ancestors <- function(path) {
  parts <- strsplit(path, "/", fixed = TRUE)[[1]]
  vapply(seq_along(parts), function(k) paste(parts[seq_len(k)], collapse = "/"), character(1))
}
expected <- files[!vapply(files, function(f) any(vapply(ancestors(f), ignored, logical(1))),
                          logical(1))]
shipped <- sub("^pjrt/", "", utils::untar(tarball, list = TRUE))
missing <- setdiff(expected, shipped)
if (length(missing) > 0) {
  message("check-tarball: ", tarball, " lacks these files of the package:\n",
          paste0("  ", missing, collapse = "\n"))
  quit(status = 1)
}
cat("check-tarball:", tarball, "holds all", length(expected), "files of the package\n")
