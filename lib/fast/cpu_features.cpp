#include "fast/cpu_features.h"

#include <atomic>

#include "fast/kernels.h"
#include "fast/parallel.h"

namespace attn {

namespace {

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

const char* isa_name(Isa isa) {
  switch (isa) {
    case Isa::Avx512:
      return "AVX-512";
    case Isa::Avx2Fma:
      return "AVX2+FMA";
    case Isa::Neon:
      return "NEON";
    case Isa::Portable:
      break;
  }
  return "portable C++";
}

bool isa_from_name(const std::string& name, Isa& isa) {
  if (name == "avx512")
    isa = Isa::Avx512;
  else if (name == "avx2")
    isa = Isa::Avx2Fma;
  else if (name == "neon")
    isa = Isa::Neon;
  else if (name == "portable")
    isa = Isa::Portable;
  else
    return false;
  return true;
}

bool isa_supported(Isa isa) { return cpu_has(isa); }

std::vector<Isa> supported_isas() {
  std::vector<Isa> list;
  for (Isa isa : {Isa::Avx512, Isa::Avx2Fma, Isa::Neon, Isa::Portable})
    if (cpu_has(isa)) list.push_back(isa);
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
