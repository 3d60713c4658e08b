/* hl-crc32c.c — CRC-32C with a hardware path on x86-64. */

#include "hl-crc32c.h"

#include <string.h>

#include "private/hl-crc32c-private.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#define HL_CRC32C_HW 1
#endif

uint32_t
hl_crc32c_portable (uint32_t crc, const void *data, size_t n)
{
  const uint8_t *p = data;
  uint32_t c = ~crc;

  while (n > 0 && ((uintptr_t) p & 7) != 0)
    {
      c = hl_crc32c_table[0][(c ^ *p++) & 0xff] ^ (c >> 8);
      n--;
    }
  while (n >= 8)
    {
      uint32_t lo, hi;
      memcpy (&lo, p, 4);
      memcpy (&hi, p + 4, 4);
      lo ^= c;
      c = hl_crc32c_table[7][lo & 0xff] ^ hl_crc32c_table[6][(lo >> 8) & 0xff]
        ^ hl_crc32c_table[5][(lo >> 16) & 0xff] ^ hl_crc32c_table[4][lo >> 24]
        ^ hl_crc32c_table[3][hi & 0xff] ^ hl_crc32c_table[2][(hi >> 8) & 0xff]
        ^ hl_crc32c_table[1][(hi >> 16) & 0xff] ^ hl_crc32c_table[0][hi >> 24];
      p += 8;
      n -= 8;
    }
  while (n > 0)
    {
      c = hl_crc32c_table[0][(c ^ *p++) & 0xff] ^ (c >> 8);
      n--;
    }
  return ~c;
}

#ifdef HL_CRC32C_HW
__attribute__ ((target ("sse4.2"))) static uint32_t
crc32c_sse42 (uint32_t crc, const void *data, size_t n)
{
  const uint8_t *p = data;
  uint64_t c = (uint32_t) ~crc;

  while (n > 0 && ((uintptr_t) p & 7) != 0)
    {
      c = __builtin_ia32_crc32qi ((uint32_t) c, *p++);
      n--;
    }
  while (n >= 8)
    {
      uint64_t v;
      memcpy (&v, p, 8);
      c = __builtin_ia32_crc32di (c, v);
      p += 8;
      n -= 8;
    }
  while (n > 0)
    {
      c = __builtin_ia32_crc32qi ((uint32_t) c, *p++);
      n--;
    }
  return ~(uint32_t) c;
}

/* 0 = not probed yet, 1 = no SSE4.2, 2 = SSE4.2. Probing twice is harmless. */
static int crc32c_hw_state;

static int
crc32c_have_hw (void)
{
  int state = __atomic_load_n (&crc32c_hw_state, __ATOMIC_RELAXED);
  if (state == 0)
    {
      unsigned eax, ebx, ecx = 0, edx;
      state = 1;
      if (__get_cpuid (1, &eax, &ebx, &ecx, &edx) && (ecx & bit_SSE4_2) != 0)
        state = 2;
      __atomic_store_n (&crc32c_hw_state, state, __ATOMIC_RELAXED);
    }
  return state == 2;
}
#endif

uint32_t
hl_crc32c (uint32_t crc, const void *data, size_t n)
{
#ifdef HL_CRC32C_HW
  if (crc32c_have_hw ())
    return crc32c_sse42 (crc, data, n);
#endif
  return hl_crc32c_portable (crc, data, n);
}
