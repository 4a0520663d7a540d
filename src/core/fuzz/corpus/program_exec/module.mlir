#loc1 = loc("f.py":1:2)
module @m attributes {mhlo.num_partitions = 1 : i32} {
  func.func public @main(%x: tensor<3xi32> {tf.aliasing_output = 0 : i32}) -> (tensor<3xi32> {jax.result_info = ""}) {
    %0 = call @f(%x) : (tensor<3xi32>) -> tensor<3xi32> loc(#loc1)
    return %0 : tensor<3xi32>
  }
  func.func private @f(%y: tensor<3xi32>) -> tensor<3xi32> {
    %c = stablehlo.constant dense<[1, -2, 3]> : tensor<3xi32>
    %0 = "stablehlo.multiply"(%y, %c) : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi32>
    func.return %0 : tensor<3xi32>
  }
}
