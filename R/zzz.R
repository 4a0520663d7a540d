# Load and unload hooks: the HArray classes and the safetensors framework.
.onLoad <- function(libname, pkgname) {
  init_harray_classes()
  hook_safetensors()  # framework "pjrt" for the safetensors package, now or when it loads
  hook_ecosystem_generics()  # methods on tengen's and xlamisc's generics, likewise
  # Asynchronous runs still queued when R exits are cancelled, and the running one awaited,
  # before R's exit tears down anything they use.
  reg.finalizer(queue_stopper, function(e) ffi_stop_queued_work(), onexit = TRUE)
}

queue_stopper <- new.env(parent = emptyenv())

.onUnload <- function(libpath) {
  unhook_safetensors()
  unhook_ecosystem_generics()
}
