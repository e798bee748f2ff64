#pragma once
// The element types attn-tutor prints. Tensors compute in float32; the others exist for printing
// (bool masks, int64 indices, float64 print vectors).
#include "core/named.h"

namespace attn {
enum class DType { Float32, Float64, Int64, Int32, Bool };

// PyTorch's names: "float32", as in torch.float32.
inline constexpr EnumName<DType> kDTypeNames[] = {{DType::Float32, "float32"},
                                                  {DType::Float64, "float64"},
                                                  {DType::Int64, "int64"},
                                                  {DType::Int32, "int32"},
                                                  {DType::Bool, "bool"}};
inline const char* dtype_name(DType d) { return enum_name(kDTypeNames, d); }
}  // namespace attn
