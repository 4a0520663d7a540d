func.func @main(%x: tensor<2x3xbf16>, %i: tensor<i32>) -> tensor<2x2xbf16> {
  %v = stablehlo.constant dense<0x3F80> : tensor<bf16>
  %p = stablehlo.pad %x, %v, low = [0, -1], high = [1, 0], interior = [1, 0] : (tensor<2x3xbf16>, tensor<bf16>) -> tensor<4x2xbf16>
  %s = stablehlo.slice %p [0:4:2, 0:2] : (tensor<4x2xbf16>) -> tensor<2x2xbf16>
  %d = stablehlo.dynamic_slice %s, %i, %i, sizes = [2, 2] : (tensor<2x2xbf16>, tensor<i32>, tensor<i32>) -> tensor<2x2xbf16>
  %g = "stablehlo.gather"(%x, %i) {dimension_numbers = #stablehlo.gather<offset_dims = [0, 1], start_index_map = [0], index_vector_dim = 0>, slice_sizes = array<i64: 2, 3>} : (tensor<2x3xbf16>, tensor<i32>) -> tensor<2x3xbf16>
  return %d : tensor<2x2xbf16>
}
