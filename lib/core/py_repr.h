#pragma once
// The one place numbers become text the way Python and PyTorch write them.
#include <string>

namespace attn {

// Python's repr of a float (a double): the shortest digits that read back, "0.5", "1.4285714285714286",
// "1e-05", "1e+16", "-0.0", "inf", "nan".
std::string py_float(double v);

// The shortest decimal digits that read back as the same float32: "0.43", "1", "-0", "1e-07".
std::string float32_text(float v);

}  // namespace attn
