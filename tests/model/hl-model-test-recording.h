/* hl-model-test-recording.h — the hand-built recording of the model's
 * tests (test-costs, test-trees), whose answers are computed by hand. */
#pragma once

#include "hl-model.h"

/* Stacks (innermost first):
 *   1 = 0x1000 ← 0x2000 ← 0x3000
 *   2 = 0x1100 ← 0x2000 ← 0x3000
 *   3 = 0x1200 ← 0x3000
 * Events:
 *   t=10 alloc  #0 tid 100 100 B stack 1
 *   t=20 free   #0 tid 100            temporary (thread 100's last allocation)
 *   t=30 alloc  #1 tid 100 200 B stack 2
 *   t=40 alloc  #2 tid 100  50 B stack 3
 *   t=50 free   #1 tid 100            not temporary (#2 came in between)
 *   t=60 alloc  #3 tid 200 1000 B stack 1
 *   t=70 alloc  #4 tid 100  10 B stack 2
 *   t=80 free   #3 tid 200            temporary (thread 200 allocated nothing since)
 *   t=90 alloc  #5 tid 200   5 B stack 3   (LEAF_SIZE) never freed
 * Heap: 100, 0, 200, 250, 50, 1050, 1060 (peak at t=70: #2 #3 #4), 60, 65.
 * Metadata phase=load at 0, phase=run at 55; thread 200 "worker"; mark
 * "done" at 95. */
HlRecording *hl_test_small_recording (guint64 leaf_size);
