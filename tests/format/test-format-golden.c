/* test-format-golden.c — committed traces in tests/format/data/ and their
 * expected dumps. The writer must produce the same bytes (a change of
 * encoding must bump the version and regenerate them), and the reader must
 * print the same dump, through the library and through `heaplens-cli dump`.
 *
 *   test-format-golden --regenerate DIR   writes the files anew */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hl-format-test-gen.h"
#include "hl-test-util.h"
#include "hl-trace-dump.h"
#include "hl-trace-index.h"

typedef struct
{
  const char  *name;
  HlGenOptions gen;
  long         cut_from_end;  /* bytes removed at the end */
  long         flip_at;       /* a byte flipped (0 = none) */
  int          indexed;
  int          expect_status; /* of heaplens-cli dump */
} GoldenCase;

static const GoldenCase cases[] = {
  { "basic", { 101, 150, 2, 1024, 1 }, 0, 0, 0, 0 },
  { "cut", { 101, 150, 2, 1024, 1 }, 100, 0, 0, 1 },
  { "damaged", { 101, 150, 2, 1024, 1 }, 0, 1500, 0, 1 },
  { "indexed", { 102, 40, 1, 512, 0 }, 0, 0, 1, 0 },
};

/* The bytes of a case, malloc'd. */
static uint8_t *
make (const GoldenCase *c, size_t *len)
{
  HlGenTrace t;
  hl_gen_trace (&t, &c->gen);
  size_t n = t.size;
  uint8_t *data = malloc (n + 65536);
  memcpy (data, t.data, n);
  if (c->indexed)
    {
      HlTraceReader *r;
      HlFormatError err;
      HlTraceIndex *x;
      hl_trace_reader_open_memory (data, n, &r, &err);
      hl_trace_index_load (r, &x, &err);
      size_t isize;
      uint8_t *idx = hl_trace_index_encode (x->entries, x->n_entries, t.pid, n, &isize);
      memcpy (data + n, idx, isize);
      n += isize;
      free (idx);
      hl_trace_index_free (x);
      hl_trace_reader_free (r);
    }
  if (c->cut_from_end > 0)
    n -= (size_t) c->cut_from_end;
  if (c->flip_at > 0)
    data[c->flip_at] ^= 0x04;
  hl_gen_trace_clear (&t);
  *len = n;
  return data;
}

static char *
dump_text (const uint8_t *data, size_t len, size_t *text_len)
{
  char *text = NULL;
  FILE *f = open_memstream (&text, text_len);
  HlTraceReader *r;
  HlFormatError err;
  if (hl_trace_reader_open_memory (data, len, &r, &err) != 0)
    fprintf (f, "error: %s\n", err.message);
  else
    {
      hl_trace_dump (r, f, 0, NULL);
      hl_trace_reader_free (r);
    }
  fclose (f);
  return text;
}

static int
regenerate (const char *dir)
{
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    {
      size_t len, tlen;
      uint8_t *data = make (&cases[i], &len);
      char *text = dump_text (data, len, &tlen);
      char path[4096];
      snprintf (path, sizeof path, "%s/%s.hltrace", dir, cases[i].name);
      FILE *f = fopen (path, "wb");
      fwrite (data, 1, len, f);
      fclose (f);
      snprintf (path, sizeof path, "%s/%s.dump", dir, cases[i].name);
      f = fopen (path, "wb");
      fwrite (text, 1, tlen, f);
      fclose (f);
      printf ("%s: %zu bytes, dump %zu bytes\n", cases[i].name, len, tlen);
      free (data);
      free (text);
    }
  return 0;
}

int
main (int argc, char **argv)
{
  if (argc == 3 && strcmp (argv[1], "--regenerate") == 0)
    return regenerate (argv[2]);

  size_t n_cases = sizeof cases / sizeof cases[0];
  hl_tap_plan ((int) n_cases * 11);
  const char *root = getenv ("HL_SOURCE_ROOT");
  /* Format 2.0 to 5.0 files (tests/format/data/v2/ to v5/): same
   * packets, read as before */
  for (int major = 2; major <= 5; major++)
    for (size_t i = 0; i < n_cases; i++)
      {
        const GoldenCase *c = &cases[i];
        char tpath[4096], dpath[4096];
        snprintf (tpath, sizeof tpath, "%s/tests/format/data/v%d/%s.hltrace", root ? root : ".", major, c->name);
        snprintf (dpath, sizeof dpath, "%s/tests/format/data/v%d/%s.dump", root ? root : ".", major, c->name);
        size_t glen = 0, dlen = 0, tlen = 0;
        char *golden = hl_test_read_file (tpath, &glen);
        char *expected = hl_test_read_file (dpath, &dlen);
        char *text = golden ? dump_text ((const uint8_t *) golden, glen, &tlen) : NULL;
        hl_tap_ok (text != NULL && expected != NULL && tlen == dlen && memcmp (text, expected, dlen) == 0
                     && golden[8] == major,
                   "v%d/%s: a format %d.0 file still reads to its committed dump", major, c->name, major);
        const char *cli = hl_test_build_path ("src/cli/heaplens-cli");
        char *args[] = { (char *) cli, "dump", tpath, NULL };
        HlTestRun run;
        bool ran = hl_test_run (args, NULL, &run);
        hl_tap_ok (ran && run.exit_status == c->expect_status && expected != NULL && strcmp (run.out, expected) == 0,
                   "v%d/%s: heaplens-cli dump prints it too and exits %d", major, c->name, c->expect_status);
        if (ran)
          hl_test_run_clear (&run);
        free (golden);
        free (expected);
        free (text);
      }
  for (size_t i = 0; i < n_cases; i++)
    {
      const GoldenCase *c = &cases[i];
      char tpath[4096], dpath[4096];
      snprintf (tpath, sizeof tpath, "%s/tests/format/data/%s.hltrace", root ? root : ".", c->name);
      snprintf (dpath, sizeof dpath, "%s/tests/format/data/%s.dump", root ? root : ".", c->name);
      size_t glen = 0, dlen = 0, len, tlen;
      char *golden = hl_test_read_file (tpath, &glen);
      char *expected = hl_test_read_file (dpath, &dlen);
      uint8_t *data = make (c, &len);
      hl_tap_ok (golden != NULL && glen == len && memcmp (golden, data, len) == 0,
                 "%s: the writer produces the committed bytes (%zu) — a change needs a version bump", c->name, glen);
      char *text = golden ? dump_text ((const uint8_t *) golden, glen, &tlen) : NULL;
      hl_tap_ok (text != NULL && expected != NULL && tlen == dlen && memcmp (text, expected, dlen) == 0,
                 "%s: the reader prints the committed dump", c->name);
      const char *cli = hl_test_build_path ("src/cli/heaplens-cli");
      char *args[] = { (char *) cli, "dump", tpath, NULL };
      HlTestRun run;
      bool ran = hl_test_run (args, NULL, &run);
      hl_tap_ok (ran && run.exit_status == c->expect_status && expected != NULL && strcmp (run.out, expected) == 0,
                 "%s: heaplens-cli dump prints it too and exits %d", c->name, c->expect_status);
      if (ran)
        hl_test_run_clear (&run);
      free (golden);
      free (expected);
      free (data);
      free (text);
    }
  return hl_tap_finish ();
}
