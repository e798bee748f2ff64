#pragma once
// Which SIMD kernels the bench runs, chosen at run time: the widest this CPU has among those
// compiled for its architecture. x86-64: AVX-512 (AVX512F), then AVX2+FMA; arm64: NEON (always
// there); everywhere: portable C++, which is always compiled and always correct.
#include <string>
#include <vector>

namespace attn {

enum class Isa { Avx512, Avx2Fma, Neon, Portable };

const char* isa_name(Isa isa);                          // "AVX-512", "AVX2+FMA", "NEON", "portable C++"
bool isa_from_name(const std::string& name, Isa& isa);  // avx512, avx2, neon, portable
bool isa_supported(Isa isa);                            // compiled for this architecture and this CPU runs it
std::vector<Isa> supported_isas();                      // widest first; portable last
Isa best_isa();
Isa active_isa();         // what the kernels use: best_isa() unless forced
void force_isa(Isa isa);  // tests and `bench --kernels`: an unsupported choice falls back to portable
// For --version: the kernels this CPU runs, their tiles, and the threading.
std::string kernel_summary();

}  // namespace attn
