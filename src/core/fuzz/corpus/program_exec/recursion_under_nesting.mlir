// Recursion from inside 20 nested ifs: stops at the 512-level budget, not the 256-call one.
func.func private @f(%p: tensor<i1>, %x: tensor<i32>) -> tensor<i32> {
%r19 = "stablehlo.if"(%p) ({
%r18 = "stablehlo.if"(%p) ({
%r17 = "stablehlo.if"(%p) ({
%r16 = "stablehlo.if"(%p) ({
%r15 = "stablehlo.if"(%p) ({
%r14 = "stablehlo.if"(%p) ({
%r13 = "stablehlo.if"(%p) ({
%r12 = "stablehlo.if"(%p) ({
%r11 = "stablehlo.if"(%p) ({
%r10 = "stablehlo.if"(%p) ({
%r9 = "stablehlo.if"(%p) ({
%r8 = "stablehlo.if"(%p) ({
%r7 = "stablehlo.if"(%p) ({
%r6 = "stablehlo.if"(%p) ({
%r5 = "stablehlo.if"(%p) ({
%r4 = "stablehlo.if"(%p) ({
%r3 = "stablehlo.if"(%p) ({
%r2 = "stablehlo.if"(%p) ({
%r1 = "stablehlo.if"(%p) ({
%r0 = "stablehlo.if"(%p) ({
%c = func.call @f(%p, %x) : (tensor<i1>, tensor<i32>) -> tensor<i32>
stablehlo.return %c : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r0 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r1 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r2 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r3 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r4 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r5 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r6 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r7 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r8 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r9 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r10 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r11 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r12 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r13 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r14 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r15 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r16 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r17 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r18 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
return %r19 : tensor<i32>
}
func.func @main(%x: tensor<i32>) -> tensor<i32> {
%p = stablehlo.constant dense<true> : tensor<i1>
%0 = func.call @f(%p, %x) : (tensor<i1>, tensor<i32>) -> tensor<i32>
return %0 : tensor<i32>
}
