#pragma once
// The element types attn-tutor prints. Tensors compute in float32; the others exist for printing
// (bool masks, int64 indices, float64 print vectors).
namespace attn {
enum class DType { Float32, Float64, Int64, Int32, Bool };

// PyTorch's name: "float32", as in torch.float32.
inline const char* dtype_name(DType d) {
  switch (d) {
    case DType::Float32:
      return "float32";
    case DType::Float64:
      return "float64";
    case DType::Int64:
      return "int64";
    case DType::Int32:
      return "int32";
    case DType::Bool:
      return "bool";
  }
  return "float32";
}
}  // namespace attn
