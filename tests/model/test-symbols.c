/* test-symbols.c — the libdw symbolizer on this very binary (built with
 * -g -O2): an inlined function gets its own frame with the call site's
 * file:line, a C++-mangled and a Rust-mangled symbol come out demangled. */
#include "hl-model.h"
#include "hl-recording-builder.h"
#include "hl-symbolizer.h"
#include "hl-symbolize-job.h"

#include <stdio.h>
#include <string.h>

static volatile guint64 captured;
static volatile int sink;

__attribute__((noinline)) static void
capture_return_address (void)
{
  captured = (guint64) (gsize) __builtin_return_address (0);
  sink++;
}

__attribute__((noinline)) static void
after (void)
{
  sink++;
}

static inline __attribute__((always_inline)) void
inlined_helper (void)
{
  capture_return_address ();               /* LINE_INLINED_CALL */
  sink += 2;
}

__attribute__((noinline)) void outer_function (void);
void
outer_function (void)
{
  inlined_helper ();                       /* LINE_OUTER_CALL */
  after ();
}

/* Names as a C++ template instance and a Rust function would have. */
__attribute__((noinline)) void cxx_template (int x) __asm__ ("_ZN2hl5applyIiEEvT_");
void
cxx_template (int x)
{
  sink += x;
  capture_return_address ();
  after ();
}

__attribute__((noinline)) void rust_function (void) __asm__ ("_ZN7mycrate5inner3foo17h9a8b7c6d5e4f3a2bE");
void
rust_function (void)
{
  capture_return_address ();
  after ();
}

/* One function under three names, as glibc has them: global, global with
 * leading underscores, and a local internal alias. */
__attribute__((noinline)) void aliased_function (void);
void
aliased_function (void)
{
  capture_return_address ();
  after ();
}
extern void __aliased_function (void) __attribute__((alias ("aliased_function")));
static void __GI_aliased_function (void) __attribute__((alias ("aliased_function"), used));

/* An inlined function under an assembler label (glibc's internal calls
 * go to __GI_ labels): its DWARF linkage name is the label. */
void labelled_helper (void) __asm__ ("__GI_labelled_helper");
__attribute__((always_inline)) inline void
labelled_helper (void)
{
  capture_return_address ();
  sink += 3;
}
extern void labelled_helper (void) __asm__ ("__GI_labelled_helper");

__attribute__((noinline)) void labelled_outer (void);
void
labelled_outer (void)
{
  labelled_helper ();
  after ();
}

static guint
line_of (const char *marker)
{
  const char *root = g_getenv ("HL_SOURCE_ROOT");
  g_autofree char *path = g_build_filename (root != NULL ? root : ".", "tests", "model", "test-symbols.c", NULL);
  g_autofree char *text = NULL;
  g_auto (GStrv) lines = NULL;

  g_assert_true (g_file_get_contents (path, &text, NULL, NULL));
  lines = g_strsplit (text, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    if (strstr (lines[i], marker) != NULL && strstr (lines[i], "/* ") != NULL && strstr (lines[i], "strstr") == NULL)
      return i + 1;
  g_assert_not_reached ();
}

/* Loads this executable into a symbolizer at its real load address. */
static HlSymbolizer *
symbolizer_for_self (void)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *maps = NULL;
  g_auto (GStrv) lines = NULL;
  HlSymbolizer *sym = hl_symbolizer_new ();
  gboolean added = FALSE;

  g_assert_nonnull (exe);
  g_assert_true (g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL));
  lines = g_strsplit (maps, "\n", -1);
  for (guint i = 0; lines[i] != NULL && !added; i++)
    {
      unsigned long long start, end, offset;
      char path[4096] = "";
      if (sscanf (lines[i], "%llx-%llx %*s %llx %*s %*s %4095s", &start, &end, &offset, path) == 4 &&
          strcmp (path, exe) == 0)
        {
          g_assert_cmpint (hl_symbolizer_add_module (sym, exe, start - offset, NULL), >=, 0);
          added = TRUE;
        }
    }
  g_assert_true (added);
  hl_symbolizer_end_modules (sym);
  return sym;
}

static void
test_inline_frames (void)
{
  HlSymbolizer *sym = symbolizer_for_self ();
  HlSymbol frames[8];
  guint n;

  outer_function ();
  n = hl_symbolizer_resolve (sym, captured, TRUE, frames, G_N_ELEMENTS (frames));
  g_assert_cmpuint (n, ==, 2);
  g_assert_cmpstr (frames[0].function, ==, "inlined_helper");
  g_assert_true (frames[0].is_inline);
  g_assert_nonnull (frames[0].file);
  g_assert_true (g_str_has_suffix (frames[0].file, "test-symbols.c"));
  g_assert_cmpuint (frames[0].line, ==, line_of ("LINE_INLINED_CALL"));
  g_assert_cmpstr (frames[1].function, ==, "outer_function");
  g_assert_false (frames[1].is_inline);
  g_assert_cmpuint (frames[1].line, ==, line_of ("LINE_OUTER_CALL"));
  hl_symbolizer_free (sym);
}

static void
test_mangled_names (void)
{
  HlSymbolizer *sym = symbolizer_for_self ();
  HlSymbol frames[8];
  guint n;

  cxx_template (1);
  n = hl_symbolizer_resolve (sym, captured, TRUE, frames, G_N_ELEMENTS (frames));
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpstr (frames[0].function, ==, "void hl::apply<int>(int)");

  rust_function ();
  n = hl_symbolizer_resolve (sym, captured, TRUE, frames, G_N_ELEMENTS (frames));
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpstr (frames[0].function, ==, "mycrate::inner::foo");
  hl_symbolizer_free (sym);
}

/* Several symbols at one address: the global one with the fewest
 * leading underscores names it, never a local alias (libc's frames read
 * __GI___strdup and __libc_start_main_alias_2); an inlined frame under an
 * assembler label is named by its source name (__GI__IO_doallocbuf). */
static void
test_aliases (void)
{
  HlSymbolizer *sym = symbolizer_for_self ();
  HlSymbol frames[8];
  guint n;

  aliased_function ();
  n = hl_symbolizer_resolve (sym, captured, TRUE, frames, G_N_ELEMENTS (frames));
  g_assert_cmpuint (n, >=, 1);
  g_assert_cmpstr (frames[0].function, ==, "aliased_function");

  /* an inlined frame: its source name, not the label */
  labelled_outer ();
  n = hl_symbolizer_resolve (sym, captured, TRUE, frames, G_N_ELEMENTS (frames));
  g_assert_cmpuint (n, ==, 2);
  g_assert_true (frames[0].is_inline);
  g_assert_cmpstr (frames[0].function, ==, "labelled_helper");
  g_assert_cmpstr (frames[1].function, ==, "labelled_outer");
  hl_symbolizer_free (sym);
}

static void
test_module_status (void)
{
  HlSymbolizer *sym = symbolizer_for_self ();
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  gboolean has_symbols = FALSE, has_debug = FALSE;
  const char *debug_file = NULL, *hint = NULL;
  HlSymbol frames[4];

  g_assert_true (hl_symbolizer_get_module_status (sym, exe, &has_symbols, &has_debug, &debug_file, &hint));
  g_assert_true (has_symbols);
  g_assert_true (has_debug);
  g_assert_null (hint);
  /* Outside every module. */
  g_assert_cmpuint (hl_symbolizer_resolve (sym, 0x10, TRUE, frames, 4), ==, 0);
  hl_symbolizer_free (sym);

  sym = hl_symbolizer_new ();
  g_assert_cmpint (hl_symbolizer_add_module (sym, "/nonexistent/libgone.so", 0x7f0000000000, "abcd"), ==, -1);
  g_assert_true (hl_symbolizer_get_module_status (sym, "/nonexistent/libgone.so", &has_symbols, &has_debug, &debug_file, &hint));
  g_assert_false (has_symbols);
  g_assert_nonnull (strstr (hint, "libgone.so"));
  g_assert_nonnull (strstr (hint, "abcd"));
  hl_symbolizer_free (sym);
}

static void
test_demangle (void)
{
  const struct { const char *in, *out; } cases[] = {
    { "_ZNSt6vectorIiSaIiEE9push_backERKi", "std::vector<int, std::allocator<int> >::push_back(int const&)" },
    { "_ZN4core3fmt5write17h0123456789abcdefE", "core::fmt::write" },
    { "_RNvNtCs1234_7mycrate5inner3foo", "mycrate::inner::foo" },
    { "main", "main" },
    { "_Znot_really_mangled", "_Znot_really_mangled" },
  };

  for (guint i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *d = hl_demangle (cases[i].in);
      g_assert_cmpstr (d, ==, cases[i].out);
    }
}

/* This executable's mappings, as a recording's module map. */
static void
append_self_modules (HlRecording *rec)
{
  g_autofree char *exe = g_file_read_link ("/proc/self/exe", NULL);
  g_autofree char *maps = NULL;
  g_auto (GStrv) lines = NULL;

  g_assert_true (g_file_get_contents ("/proc/self/maps", &maps, NULL, NULL));
  lines = g_strsplit (maps, "\n", -1);
  for (guint i = 0; lines[i] != NULL; i++)
    {
      unsigned long long start, end, offset;
      char path[4096] = "";
      if (sscanf (lines[i], "%llx-%llx %*s %llx %*s %*s %4095s", &start, &end, &offset, path) == 4 &&
          strcmp (path, exe) == 0)
        hl_recording_append_module (rec, exe, start, end - start, offset, NULL, 0);
    }
}

/* Through a recording: module map → symbolize → frames and trees. */
static void
test_recording_symbolize (void)
{
  g_autoptr (HlRecording) rec = hl_recording_new ();
  guint64 stack[2];
  const HlFrame * const *frames;
  guint n;

  append_self_modules (rec);
  outer_function ();
  stack[0] = captured;
  cxx_template (2);
  stack[1] = captured;
  hl_recording_append_stack (rec, 1, stack, 2);
  hl_recording_append_alloc (rec, 0, 1, 1, 64, 0x100, 1);
  hl_recording_commit (rec);
  hl_recording_symbolize (rec, NULL);

  frames = hl_recording_get_stack_frames (rec, 1, &n);
  g_assert_cmpuint (n, ==, 3);
  g_assert_cmpstr (frames[0]->function, ==, "inlined_helper");
  g_assert_true (frames[0]->is_inline);
  g_assert_cmpstr (frames[1]->function, ==, "outer_function");
  g_assert_cmpstr (frames[2]->function, ==, "void hl::apply<int>(int)");
  g_assert_true (frames[2]->resolved);
  g_assert_true (g_str_has_suffix (frames[2]->module, "test-symbols"));
  g_assert_cmpstr (frames[2]->module_name, ==, "test-symbols");
  {
    g_autoptr (GPtrArray) missing = hl_recording_get_modules_without_debug_info (rec);
    g_assert_cmpuint (missing->len, ==, 0);
  }

  /* Live: a new stack after the first symbolization resolves too (with the
   * kept symbolizer), and the old frames stay. */
  rust_function ();
  stack[0] = captured;
  hl_recording_append_stack (rec, 2, stack, 1);
  hl_recording_append_alloc (rec, 1, 2, 1, 16, 0x200, 2);
  hl_recording_commit (rec);
  hl_recording_symbolize (rec, NULL);
  frames = hl_recording_get_stack_frames (rec, 2, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpstr (frames[0]->function, ==, "mycrate::inner::foo");
  frames = hl_recording_get_stack_frames (rec, 1, &n);
  g_assert_cmpstr (frames[1]->function, ==, "outer_function");
}

/* Live: the first stacks come before the module map (the feed reads
 * /proc/PID/maps after them), and a symbolization may run in between. Once
 * the map covers their addresses they are named, not left as module-less
 * "0x…" frames for ever. */
static void
run_job (HlRecording *rec)
{
  HlSymbolizeJob *job = hl_symbolize_job_begin (rec);
  g_assert_nonnull (job);
  hl_symbolize_job_run (job, NULL);
  hl_symbolize_job_finish (job, rec);
  hl_symbolize_job_free (job);
}

static void
test_modules_after_stacks (gconstpointer use_job)
{
  g_autoptr (HlRecording) rec = hl_recording_new ();
  const HlFrame * const *frames;
  guint n;
  guint64 stack[1];

  rust_function ();
  stack[0] = captured;
  hl_recording_append_stack (rec, 1, stack, 1);
  hl_recording_append_alloc (rec, 0, 1, 1, 64, 0x100, 1);
  hl_recording_commit (rec);
  if (GPOINTER_TO_INT (use_job))
    run_job (rec); /* the live feed's worker: with no module known it finds nothing */
  else
    hl_recording_symbolize (rec, NULL);
  frames = hl_recording_get_stack_frames (rec, 1, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_false (frames[0]->resolved);
  g_assert_cmpstr (frames[0]->module_name, ==, "");

  append_self_modules (rec);
  hl_recording_commit (rec);
  if (GPOINTER_TO_INT (use_job))
    run_job (rec);
  else
    hl_recording_symbolize (rec, NULL);
  frames = hl_recording_get_stack_frames (rec, 1, &n);
  g_assert_cmpuint (n, ==, 1);
  g_assert_cmpstr (frames[0]->function, ==, "mycrate::inner::foo");
  g_assert_true (frames[0]->resolved);
  g_assert_cmpstr (frames[0]->module_name, ==, "test-symbols");
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_unsetenv ("DEBUGINFOD_URLS");
  g_test_add_func ("/symbols/inline-frames", test_inline_frames);
  g_test_add_func ("/symbols/mangled-names", test_mangled_names);
  g_test_add_func ("/symbols/aliases", test_aliases);
  g_test_add_func ("/symbols/module-status", test_module_status);
  g_test_add_func ("/symbols/demangle", test_demangle);
  g_test_add_func ("/symbols/recording", test_recording_symbolize);
  g_test_add_data_func ("/symbols/modules-after-stacks", GINT_TO_POINTER (FALSE), test_modules_after_stacks);
  g_test_add_data_func ("/symbols/modules-after-stacks-job", GINT_TO_POINTER (TRUE), test_modules_after_stacks);
  return g_test_run ();
}
