.onLoad <- function(libname, pkgname) {
  lock_harray_classes()
}
