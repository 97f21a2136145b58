#ifndef COORDSH_CYCLE_COUNTER_H
#define COORDSH_CYCLE_COUNTER_H

// The processor's own tick counter, for the host's accounting of each plugin's code
// (FeatureClock): one instruction and no system call, where the monotonic clock's read through
// the vDSO costs five to ten times as much, twice per counted handler. Its rate is not known
// here; FeatureClock calibrates it against CLOCK_MONOTONIC_RAW.

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

/// The tick counter: the time-stamp counter on x86, the virtual counter on AArch64, the raw
/// monotonic clock's nanoseconds elsewhere.
static inline uint64_t coordsh_ticks(void) {
#if defined(__x86_64__) || defined(__i386__)
    return __builtin_ia32_rdtsc();
#elif defined(__aarch64__)
    uint64_t value;
    __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(value));
    return value;
#else
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC_RAW, &now);
    return (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
#endif
}

/// Whether coordsh_ticks() counts at one constant rate on every processor, whatever their
/// power states: on x86 the invariant TSC (CPUID 0x80000007, EDX bit 8); without it a tick
/// is no measure of time and the caller reads the monotonic clock instead.
static inline bool coordsh_ticks_are_steady(void) {
#if defined(__x86_64__) || defined(__i386__)
    unsigned int eax = 0, ebx = 0, ecx = 0, edx = 0;
    if (!__get_cpuid(0x80000000u, &eax, &ebx, &ecx, &edx) || eax < 0x80000007u) return false;
    if (!__get_cpuid(0x80000007u, &eax, &ebx, &ecx, &edx)) return false;
    return (edx & (1u << 8)) != 0;
#else
    return true;
#endif
}

#endif
