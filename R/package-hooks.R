# Running code of pjrt's when another package's namespace loads, now if it is loaded already:
# how pjrt plugs into packages it only suggests (safetensors' frameworks, the r-xla ecosystem's
# generics). The hooks carry a mark, so reloading pjrt (devtools::load_all()) replaces its own
# hooks instead of piling them up, and unloading removes them.

when_package_loads <- function(package, fn) {
  unhook_package(package)
  if (isNamespaceLoaded(package)) fn()
  hook <- structure(function(...) fn(), pjrt_hook = TRUE)
  setHook(packageEvent(package, "onLoad"), hook, action = "append")
}

unhook_package <- function(package) {
  event <- packageEvent(package, "onLoad")
  hooks <- getHook(event)
  ours <- vapply(hooks, function(h) isTRUE(attr(h, "pjrt_hook")), TRUE)
  setHook(event, hooks[!ours], action = "replace")
}
