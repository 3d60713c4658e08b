/* hl-crc32c-private.h — the slicing-by-8 tables (hl-crc32c-table.c). */
#pragma once

#include <stdint.h>

extern const uint32_t hl_crc32c_table[8][256];
