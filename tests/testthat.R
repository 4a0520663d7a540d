library(testthat)
library(pjrt)

test_check("pjrt")
