# Region bodies compiled into element programs: jnp.argmax / jnp.argmin and jnp.sort /
# jnp.argsort in the form JAX lowers them to, checked against base R (max.col(), which.max(),
# order(), sort()), NaNs included.

jax_compare <- function(a, b, dir, type, e) {
  sprintf(paste0("\"stablehlo.compare\"(%s, %s) {comparison_direction = ",
                 "#stablehlo<comparison_direction %s>, compare_type = ",
                 "#stablehlo<comparison_type %s>} : (%s, %s) -> tensor<i1>"),
          a, b, dir, type, e, e)
}

# jnp.argmax (dir "GT") or jnp.argmin ("LT") along the second axis of an r x c f32 matrix:
# a reduce over (values, iota) whose body picks the first NaN, else the first extreme.
jax_argminmax_program <- function(r, c, dir) {
  e <- "tensor<f32>"
  i <- "tensor<i32>"
  init <- if (dir == "GT") "0xFF800000" else "0x7F800000"
  pjrt_program(paste(
    sprintf("func.func @main(%%x: tensor<%dx%dxf32>) -> tensor<%dxi32> {", r, c, r),
    sprintf("  %%iota = \"stablehlo.iota\"() {iota_dimension = 1 : i64} : () -> tensor<%dx%dxi32>",
            r, c),
    sprintf("  %%init = \"stablehlo.constant\"() {value = dense<%s> : %s} : () -> %s", init, e, e),
    sprintf("  %%zero = \"stablehlo.constant\"() {value = dense<0> : %s} : () -> %s", i, i),
    "  %r:2 = \"stablehlo.reduce\"(%x, %iota, %init, %zero) ({",
    sprintf("  ^bb0(%%a1: %s, %%a2: %s, %%a3: %s, %%a4: %s):", e, i, e, i),
    paste("    %4 =", jax_compare("%a1", "%a3", dir, "FLOAT", e)),
    paste("    %5 =", jax_compare("%a1", "%a1", "NE", "FLOAT", e)),
    "    %6 = \"stablehlo.or\"(%4, %5) : (tensor<i1>, tensor<i1>) -> tensor<i1>",
    paste("    %7 =", jax_compare("%a1", "%a3", "EQ", "FLOAT", e)),
    paste("    %8 =", jax_compare("%a2", "%a4", "LT", "SIGNED", i)),
    "    %9 = \"stablehlo.and\"(%7, %8) : (tensor<i1>, tensor<i1>) -> tensor<i1>",
    "    %10 = \"stablehlo.or\"(%6, %9) : (tensor<i1>, tensor<i1>) -> tensor<i1>",
    sprintf("    %%11 = \"stablehlo.select\"(%%6, %%a1, %%a3) : (tensor<i1>, %s, %s) -> %s", e, e, e),
    sprintf("    %%12 = \"stablehlo.select\"(%%10, %%a2, %%a4) : (tensor<i1>, %s, %s) -> %s", i, i, i),
    sprintf("    \"stablehlo.return\"(%%11, %%12) : (%s, %s) -> ()", e, i),
    sprintf(paste0("  }) {dimensions = array<i64: 1>} : (tensor<%1$dx%2$dxf32>, ",
                   "tensor<%1$dx%2$dxi32>, %3$s, %4$s) -> (tensor<%1$dxf32>, tensor<%1$dxi32>)"),
            r, c, e, i),
    sprintf("  return %%r#1 : tensor<%dxi32>", r), "}", sep = "\n"))
}

# jnp.sort (argsort = FALSE) or jnp.argsort (TRUE) of an f32 vector: the comparator maps -0 to
# 0 and every NaN to one NaN, then compares in the total order.
jax_sort_program <- function(n, argsort) {
  e <- "tensor<f32>"
  v <- sprintf("tensor<%dxf32>", n)
  iv <- sprintf("tensor<%dxi32>", n)
  side <- function(x, t) c(
    sprintf("    %%z%s = \"stablehlo.constant\"() {value = dense<0.0> : %s} : () -> %s", t, e, e),
    sprintf("    %%q%s = %s", t, jax_compare(x, paste0("%z", t), "EQ", "FLOAT", e)),
    sprintf("    %%c%1$s = \"stablehlo.select\"(%%q%1$s, %%z%1$s, %2$s) : (tensor<i1>, %3$s, %3$s) -> %3$s",
            t, x, e),
    sprintf("    %%n%s = %s", t, jax_compare(x, x, "NE", "FLOAT", e)),
    sprintf("    %%m%1$s = \"stablehlo.constant\"() {value = dense<0x7FC00000> : %2$s} : () -> %2$s",
            t, e),
    sprintf("    %%k%1$s = \"stablehlo.select\"(%%n%1$s, %%m%1$s, %%c%1$s) : (tensor<i1>, %2$s, %2$s) -> %2$s",
            t, e))
  types <- if (argsort) paste(v, iv, sep = ", ") else v
  pjrt_program(paste(c(
    sprintf("func.func @main(%%x: %s) -> %s {", v, if (argsort) iv else v),
    if (argsort) sprintf("  %%iota = \"stablehlo.iota\"() {iota_dimension = 0 : i64} : () -> %s", iv),
    sprintf("  %%r%s = \"stablehlo.sort\"(%%x%s) ({", if (argsort) ":2" else "",
            if (argsort) ", %iota" else ""),
    sprintf("  ^bb0(%%a: %s, %%b: %s%s):", e, e,
            if (argsort) ", %i: tensor<i32>, %j: tensor<i32>" else ""),
    side("%a", "a"), side("%b", "b"),
    paste("    %lt =", jax_compare("%ka", "%kb", "LT", "TOTALORDER", e)),
    "    \"stablehlo.return\"(%lt) : (tensor<i1>) -> ()",
    sprintf("  }) {dimension = 0 : i64, is_stable = true} : (%s) -> (%s)", types, types),
    sprintf("  return %%r%s : %s", if (argsort) "#1" else "", if (argsort) iv else v), "}"),
    collapse = "\n"))
}

# The first NaN of each row, else the first maximum (minimum): what JAX's body picks.
first_extreme <- function(x, max) {
  apply(x, 1, function(row) {
    if (anyNA(row)) return(which(is.na(row))[1])
    if (max) which.max(row) else which.min(row)
  })
}

test_that("JAX's argmax and argmin match max.col() and which.max() / which.min(), NaN first", {
  set.seed(29)
  x <- matrix(round(rnorm(37 * 300), 1), 37, 300)  # rounding makes ties
  x[3, c(40, 90)] <- NaN
  x[5, 7] <- NA
  x[8, ] <- 0
  x[9, c(1, 2)] <- c(-0, 0)
  for (dir in c("GT", "LT")) {
    got <- as_array(run_program(jax_argminmax_program(37, 300, dir), pjrt_buffer(x, "f32")))
    expected <- first_extreme(array(as.double(as_array(pjrt_buffer(x, "f32"))), dim(x)),
                              max = dir == "GT")
    expect_identical(as.vector(got) + 1L, as.integer(expected), label = dir)
  }
  clean <- x[-c(3, 5), ]
  program <- jax_argminmax_program(nrow(clean), 300, "GT")
  got <- as_array(run_program(program, pjrt_buffer(clean, "f32")))
  expect_identical(as.vector(got) + 1L,
                   max.col(as_array(pjrt_buffer(clean, "f32")), ties.method = "first"))
})

test_that("JAX's sort and argsort match sort() and order(): stable, NaN last, -0 equal to 0", {
  set.seed(26)
  n <- 5000
  x <- round(rnorm(n), 1)
  x[c(10, 200, 4000)] <- NaN
  x[c(11, 12)] <- c(-0, 0)
  xf <- as.double(as_array(pjrt_buffer(x, "f32")))  # the values as f32 holds them
  idx <- as_array(run_program(jax_sort_program(n, TRUE), pjrt_buffer(x, "f32")))
  expect_identical(as.vector(idx) + 1L, order(xf, method = "radix"))
  sorted <- as_array(run_program(jax_sort_program(n, FALSE), pjrt_buffer(x, "f32")))
  expect_identical(as.vector(sorted)[seq_len(n - 3)], sort(xf))
  expect_true(all(is.nan(as.vector(sorted)[n - 0:2])))
})

test_that("a scatter window partly outside the operand is skipped whole, as XLA does", {
  # Windows of two elements at starts 3 (columns 4 and 5 of 4: partly outside) and 1.
  program <- pjrt_program(r"(
func.func @main(%x: tensor<4xi32>, %i: tensor<2x1xi64>, %u: tensor<2x2xi32>) -> tensor<4xi32> {
  %r = "stablehlo.scatter"(%x, %i, %u) ({
  ^bb0(%a: tensor<i32>, %b: tensor<i32>):
    %s = stablehlo.add %a, %b : tensor<i32>
    stablehlo.return %s : tensor<i32>
  }) {scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1],
      scatter_dims_to_operand_dims = [0], index_vector_dim = 1>}
    : (tensor<4xi32>, tensor<2x1xi64>, tensor<2x2xi32>) -> tensor<4xi32>
  return %r : tensor<4xi32>
})")
  out <- pjrt_execute(pjrt_compile(program), pjrt_buffer(c(1L, 1L, 1L, 1L)),
                      pjrt_buffer(matrix(c(3, 1), 2), dtype = "i64"),
                      pjrt_buffer(matrix(c(5L, 7L, 5L, 7L), 2)))
  # Only the window at 1 lands (7 on both of its elements); the one at 3 adds nothing, not
  # even the 5 that would fall on the last element.
  expect_identical(as.vector(as_array(out)), c(1L, 8L, 8L, 1L))
})
