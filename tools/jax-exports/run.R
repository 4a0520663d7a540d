# Runs JAX's CPU linear-algebra exports (the JSON that extract.py writes) through pjrt and
# compares each with the outputs JAX recorded, to the tolerances of JAX's own back-compat test
# (|got - want| <= atol + rtol |want|). Where LAPACK leaves a choice (the phase of eigen- and
# singular vectors, the order of Schur blocks), a case that differs from JAX's numbers is
# checked by the properties that define it instead (reconstruction, orthogonality).
#
# usage: Rscript run.R <cases.json>   (exit status 1 when a case fails)
suppressPackageStartupMessages({
  library(pjrt)
  library(jsonlite)
})

rtol_of <- c(f32 = 1e-3, f64 = 1e-5, c64 = 1e-3, c128 = 1e-5)
atol_of <- c(f32 = 1e-4, f64 = 1e-12, c64 = 1e-4, c128 = 1e-12)
eps_of <- c(f32 = 2^-23, f64 = 2^-52, c64 = 2^-23, c128 = 2^-52)

as_number <- function(v) {
  if (length(v) > 0 && is.list(v[[1]])) {
    v <- matrix(as.numeric(unlist(v)), ncol = 2, byrow = TRUE)
    return(complex(real = v[, 1], imaginary = v[, 2]))
  }
  as.numeric(unlist(v))
}

# JSON's row-major values as an R array of that shape.
array_of <- function(j) {
  v <- as_number(j$values)
  shape <- as.integer(unlist(j$shape))
  if (length(shape) == 0) return(v)
  if (length(shape) == 1) return(v)
  aperm(array(v, rev(shape)), rev(seq_along(shape)))
}

close_enough <- function(got, want, rtol, atol) {
  if (!identical(dim(got), dim(want)) && length(got) != length(want)) return(FALSE)
  all(Mod(as.vector(got) - as.vector(want)) <= atol + rtol * Mod(as.vector(want)))
}

# The matrices of an array [..., m, n] as a list.
matrices <- function(x) {
  d <- dim(x)
  if (length(d) == 2) return(list(x))
  m <- d[length(d) - 1]
  n <- d[length(d)]
  flat <- array(aperm(x, c(length(d) - 1, length(d), seq_len(length(d) - 2))), c(m, n, prod(d) / (m * n)))
  lapply(seq_len(dim(flat)[3]), function(k) flat[, , k])
}
vectors <- function(x) {
  if (is.null(dim(x))) return(list(x))
  d <- dim(x)
  flat <- matrix(aperm(x, c(length(d), seq_len(length(d) - 1))), nrow = d[length(d)])
  lapply(seq_len(ncol(flat)), function(k) flat[, k])
}
adjoint <- function(x) Conj(t(x))
fro <- function(x) sqrt(sum(Mod(x)^2))

property_checks <- list(
  # (w, vl, vr) of lax.linalg.eig on arange(16) as 4 x 4
  cpu_eig_lapack_geev = function(got, want, variant, input) {
    a <- matrix(0:15, 4, byrow = TRUE)
    w <- got[[1]]
    tol <- 100 * 5 * eps_of[[variant]]
    near <- function(x, set) min(Mod(set - x)) <= atol_of[[variant]] + rtol_of[[variant]] * Mod(x)
    all(vapply(w, near, TRUE, set = want[[1]])) && all(vapply(want[[1]], near, TRUE, set = w)) &&
      fro(a %*% got[[3]] - got[[3]] %*% diag(w)) < tol * fro(a) &&
      fro(adjoint(a) %*% got[[2]] - got[[2]] %*% diag(Conj(w))) < tol * fro(a)
  },
  # (v, w) of lax.linalg.eigh: same values, and v diag(w) v^H is the matrix JAX's give
  cpu_eigh_lapack_syev = function(got, want, variant, input) {
    a <- want[[1]] %*% diag(want[[2]]) %*% adjoint(want[[1]])
    close_enough(got[[2]], want[[2]], rtol_of[[variant]], atol_of[[variant]]) &&
      fro(a %*% got[[1]] - got[[1]] %*% diag(got[[2]])) <= rtol_of[[variant]] * fro(a) &&
      fro(adjoint(got[[1]]) %*% got[[1]] - diag(nrow(a))) <= 80 * eps_of[[variant]] * nrow(a)
  },
  # (u, s, vt) of lax.linalg.svd(full_matrices = TRUE) of the input
  cpu_svd_lapack_gesdd = function(got, want, variant, input) {
    tol <- 80 * eps_of[[variant]]
    us <- matrices(got[[1]])
    ss <- vectors(got[[2]])
    vts <- matrices(got[[3]])
    as <- matrices(input[[1]])
    all(vapply(seq_along(as), function(k) {
      a <- as[[k]]
      fro(a - us[[k]] %*% diag(ss[[k]]) %*% vts[[k]]) / fro(a) < 2 * tol &&
        fro(Re(adjoint(us[[k]]) %*% us[[k]]) - diag(ncol(us[[k]]))) < tol * nrow(a) &&
        fro(Re(adjoint(vts[[k]]) %*% vts[[k]]) - diag(ncol(vts[[k]]))) < tol * nrow(a)
    }, TRUE)) && close_enough(got[[2]], want[[2]], rtol_of[[variant]], atol_of[[variant]])
  },
  # (t, vs) of lax.linalg.schur: vs t vs^H is the input, t (quasi-)upper triangular
  cpu_schur_lapack_gees = function(got, want, variant, input) {
    a <- input[[1]]
    t <- got[[1]]
    below <- row(t) > col(t) + if (variant %in% c("f32", "f64")) 1 else 0
    close_enough(got[[2]] %*% t %*% adjoint(got[[2]]), a, rtol_of[[variant]], atol_of[[variant]] * 10) &&
      all(Mod(t[below]) == 0)
  }
)

run_case <- function(case) {
  variant <- case$variant
  exe <- tryCatch(pjrt_compile(pjrt_program(case$mlir)), error = function(e) e)
  if (inherits(exe, "error")) return(list(status = "REFUSED", why = conditionMessage(exe)))
  input <- lapply(case$inputs, array_of)
  buffers <- mapply(function(x, j) pjrt_buffer(x, dtype = j$dtype, shape = as.integer(unlist(j$shape))),
                    input, case$inputs, SIMPLIFY = FALSE)
  out <- tryCatch(do.call(pjrt_execute, c(list(exe), buffers, list(simplify = FALSE))),
                  error = function(e) e)
  if (inherits(out, "error")) return(list(status = "FAILED", why = conditionMessage(out)))
  got <- lapply(out, as_array)
  want <- lapply(case$expected, array_of)
  same <- length(got) == length(want) && all(mapply(close_enough, got, want,
    MoreArgs = list(rtol = rtol_of[[variant]], atol = atol_of[[variant]])))
  if (same) return(list(status = "matches JAX", why = ""))
  check <- property_checks[[case$file]]
  if (!is.null(check) && isTRUE(check(got, want, variant, input))) {
    return(list(status = "properties hold", why = "differs from JAX's numbers within LAPACK's freedom"))
  }
  list(status = "FAILED", why = "differs from JAX's outputs")
}

main <- function(path) {
  cases <- fromJSON(path, simplifyVector = FALSE)
  rows <- lapply(cases, function(case) {
    r <- run_case(case)
    cat(sprintf("%-36s %-5s %-16s %s\n", case$file, case$variant, r$status, substr(r$why, 1, 120)))
    r$status
  })
  status <- unlist(rows)
  counts <- table(factor(status, c("matches JAX", "properties hold", "REFUSED", "FAILED")))
  cat(sprintf("jax exports: %d cases, %d match JAX, %d by properties, %d refused, %d failed\n",
              length(status), counts[[1]], counts[[2]], counts[[3]], counts[[4]]))
  if (counts[[3]] + counts[[4]] > 0) quit(status = 1)
}

main(commandArgs(trailingOnly = TRUE)[1])
