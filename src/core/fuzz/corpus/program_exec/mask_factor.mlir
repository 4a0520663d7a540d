func.func @main(%a: tensor<2x3x3xf32>) -> tensor<2x3x3xf32> {
  %l = "stablehlo.cholesky"(%a) {lower = true} : (tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
  %row = stablehlo.iota dim = 1 : tensor<2x3x3xi32>
  %col = stablehlo.iota dim = 2 : tensor<2x3x3xi32>
  %keep = stablehlo.compare LE, %col, %row, SIGNED : (tensor<2x3x3xi32>, tensor<2x3x3xi32>) -> tensor<2x3x3xi1>
  %zero = stablehlo.constant dense<0.0> : tensor<f32>
  %zb = stablehlo.broadcast_in_dim %zero, dims = [] : (tensor<f32>) -> tensor<2x3x3xf32>
  %y = stablehlo.select %keep, %l, %zb : tensor<2x3x3xi1>, tensor<2x3x3xf32>
  return %y : tensor<2x3x3xf32>
}
