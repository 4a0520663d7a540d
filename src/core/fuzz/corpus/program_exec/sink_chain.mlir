func.func @main(%x: tensor<2x3xf32>, %b: tensor<3x2xf32>, %lo: tensor<f32>) -> tensor<2x3xf32> {
  %t1 = stablehlo.transpose %x, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %d1 = stablehlo.add %t1, %b : tensor<3x2xf32>
  %e1 = stablehlo.exponential %d1 : tensor<3x2xf32>
  %c1 = stablehlo.clamp %lo, %e1, %lo : (tensor<f32>, tensor<3x2xf32>, tensor<f32>) -> tensor<3x2xf32>
  %t2 = stablehlo.transpose %c1, dims = [1, 0] : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %k = stablehlo.compare GT, %t2, %x : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
  %s = stablehlo.select %k, %t2, %x : tensor<2x3xi1>, tensor<2x3xf32>
  %t3 = stablehlo.transpose %s, dims = [1, 0] : (tensor<2x3xf32>) -> tensor<3x2xf32>
  %n = stablehlo.negate %t3 : tensor<3x2xf32>
  %t4 = stablehlo.transpose %n, dims = [1, 0] : (tensor<3x2xf32>) -> tensor<2x3xf32>
  return %t4 : tensor<2x3xf32>
}
