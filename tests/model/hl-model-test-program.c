/* hl-model-test-program.c — see hl-model-test-program.h. */
#include "hl-model-test-program.h"
#include "hl-recording-builder.h"

#define EXE_START  0x400000u
#define LIBC_START 0x7f0000000ull

static void
set_frame (HlRecording *rec,
           guint64      address,
           int          module,
           const char  *function,
           const char  *file,
           guint        line)
{
  HlResolvedFrame frame = { .function = function, .file = file, .line = line };

  hl_frame_table_set_address_frames (hl_recording_get_frame_table (rec), address, module, &frame, 1);
}

HlRecording *
hl_test_program_recording (const char *exe,
                           const char *build_id)
{
  HlRecording *rec = hl_recording_new ();
  const guint8 libc_id[] = { 0x11, 0x22, 0x33, 0x44 };
  guint8 exe_id[32];
  gsize exe_id_len = 0;
  const guint64 s1[] = { EXE_START + 0x200, EXE_START + 0x100 };
  const guint64 s2[] = { EXE_START + 0x180 };
  const guint64 s3[] = { LIBC_START + 0x5000, EXE_START + 0x104 };
  const guint64 s4[] = { EXE_START + 0x300, EXE_START + 0x108 };
  guint64 id = 0, t = 10;

  for (; build_id != NULL && build_id[exe_id_len] != '\0' && exe_id_len < sizeof exe_id; exe_id_len++)
    exe_id[exe_id_len] = (guint8) build_id[exe_id_len];
  hl_recording_append_info (rec, "exe", exe);
  hl_recording_append_module (rec, exe, EXE_START, 0x10000, 0, exe_id, exe_id_len);
  hl_recording_append_module (rec, "/lib/x86_64-linux-gnu/libc.so.6", LIBC_START, 0x100000, 0,
                              libc_id, sizeof libc_id);
  /* Symbols before the stacks are expanded; EXE+0x300 keeps its
   * placeholder name. */
  set_frame (rec, EXE_START + 0x100, 0, "main", "/build/one/main.c", 10);
  set_frame (rec, EXE_START + 0x104, 0, "main", "/build/one/main.c", 11);
  set_frame (rec, EXE_START + 0x108, 0, "main", "/build/one/main.c", 12);
  set_frame (rec, EXE_START + 0x180, 0, "main", "/build/one/main.c", 14);
  set_frame (rec, EXE_START + 0x200, 0, "helper", "/build/one/helper.c", 3);
  set_frame (rec, LIBC_START + 0x5000, 1, "strdup", NULL, 0);
  hl_recording_append_stack (rec, 1, s1, G_N_ELEMENTS (s1));
  hl_recording_append_stack (rec, 2, s2, G_N_ELEMENTS (s2));
  hl_recording_append_stack (rec, 3, s3, G_N_ELEMENTS (s3));
  hl_recording_append_stack (rec, 4, s4, G_N_ELEMENTS (s4));

  for (guint i = 0; i < 2; i++, id++, t += 10)
    {
      hl_recording_append_alloc (rec, id, t, 1, 100, 0x1000 + id * 0x100, 1);
      hl_recording_append_free (rec, id, 0, t + 5, 1);
    }
  for (guint i = 0; i < 3; i++, id++, t += 10)
    hl_recording_append_alloc (rec, id, t, 1, 1000, 0x1000 + id * 0x100, 2);
  hl_recording_append_alloc (rec, id, t, 1, 10, 0x1000 + id * 0x100, 3);
  id++, t += 10;
  hl_recording_append_alloc (rec, id, t, 1, 7, 0x1000 + id * 0x100, 4);
  hl_recording_append_free (rec, id, 0, t + 5, 1);
  hl_recording_append_end (rec, t + 100, 0);
  hl_recording_commit (rec);
  return rec;
}
