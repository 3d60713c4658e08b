/* hl-model-test-program.h — a recording of a small program, built in
 * memory with modules and symbols, for the self cost and diff tests
 * (tests/model and tests/app).
 *
 * The executable EXE (build-id BUILD_ID, or none when NULL) and libc:
 *   main calls helper, strdup and an address of EXE without a symbol,
 *   and allocates directly too. Stacks (innermost first):
 *     1 = helper ← main          2 × 100 B, freed
 *     2 = main (its own call)    3 × 1000 B, never freed
 *     3 = strdup (libc) ← main   1 × 10 B, never freed
 *     4 = EXE+0x300 ← main       1 × 7 B, freed
 * Top-down: main (7 allocations, 3 of them its own) → helper, strdup,
 * "<basename>+0x300". */
#pragma once

#include "hl-model.h"

#define HL_TEST_PROGRAM_MAIN_SELF_BYTES 3000

HlRecording *hl_test_program_recording (const char *exe,
                                        const char *build_id);
