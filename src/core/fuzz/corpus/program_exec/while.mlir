func.func @main(%n: tensor<i64>) -> tensor<i64> {
  %z = stablehlo.constant dense<0> : tensor<i64>
  %one = stablehlo.constant dense<1> : tensor<i64>
  %r:2 = stablehlo.while(%a = %z, %b = %z) : tensor<i64>, tensor<i64>
  cond {
    %c = stablehlo.compare LT, %a, %n, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
    stablehlo.return %c : tensor<i1>
  } do {
    %s = stablehlo.add %a, %one : tensor<i64>
    %t = stablehlo.add %b, %a : tensor<i64>
    stablehlo.return %s, %t : tensor<i64>, tensor<i64>
  }
  return %r#1 : tensor<i64>
}
