/* hl-crc32c.h — CRC-32C (Castagnoli), the checksum of trace packets.
 *
 * hl_crc32c (0, data, n) is the standard CRC-32C of DATA (initial value and
 * final xor 0xffffffff are applied inside): "123456789" gives 0xe3069283.
 * Pass a previous result as CRC to continue over several pieces.
 * Uses the SSE4.2 crc32 instruction when the CPU has it, slicing-by-8
 * tables otherwise. Plain C11, libc only, no state but a cached CPU probe.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

uint32_t hl_crc32c          (uint32_t crc, const void *data, size_t n);
/* The table implementation alone (tests compare both). */
uint32_t hl_crc32c_portable (uint32_t crc, const void *data, size_t n);
