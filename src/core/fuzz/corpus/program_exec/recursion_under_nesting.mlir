func.func private @f(%p: tensor<i1>, %x: tensor<i32>) -> tensor<i32> {
%r159 = "stablehlo.if"(%p) ({
%r158 = "stablehlo.if"(%p) ({
%r157 = "stablehlo.if"(%p) ({
%r156 = "stablehlo.if"(%p) ({
%r155 = "stablehlo.if"(%p) ({
%r154 = "stablehlo.if"(%p) ({
%r153 = "stablehlo.if"(%p) ({
%r152 = "stablehlo.if"(%p) ({
%r151 = "stablehlo.if"(%p) ({
%r150 = "stablehlo.if"(%p) ({
%r149 = "stablehlo.if"(%p) ({
%r148 = "stablehlo.if"(%p) ({
%r147 = "stablehlo.if"(%p) ({
%r146 = "stablehlo.if"(%p) ({
%r145 = "stablehlo.if"(%p) ({
%r144 = "stablehlo.if"(%p) ({
%r143 = "stablehlo.if"(%p) ({
%r142 = "stablehlo.if"(%p) ({
%r141 = "stablehlo.if"(%p) ({
%r140 = "stablehlo.if"(%p) ({
%r139 = "stablehlo.if"(%p) ({
%r138 = "stablehlo.if"(%p) ({
%r137 = "stablehlo.if"(%p) ({
%r136 = "stablehlo.if"(%p) ({
%r135 = "stablehlo.if"(%p) ({
%r134 = "stablehlo.if"(%p) ({
%r133 = "stablehlo.if"(%p) ({
%r132 = "stablehlo.if"(%p) ({
%r131 = "stablehlo.if"(%p) ({
%r130 = "stablehlo.if"(%p) ({
%r129 = "stablehlo.if"(%p) ({
%r128 = "stablehlo.if"(%p) ({
%r127 = "stablehlo.if"(%p) ({
%r126 = "stablehlo.if"(%p) ({
%r125 = "stablehlo.if"(%p) ({
%r124 = "stablehlo.if"(%p) ({
%r123 = "stablehlo.if"(%p) ({
%r122 = "stablehlo.if"(%p) ({
%r121 = "stablehlo.if"(%p) ({
%r120 = "stablehlo.if"(%p) ({
%r119 = "stablehlo.if"(%p) ({
%r118 = "stablehlo.if"(%p) ({
%r117 = "stablehlo.if"(%p) ({
%r116 = "stablehlo.if"(%p) ({
%r115 = "stablehlo.if"(%p) ({
%r114 = "stablehlo.if"(%p) ({
%r113 = "stablehlo.if"(%p) ({
%r112 = "stablehlo.if"(%p) ({
%r111 = "stablehlo.if"(%p) ({
%r110 = "stablehlo.if"(%p) ({
%r109 = "stablehlo.if"(%p) ({
%r108 = "stablehlo.if"(%p) ({
%r107 = "stablehlo.if"(%p) ({
%r106 = "stablehlo.if"(%p) ({
%r105 = "stablehlo.if"(%p) ({
%r104 = "stablehlo.if"(%p) ({
%r103 = "stablehlo.if"(%p) ({
%r102 = "stablehlo.if"(%p) ({
%r101 = "stablehlo.if"(%p) ({
%r100 = "stablehlo.if"(%p) ({
%r99 = "stablehlo.if"(%p) ({
%r98 = "stablehlo.if"(%p) ({
%r97 = "stablehlo.if"(%p) ({
%r96 = "stablehlo.if"(%p) ({
%r95 = "stablehlo.if"(%p) ({
%r94 = "stablehlo.if"(%p) ({
%r93 = "stablehlo.if"(%p) ({
%r92 = "stablehlo.if"(%p) ({
%r91 = "stablehlo.if"(%p) ({
%r90 = "stablehlo.if"(%p) ({
%r89 = "stablehlo.if"(%p) ({
%r88 = "stablehlo.if"(%p) ({
%r87 = "stablehlo.if"(%p) ({
%r86 = "stablehlo.if"(%p) ({
%r85 = "stablehlo.if"(%p) ({
%r84 = "stablehlo.if"(%p) ({
%r83 = "stablehlo.if"(%p) ({
%r82 = "stablehlo.if"(%p) ({
%r81 = "stablehlo.if"(%p) ({
%r80 = "stablehlo.if"(%p) ({
%r79 = "stablehlo.if"(%p) ({
%r78 = "stablehlo.if"(%p) ({
%r77 = "stablehlo.if"(%p) ({
%r76 = "stablehlo.if"(%p) ({
%r75 = "stablehlo.if"(%p) ({
%r74 = "stablehlo.if"(%p) ({
%r73 = "stablehlo.if"(%p) ({
%r72 = "stablehlo.if"(%p) ({
%r71 = "stablehlo.if"(%p) ({
%r70 = "stablehlo.if"(%p) ({
%r69 = "stablehlo.if"(%p) ({
%r68 = "stablehlo.if"(%p) ({
%r67 = "stablehlo.if"(%p) ({
%r66 = "stablehlo.if"(%p) ({
%r65 = "stablehlo.if"(%p) ({
%r64 = "stablehlo.if"(%p) ({
%r63 = "stablehlo.if"(%p) ({
%r62 = "stablehlo.if"(%p) ({
%r61 = "stablehlo.if"(%p) ({
%r60 = "stablehlo.if"(%p) ({
%r59 = "stablehlo.if"(%p) ({
%r58 = "stablehlo.if"(%p) ({
%r57 = "stablehlo.if"(%p) ({
%r56 = "stablehlo.if"(%p) ({
%r55 = "stablehlo.if"(%p) ({
%r54 = "stablehlo.if"(%p) ({
%r53 = "stablehlo.if"(%p) ({
%r52 = "stablehlo.if"(%p) ({
%r51 = "stablehlo.if"(%p) ({
%r50 = "stablehlo.if"(%p) ({
%r49 = "stablehlo.if"(%p) ({
%r48 = "stablehlo.if"(%p) ({
%r47 = "stablehlo.if"(%p) ({
%r46 = "stablehlo.if"(%p) ({
%r45 = "stablehlo.if"(%p) ({
%r44 = "stablehlo.if"(%p) ({
%r43 = "stablehlo.if"(%p) ({
%r42 = "stablehlo.if"(%p) ({
%r41 = "stablehlo.if"(%p) ({
%r40 = "stablehlo.if"(%p) ({
%r39 = "stablehlo.if"(%p) ({
%r38 = "stablehlo.if"(%p) ({
%r37 = "stablehlo.if"(%p) ({
%r36 = "stablehlo.if"(%p) ({
%r35 = "stablehlo.if"(%p) ({
%r34 = "stablehlo.if"(%p) ({
%r33 = "stablehlo.if"(%p) ({
%r32 = "stablehlo.if"(%p) ({
%r31 = "stablehlo.if"(%p) ({
%r30 = "stablehlo.if"(%p) ({
%r29 = "stablehlo.if"(%p) ({
%r28 = "stablehlo.if"(%p) ({
%r27 = "stablehlo.if"(%p) ({
%r26 = "stablehlo.if"(%p) ({
%r25 = "stablehlo.if"(%p) ({
%r24 = "stablehlo.if"(%p) ({
%r23 = "stablehlo.if"(%p) ({
%r22 = "stablehlo.if"(%p) ({
%r21 = "stablehlo.if"(%p) ({
%r20 = "stablehlo.if"(%p) ({
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
stablehlo.return %r19 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r20 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r21 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r22 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r23 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r24 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r25 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r26 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r27 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r28 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r29 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r30 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r31 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r32 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r33 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r34 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r35 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r36 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r37 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r38 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r39 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r40 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r41 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r42 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r43 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r44 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r45 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r46 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r47 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r48 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r49 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r50 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r51 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r52 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r53 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r54 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r55 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r56 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r57 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r58 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r59 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r60 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r61 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r62 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r63 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r64 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r65 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r66 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r67 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r68 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r69 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r70 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r71 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r72 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r73 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r74 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r75 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r76 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r77 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r78 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r79 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r80 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r81 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r82 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r83 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r84 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r85 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r86 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r87 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r88 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r89 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r90 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r91 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r92 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r93 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r94 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r95 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r96 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r97 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r98 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r99 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r100 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r101 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r102 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r103 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r104 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r105 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r106 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r107 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r108 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r109 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r110 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r111 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r112 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r113 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r114 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r115 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r116 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r117 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r118 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r119 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r120 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r121 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r122 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r123 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r124 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r125 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r126 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r127 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r128 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r129 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r130 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r131 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r132 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r133 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r134 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r135 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r136 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r137 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r138 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r139 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r140 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r141 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r142 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r143 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r144 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r145 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r146 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r147 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r148 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r149 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r150 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r151 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r152 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r153 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r154 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r155 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r156 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r157 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
stablehlo.return %r158 : tensor<i32>
}, {
stablehlo.return %x : tensor<i32>
}) : (tensor<i1>) -> tensor<i32>
return %r159 : tensor<i32>
}
func.func @main(%x: tensor<i32>) -> tensor<i32> {
%p = stablehlo.constant dense<true> : tensor<i1>
%0 = func.call @f(%p, %x) : (tensor<i1>, tensor<i32>) -> tensor<i32>
return %0 : tensor<i32>
}
