/* hl-model-test-recording.c — see hl-model-test-recording.h. */
#include "hl-model-test-recording.h"
#include "hl-recording-builder.h"

HlRecording *
hl_test_small_recording (guint64 leaf_size)
{
  HlRecording *rec = hl_recording_new ();
  const guint64 s1[] = { 0x1000, 0x2000, 0x3000 };
  const guint64 s2[] = { 0x1100, 0x2000, 0x3000 };
  const guint64 s3[] = { 0x1200, 0x3000 };

  hl_recording_append_stack (rec, 1, s1, 3);
  hl_recording_append_stack (rec, 2, s2, 3);
  hl_recording_append_stack (rec, 3, s3, 2);
  hl_recording_append_thread (rec, 0, 200, "worker", FALSE);
  hl_recording_append_metadata (rec, 0, 100, "phase", "load");
  hl_recording_append_alloc (rec, 0, 10, 100, 100, 0xa0, 1);
  hl_recording_append_free (rec, 0, 0, 20, 100);
  hl_recording_append_alloc (rec, 1, 30, 100, 200, 0xa1, 2);
  hl_recording_append_alloc (rec, 2, 40, 100, 50, 0xa2, 3);
  hl_recording_append_free (rec, 1, 0, 50, 100);
  hl_recording_append_metadata (rec, 55, 100, "phase", "run");
  hl_recording_append_alloc (rec, 3, 60, 200, 1000, 0xa3, 1);
  hl_recording_append_alloc (rec, 4, 70, 100, 10, 0xa4, 2);
  hl_recording_append_free (rec, 3, 0, 80, 200);
  hl_recording_append_alloc (rec, 5, 90, 200, leaf_size, 0xa5, 3);
  hl_recording_append_mark (rec, 95, 100, "done");
  hl_recording_commit (rec);
  return rec;
}
