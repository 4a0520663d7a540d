library(testthat)
library(harmonium)

test_check("harmonium")
