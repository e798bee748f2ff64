#include "fast/cpu_features.h"

#include <atomic>

#include "core/named.h"
#include "fast/kernels.h"
#include "fast/parallel.h"

namespace attn {

namespace {

// Widest first: what the report shows, and the word --kernels takes.
constexpr EnumName<Isa> kIsaNames[] = {
    {Isa::Avx512, "AVX-512"}, {Isa::Avx2Fma, "AVX2+FMA"}, {Isa::Neon, "NEON"}, {Isa::Portable, "portable C++"}};
constexpr EnumName<Isa> kIsaWords[] = {
    {Isa::Avx512, "avx512"}, {Isa::Avx2Fma, "avx2"}, {Isa::Neon, "neon"}, {Isa::Portable, "portable"}};

bool cpu_has(Isa isa) {
  switch (isa) {
#if defined(__x86_64__)
    case Isa::Avx512:  // the CPU and the OS (ZMM state saved): __builtin_cpu_supports checks both
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    case Isa::Avx2Fma:
      __builtin_cpu_init();
      return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
#if defined(__aarch64__)
    case Isa::Neon:  // part of every arm64 CPU
      return true;
#endif
    case Isa::Portable:
      return true;
    default:
      return false;
  }
}

std::atomic<Isa>& active() {
  static std::atomic<Isa> isa{best_isa()};
  return isa;
}

}  // namespace

const char* isa_name(Isa isa) { return enum_name(kIsaNames, isa); }

bool isa_from_name(const std::string& name, Isa& isa) { return enum_value(kIsaWords, name, isa); }

bool isa_supported(Isa isa) { return cpu_has(isa); }

std::vector<Isa> supported_isas() {
  std::vector<Isa> list;
  for (const EnumName<Isa>& row : kIsaNames)
    if (cpu_has(row.value)) list.push_back(row.value);
  return list;
}

Isa best_isa() { return supported_isas().front(); }

Isa active_isa() { return active().load(); }

void force_isa(Isa isa) { active().store(cpu_has(isa) ? isa : Isa::Portable); }

std::string kernel_summary() {
  const KernelSet& k = active_kernels();
  std::string s = std::string("bench kernels: ") + isa_name(k.isa) + " (GEMM micro-kernel " + std::to_string(k.mr) +
                  "x" + std::to_string(k.nr) + ", flash tiles of " + std::to_string(k.flash_br) + " queries x " +
                  std::to_string(k.flash_bc) + " keys; peak loop: " + k.fma_loop_text + ")";
  const std::vector<Isa> all = supported_isas();
  std::string others;
  for (Isa isa : all)
    if (isa != k.isa) others += std::string(others.empty() ? "" : ", ") + isa_name(isa);
  if (!others.empty()) s += "; also on this CPU: " + others;
  s += "; threads: ";
  s += threading_name();
  return s;
}

const KernelSet& kernel_set(Isa isa) {
  switch (isa) {
#if defined(__x86_64__)
    case Isa::Avx512:
      return avx512_kernels();
    case Isa::Avx2Fma:
      return avx2_kernels();
#endif
#if defined(__aarch64__)
    case Isa::Neon:
      return neon_kernels();
#endif
    default:
      return portable_kernels();
  }
}

const KernelSet& active_kernels() { return kernel_set(active_isa()); }

}  // namespace attn
