# Load and unload hooks: the HArray classes and the safetensors framework.
.onLoad <- function(libname, pkgname) {
  init_harray_classes()
  hook_safetensors()  # framework "pjrt" for the safetensors package, now or when it loads
  hook_ecosystem_generics()  # methods on tengen's and xlamisc's generics, likewise
}

.onUnload <- function(libpath) {
  unhook_safetensors()
  unhook_ecosystem_generics()
}
