func.func @main(%x: tensor<2x3x4xf32>, %y: tensor<4x2x3xf32>) -> (tensor<3x4x2xf32>, tensor<4x2x3xf32>) {
  %a = stablehlo.multiply %x, %x : tensor<2x3x4xf32>
  %t = stablehlo.transpose %a, dims = [2, 0, 1] : (tensor<2x3x4xf32>) -> tensor<4x2x3xf32>
  %s = stablehlo.subtract %t, %y : tensor<4x2x3xf32>
  %u = stablehlo.transpose %s, dims = [2, 0, 1] : (tensor<4x2x3xf32>) -> tensor<3x4x2xf32>
  %v = stablehlo.convert %u : (tensor<3x4x2xf32>) -> tensor<3x4x2xf32>
  return %v, %t : tensor<3x4x2xf32>, tensor<4x2x3xf32>
}
