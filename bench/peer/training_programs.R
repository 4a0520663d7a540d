# The MLP training programs bench/peer/training.R times: mean-squared-error regression of one
# output on `width` features through `depth` hidden layers of `width` units (ReLU), trained by
# plain SGD on batches of `batch` rows, as JAX lowers `value_and_grad` + an SGD update (the
# backward pass written out op by op, ReLU's gradient a select on `z > 0`). Two forms:
# - the whole loop as one program: a `while` whose body slices batch `i mod batches` out of the
#   data (dynamic_slice, as `X[batch, ]`), runs forward, backward and the update, and carries
#   the step count, the last loss and the parameters;
# - one step alone, called once per batch from R: parameters and a batch in, the updated
#   parameters (each donated to its successor through `tf.aliasing_output`) and the loss out.
# Layer l has weights `%w<l>` (inputs x outputs) and bias `%b<l>`; `depth + 1` layers in all.

training_t32 <- function(...) {
  dims <- c(...)
  if (length(dims) == 0) return("tensor<f32>")
  sprintf("tensor<%sxf32>", paste(dims, collapse = "x"))
}

# The widths of each layer's input and output.
layer_dims <- function(depth, width) {
  outs <- c(rep(width, depth), 1L)
  list(ins = rep(width, depth + 1L), outs = outs)
}

# The types of the parameters, in argument order: w1, b1, w2, b2, ...
parameter_types <- function(depth, width) {
  dims <- layer_dims(depth, width)
  types <- character()
  for (l in seq_along(dims$outs)) {
    types <- c(types, training_t32(dims$ins[l], dims$outs[l]), training_t32(dims$outs[l]))
  }
  setNames(types, paste0(rep(c("w", "b"), depth + 1L), rep(seq_len(depth + 1L), each = 2)))
}

# A scalar f32 constant broadcast to `dims`.
splat <- function(name, value, dims) {
  c(sprintf("%%%s_s = stablehlo.constant dense<%s> : tensor<f32>", name, value),
    sprintf("%%%s = stablehlo.broadcast_in_dim %%%s_s, dims = [] : (tensor<f32>) -> %s", name,
            name, training_t32(dims)))
}

# Forward, loss, backward and update of one batch `%xb`, `%yb`, reading the parameters by
# their names; returns the lines and the names of the new parameters and the loss.
sgd_step_lines <- function(depth, width, batch, lr) {
  dims <- layer_dims(depth, width)
  layers <- depth + 1L
  lines <- character()
  add <- function(...) lines <<- c(lines, sprintf(...))
  hidden <- "xb"
  for (l in seq_len(layers)) {
    out <- dims$outs[l]
    add("%%z%d = stablehlo.dot_general %%%s, %%w%d, contracting_dims = [1] x [0] : (%s, %s) -> %s",
        l, hidden, l, training_t32(batch, dims$ins[l]), training_t32(dims$ins[l], out),
        training_t32(batch, out))
    add("%%bb%d = stablehlo.broadcast_in_dim %%b%d, dims = [1] : (%s) -> %s", l, l,
        training_t32(out), training_t32(batch, out))
    add("%%a%d = stablehlo.add %%z%d, %%bb%d : %s", l, l, l, training_t32(batch, out))
    if (l < layers) {
      lines <- c(lines, splat(sprintf("zero%d", l), "0.0", c(batch, out)))
      add("%%h%d = stablehlo.maximum %%a%d, %%zero%d : %s", l, l, l, training_t32(batch, out))
      hidden <- sprintf("h%d", l)
    }
  }
  column <- training_t32(batch, 1)
  add("%%d = stablehlo.subtract %%a%d, %%yb : %s", layers, column)
  add("%%sq = stablehlo.multiply %%d, %%d : %s", column)
  lines <- c(lines, "%fzero = stablehlo.constant dense<0.0> : tensor<f32>")
  add(paste0("%%ss = stablehlo.reduce(%%sq init: %%fzero) applies stablehlo.add across ",
             "dimensions = [0, 1] : (%s, tensor<f32>) -> tensor<f32>"), column)
  add("%%count = stablehlo.constant dense<%s> : tensor<f32>", format(batch, nsmall = 1))
  lines <- c(lines, "%loss = stablehlo.divide %ss, %count : tensor<f32>")
  lines <- c(lines, splat("scale", format(2 / batch, digits = 9), c(batch, 1)))
  add("%%g%d = stablehlo.multiply %%d, %%scale : %s", layers, column)
  for (l in rev(seq_len(layers))) {
    ins <- dims$ins[l]
    out <- dims$outs[l]
    source <- if (l == 1) "xb" else sprintf("h%d", l - 1)
    add("%%dw%d = stablehlo.dot_general %%%s, %%g%d, contracting_dims = [0] x [0] : (%s, %s) -> %s",
        l, source, l, training_t32(batch, ins), training_t32(batch, out), training_t32(ins, out))
    add(paste0("%%db%d = stablehlo.reduce(%%g%d init: %%fzero) applies stablehlo.add across ",
               "dimensions = [0] : (%s, tensor<f32>) -> %s"), l, l, training_t32(batch, out),
        training_t32(out))
    if (l > 1) {
      add("%%gh%d = stablehlo.dot_general %%g%d, %%w%d, contracting_dims = [1] x [1] : (%s, %s) -> %s",
          l, l, l, training_t32(batch, out), training_t32(ins, out), training_t32(batch, ins))
      add("%%on%d = stablehlo.compare GT, %%a%d, %%zero%d : (%s, %s) -> %s", l - 1, l - 1, l - 1,
          training_t32(batch, ins), training_t32(batch, ins),
          sprintf("tensor<%dx%dxi1>", batch, ins))
      add("%%g%d = stablehlo.select %%on%d, %%gh%d, %%zero%d : %s, %s", l - 1, l - 1, l, l - 1,
          sprintf("tensor<%dx%dxi1>", batch, ins), training_t32(batch, ins))
    }
    lines <- c(lines, splat(sprintf("lrw%d", l), format(lr), c(ins, out)),
               splat(sprintf("lrb%d", l), format(lr), out))
    add("%%uw%d = stablehlo.multiply %%dw%d, %%lrw%d : %s", l, l, l, training_t32(ins, out))
    add("%%nw%d = stablehlo.subtract %%w%d, %%uw%d : %s", l, l, l, training_t32(ins, out))
    add("%%ub%d = stablehlo.multiply %%db%d, %%lrb%d : %s", l, l, l, training_t32(out))
    add("%%nb%d = stablehlo.subtract %%b%d, %%ub%d : %s", l, l, l, training_t32(out))
  }
  news <- paste0("%n", rep(c("w", "b"), layers), rep(seq_len(layers), each = 2))
  list(lines = lines, parameters = news, loss = "%loss")
}

# `steps` SGD steps over the rows of `%x` (rows x width) and `%y` (rows x 1), batch by batch,
# as one while program; returns the last batch's loss and the trained parameters.
training_loop_program <- function(depth, width, batch, batches, steps, lr = 0.01) {
  types <- parameter_types(depth, width)
  rows <- batch * batches
  step <- sgd_step_lines(depth, width, batch, lr)
  carried <- c("tensor<i64>", "tensor<f32>", types)
  body <- c(
    sprintf("%%k = stablehlo.remainder %%i, %%batches : tensor<i64>"),
    "%start = stablehlo.multiply %k, %batch : tensor<i64>",
    sprintf(paste0("%%xb = stablehlo.dynamic_slice %%x, %%start, %%izero, sizes = [%d, %d] : ",
                   "(%s, tensor<i64>, tensor<i64>) -> %s"), batch, width,
            training_t32(rows, width), training_t32(batch, width)),
    sprintf(paste0("%%yb = stablehlo.dynamic_slice %%y, %%start, %%izero, sizes = [%d, 1] : ",
                   "(%s, tensor<i64>, tensor<i64>) -> %s"), batch, training_t32(rows, 1),
            training_t32(batch, 1)),
    step$lines,
    "%inext = stablehlo.add %i, %ione : tensor<i64>",
    sprintf("stablehlo.return %s : %s",
            paste(c("%inext", step$loss, step$parameters), collapse = ", "),
            paste(carried, collapse = ", ")))
  inits <- paste0("%", names(types), " = %", names(types), "_init")
  results <- sprintf("%%r#%d", seq_along(carried)[-1] - 1L)
  paste0(
    "func.func @main(%x: ", training_t32(rows, width), ", %y: ", training_t32(rows, 1), ", ",
    paste0("%", names(types), "_init: ", types, collapse = ", "), ") -> (",
    paste(carried[-1], collapse = ", "), ") {\n",
    "  %izero = stablehlo.constant dense<0> : tensor<i64>\n",
    "  %ione = stablehlo.constant dense<1> : tensor<i64>\n",
    sprintf("  %%batches = stablehlo.constant dense<%d> : tensor<i64>\n", batches),
    sprintf("  %%batch = stablehlo.constant dense<%d> : tensor<i64>\n", batch),
    sprintf("  %%steps = stablehlo.constant dense<%d> : tensor<i64>\n", steps),
    "  %loss0 = stablehlo.constant dense<0.0> : tensor<f32>\n",
    sprintf("  %%r:%d = stablehlo.while(%%i = %%izero, %%l = %%loss0, %s) : %s\n",
            length(carried), paste(inits, collapse = ", "), paste(carried, collapse = ", ")),
    "    cond {\n",
    "      %go = stablehlo.compare LT, %i, %steps, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>\n",
    "      stablehlo.return %go : tensor<i1>\n",
    "    } do {\n",
    paste0("      ", body, collapse = "\n"), "\n",
    "    }\n",
    "  return ", paste(results, collapse = ", "), " : ", paste(carried[-1], collapse = ", "),
    "\n}\n")
}

# One SGD step: parameters (each donated to its updated self), then `%xb` and `%yb`; returns
# the updated parameters, then the loss.
training_step_program <- function(depth, width, batch, lr = 0.01) {
  types <- parameter_types(depth, width)
  step <- sgd_step_lines(depth, width, batch, lr)
  args <- c(sprintf("%%%s: %s {tf.aliasing_output = %d : i32}", names(types), types,
                    seq_along(types) - 1L),
            sprintf("%%xb: %s", training_t32(batch, width)),
            sprintf("%%yb: %s", training_t32(batch, 1)))
  result_types <- c(types, "tensor<f32>")
  paste0("func.func @main(", paste(args, collapse = ", "), ") -> (",
         paste(result_types, collapse = ", "), ") {\n",
         paste0("  ", step$lines, collapse = "\n"), "\n",
         "  return ", paste(c(step$parameters, step$loss), collapse = ", "), " : ",
         paste(result_types, collapse = ", "), "\n}\n")
}

# Parameters as R arrays in argument order, for a seed: normal weights of variance 1 / inputs
# (LeCun's scaling, which keeps the deepest model's SGD from diverging), small normal biases.
initial_parameters <- function(depth, width, seed) {
  set.seed(seed)
  dims <- layer_dims(depth, width)
  params <- list()
  for (l in seq_along(dims$outs)) {
    params <- c(params, list(
      matrix(rnorm(dims$ins[l] * dims$outs[l], sd = sqrt(1 / dims$ins[l])), dims$ins[l]),
      rnorm(dims$outs[l], sd = 0.01)))
  }
  params
}
