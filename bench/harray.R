# SPEC section 8: HArray creation, slice(), clone() and collect() against B = `x + 0`.
source(file.path("bench", "helpers.R"))

n <- bench_n
set.seed(1)
x <- array(runif(n), c(1000, n / 1000))
baseline <- time_median(x + 0)

h <- HArray$new_from_values(x, HDataType$Float64)
everything <- c(NA_integer_, NA_integer_, NA_integer_)
reversed <- c(NA_integer_, NA_integer_, -1L)
view <- h$slice(list(reversed, reversed))  # strided: both axes walked backwards
# Targets in seconds (O(1) operations) are expressed as ratios to this run's baseline.
absolute <- function(seconds) seconds / baseline

report(list(
  row("HArray Float64 creation (zero-copy)",
      time_median(HArray$new_from_values(x, HDataType$Float64)), 0.01),
  row("HArray slice() (target 0.1 ms)", time_median(h$slice(list(everything, 3L)), 50),
      absolute(1e-4)),
  row("HArray clone() (target 0.1 ms)", time_median(h$clone(), 50), absolute(1e-4)),
  row("HArray collect() Float64", time_median(h$collect()), 1.1),
  row("HArray collect() strided Float64 view", time_median(view$collect()), 1.1)
), "x + 0", baseline)
