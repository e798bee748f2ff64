#pragma once
// The element types attn-tutor prints. Tensors compute in float32; the others exist for printing
// (bool masks, int64 indices, float64 print vectors).
namespace attn {
enum class DType { Float32, Float64, Int64, Int32, Bool };
}
