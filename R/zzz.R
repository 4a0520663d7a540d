# Load and unload hooks: the HArray classes, the safetensors framework, and the stop of queued
# runs at exit.
.onLoad <- function(libname, pkgname) {
  init_harray_classes()
  hook_safetensors()  # framework "pjrt" for the safetensors package, now or when it loads
  hook_ecosystem_generics()  # methods on tengen's and xlamisc's generics, likewise
  arm_queue_stopper()
}

.onUnload <- function(libpath) {
  unhook_safetensors()
  unhook_ecosystem_generics()
  disarm_queue_stopper()
}

# Asynchronous runs still queued when R exits are cancelled, and the running one awaited,
# before R's exit tears down anything they use (the core's atexit() handler would do it too,
# but after the destructors of statics made since the first run). An exit finalizer does it;
# the environment it hangs on lives as long as the namespace, so unloading the namespace
# disarms it first: collected later, it must not cancel the runs of a namespace loaded since,
# nor call into a library unloaded meanwhile. Unloading stops the runs itself, before the
# library may go.
queue_stopper <- new.env(parent = emptyenv())

arm_queue_stopper <- function() {
  queue_stopper$armed <- TRUE
  reg.finalizer(queue_stopper, function(e) if (isTRUE(e$armed)) ffi_stop_queued_work(),
                onexit = TRUE)
}

disarm_queue_stopper <- function() {
  queue_stopper$armed <- FALSE
  ffi_stop_queued_work()
}
