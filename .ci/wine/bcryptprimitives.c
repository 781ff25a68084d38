/* A stand-in for bcryptprimitives.dll, for Wine versions without its ProcessPrng (Wine 8.0,
 * Debian 12's and 13's): Rust's standard library on Windows asks ProcessPrng for the random
 * keys of every HashMap, so without it no Rust program starts under such a Wine. This one
 * fills the buffer from RtlGenRandom (advapi32's SystemFunction036), which every Wine has.
 * Used only to run the Windows build's tests under Wine (.ci/wine-check); it never ships. */
#include <windows.h>

BOOLEAN WINAPI SystemFunction036(PVOID buffer, ULONG length);

__declspec(dllexport) BOOL WINAPI ProcessPrng(PBYTE data, SIZE_T length)
{
    /* RtlGenRandom takes a 32-bit length: ask for at most 256 MiB at a time. */
    while (length > 0) {
        ULONG chunk = length > 0x10000000 ? 0x10000000 : (ULONG)length;
        if (!SystemFunction036(data, chunk))
            return FALSE;
        data += chunk;
        length -= chunk;
    }
    return TRUE;
}
