/* test-recording-builder.c — the builder a recording drops once it is
 * filled (hl_recording_end_filling()): the same summary after, and
 * appends after it behave as before it. */
#include "hl-model.h"

#include "hl-recording-builder.h"
#include "hl-recording-tables.h"

/* Two threads' allocations, a free by address, a temporary one, and a
 * free whose allocation never arrives (unknown once the recording ends). */
static HlRecording *
filled_recording (void)
{
  HlRecording *rec = hl_recording_new ();
  const guint64 frames[] = { 0x1000, 0x2000 };

  hl_recording_append_thread (rec, 0, 10, "main", FALSE);
  hl_recording_append_stack (rec, 1, frames, G_N_ELEMENTS (frames));
  hl_recording_append_alloc (rec, 0, 100, 10, 64, 0xa000, 1);
  hl_recording_append_alloc (rec, 1, 110, 11, 32, 0xb000, 1);
  hl_recording_append_free (rec, HL_ALLOC_ID_NONE, 0xa000, 120, 10); /* temporary */
  hl_recording_append_alloc (rec, 2, 130, 10, 16, 0xc000, 1);
  hl_recording_append_free (rec, 2, 0, 140, 10);  /* temporary too */
  hl_recording_append_free (rec, 7, 0, 150, 11);  /* its allocation never comes */
  hl_recording_commit (rec);
  return rec;
}

static void
assert_same_summary (const HlSummary *a,
                     const HlSummary *b)
{
  g_assert_cmpuint (a->n_allocations, ==, b->n_allocations);
  g_assert_cmpuint (a->n_frees, ==, b->n_frees);
  g_assert_cmpuint (a->bytes_allocated, ==, b->bytes_allocated);
  g_assert_cmpuint (a->temporary, ==, b->temporary);
  g_assert_cmpuint (a->peak_heap_bytes, ==, b->peak_heap_bytes);
  g_assert_cmpuint (a->leaked_bytes, ==, b->leaked_bytes);
  g_assert_cmpuint (a->leaked_blocks, ==, b->leaked_blocks);
  g_assert_cmpuint (a->frees_unknown, ==, b->frees_unknown);
  g_assert_cmpuint (a->n_threads, ==, b->n_threads);
  g_assert_cmpuint (a->n_stacks, ==, b->n_stacks);
}

static void
test_end_filling_keeps_summary (void)
{
  g_autoptr (HlRecording) rec = filled_recording ();
  HlSummary before, after;

  hl_recording_get_summary (rec, &before);
  g_assert_cmpuint (before.temporary, ==, 2);
  g_assert_cmpuint (before.frees_unknown, ==, 1);
  hl_recording_end_filling (rec);
  hl_recording_get_summary (rec, &after);
  assert_same_summary (&before, &after);
  hl_recording_end_filling (rec); /* twice: nothing more */
  hl_recording_get_summary (rec, &after);
  assert_same_summary (&before, &after);
}

/* Appends after end_filling(): on a builder made again from the tables,
 * the same results as on a recording that kept its builder (but for the
 * waiting free, counted unknown by then either way). */
static void
test_append_after_end_filling (void)
{
  g_autoptr (HlRecording) kept = filled_recording ();
  g_autoptr (HlRecording) ended = filled_recording ();
  HlRecording *recs[] = { kept, ended };
  HlSummary a, b;
  guint n_threads;

  hl_recording_end_filling (ended);
  for (guint i = 0; i < G_N_ELEMENTS (recs); i++)
    {
      /* thread 11's last allocation is 1: its free is temporary (and so
       * is the free by address of 3, thread 10's last) */
      hl_recording_append_free (recs[i], 1, 0, 160, 11);
      /* a known tid is the same thread; a free by address finds 3 */
      hl_recording_append_alloc (recs[i], 3, 170, 10, 8, 0xd000, 1);
      hl_recording_append_thread (recs[i], 175, 12, "worker", FALSE);
      hl_recording_append_alloc (recs[i], 4, 180, 12, 8, 0xe000, 1);
      hl_recording_append_free (recs[i], HL_ALLOC_ID_NONE, 0xd000, 190, 10);
      hl_recording_commit (recs[i]);
    }
  hl_recording_get_summary (kept, &a);
  hl_recording_get_summary (ended, &b);
  g_assert_cmpuint (a.temporary, ==, 4);
  g_assert_cmpuint (a.n_threads, ==, 3);
  assert_same_summary (&a, &b);
  hl_recording_get_threads (ended, &n_threads);
  g_assert_cmpuint (n_threads, ==, 3);
}

/* The frames of a return address, as the recording's stacks expand it: a
 * placeholder named by the address (not symbolized: no module map here),
 * the same frame as the stack's; none for an address in no stack. */
static void
test_address_frames (void)
{
  g_autoptr(HlRecording) rec = hl_recording_new ();
  const guint64 frames[] = { 0x1234, 0x5678 };
  guint n = 0;

  hl_recording_append_stack (rec, 1, frames, 2);
  hl_recording_append_alloc (rec, 0, 10, 1, 100, 0xa0, 1);
  hl_recording_commit (rec);
  {
    g_autoptr(GPtrArray) a = hl_recording_get_address_frames (rec, 0x5678);
    const HlFrame * const *stack = hl_recording_get_stack_frames (rec, hl_recording_lookup_stack (rec, 1), &n);
    g_assert_cmpuint (a->len, ==, 1);
    g_assert_cmpuint (n, ==, 2);
    g_assert_true (g_ptr_array_index (a, 0) == stack[1]);
    g_assert_false (stack[1]->resolved);
    g_assert_cmpuint (stack[1]->address, ==, 0x5678);
  }
  {
    g_autoptr(GPtrArray) none = hl_recording_get_address_frames (rec, 0x9999);
    g_assert_cmpuint (none->len, ==, 0);
  }
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/recording-builder/end-filling-keeps-summary", test_end_filling_keeps_summary);
  g_test_add_func ("/recording-builder/address-frames", test_address_frames);
  g_test_add_func ("/recording-builder/append-after-end-filling", test_append_after_end_filling);
  return g_test_run ();
}
