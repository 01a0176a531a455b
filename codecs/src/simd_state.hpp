// The SIMD register state a codec call leaves behind. Debian's libxxhash (XXH3 through its
// AVX-512 dispatch) returns with the upper halves of the vector registers dirty, and on this
// project's machines (AMD EPYC under KVM) the application's legacy-SSE code that runs after it
// is then several times slower until the next VZEROUPPER: a loop of scalar double arithmetic
// took 3.2 s instead of 0.7 s after one 64 KiB XXH3 call (docs/design.md, "The SIMD state a
// codec call leaves"). CoMD, whose sends pml/zip sampled, computed 30-40 % slower. Every entry
// point of the engine that can run vector code clears that state before it returns.
#pragma once

namespace zip
{

// VZEROUPPER where the CPU has AVX (chosen once); nothing elsewhere.
void clear_upper_state();

// Clears the state when it goes out of scope: one at the top of an entry point covers every
// return.
struct UpperStateGuard {
    UpperStateGuard() = default;
    UpperStateGuard(const UpperStateGuard &) = delete;
    UpperStateGuard &operator=(const UpperStateGuard &) = delete;
    ~UpperStateGuard() { clear_upper_state(); }
};

} // namespace zip
