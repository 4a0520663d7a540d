# What base R sees of HArray and HDataType: method listings and the printed class objects.

# An instance's methods, as `names()`, `ls()` and `$` completion list them.
instance_methods <- function(class_env) {
  sort(setdiff(Filter(function(n) is.function(class_env[[n]]), ls(class_env)),
               c("new_from_values", "new_from_buffer")))
}

# An environment of an instance's methods, bound to the instance (what `ls(h)` reads).
methods_environment <- function(x, class_env, class_name) {
  env <- new.env(parent = emptyenv())
  for (name in instance_methods(class_env)) {
    assign(name, bind_method(x, name, class_env, class_name, NULL), envir = env)
  }
  lockEnvironment(env, bindings = TRUE)
  env
}

#' @export
names.HArray <- function(x) instance_methods(HArray)

#' @export
as.environment.HArray <- function(x) methods_environment(x, HArray, "HArray")

#' @export
names.HDataType <- function(x) instance_methods(HDataType)

#' @export
as.environment.HDataType <- function(x) methods_environment(x, HDataType, "HDataType")

#' @rawNamespace S3method(utils::.DollarNames, HDataType)
.DollarNames.HDataType <- function(x, pattern = "") {
  grep(pattern, instance_methods(HDataType), value = TRUE)
}

# `HArray` and `HDataType` themselves print as their names, as harmonium's do.
class(HArray) <- "pjrt_harmonium_class"
attr(HArray, "name") <- "HArray"
class(HDataType) <- "pjrt_harmonium_class"
attr(HDataType, "name") <- "HDataType"

#' @export
print.pjrt_harmonium_class <- function(x, ...) {
  cat(attr(x, "name", exact = TRUE), "\n", sep = "")
  invisible(x)
}

#' @export
format.pjrt_harmonium_class <- function(x, ...) attr(x, "name", exact = TRUE)
