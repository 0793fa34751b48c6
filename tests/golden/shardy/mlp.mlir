module @jit_f attributes {mhlo.num_partitions = 8 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["data"=2, "model"=4]> {stablehlo.mesh = {axes = [{name = "data", size = 2 : i64}, {name = "model", size = 4 : i64}]}}
  func.func public @main(%arg0: tensor<32x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}, %arg1: tensor<64x256xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{}, {"model"}]>}, %arg2: tensor<256xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}]>}, %arg3: tensor<256x64xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"model"}, {}]>}) -> (tensor<32x64xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {}]>}) {
    %0 = stablehlo.convert %arg0 : tensor<32x64xf32>
    %1 = stablehlo.convert %arg1 : (tensor<64x256xbf16>) -> tensor<64x256xf32>
    %2 = stablehlo.dot_general %0, %1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x64xf32>, tensor<64x256xf32>) -> tensor<32x256xf32>
    %3 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<256xf32>) -> tensor<1x256xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x256xf32>) -> tensor<32x256xf32>
    %5 = stablehlo.add %2, %4 : tensor<32x256xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<32x256xf32>
    %7 = stablehlo.maximum %5, %6 : tensor<32x256xf32>
    %8 = stablehlo.dot_general %7, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<32x256xf32>, tensor<256x64xf32>) -> tensor<32x64xf32>
    return %8 : tensor<32x64xf32>
  }
}
