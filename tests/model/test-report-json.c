/* test-report-json.c — the JSON documents of the model: hl_json_write()'s
 * layout and escaping, and hl_report_to_json() on a recording whose names
 * and values hold control characters and invalid UTF-8: the text is valid
 * JSON in valid UTF-8, and json-glib's parser gives back each string made
 * valid (g_utf8_make_valid). */
#include "hl-config.h"

#include <string.h>

#include "hl-model.h"
#include "hl-recording-builder.h"
#include "hl-model-test-recording.h"

/* Every byte below 0x20 but the layout's line breaks, DEL, a quote, a
 * backslash, and invalid UTF-8 (a lone continuation byte, a cut sequence,
 * 0xff). */
#define NASTY "\x01\x02\x08\x09\x0b\x0c\x0d\x1b\x1e\x1f\x7f\"\\\x80\xc3(\xff\xe2\x82"

static JsonNode *
parse (const char *text)
{
  g_autoptr (JsonParser) parser = json_parser_new ();
  g_autoptr (GError) error = NULL;

  json_parser_load_from_data (parser, text, -1, &error);
  g_assert_no_error (error);
  return json_node_copy (json_parser_get_root (parser));
}

/* TEXT is valid UTF-8 with no control character but "\n". */
static void
assert_clean (const char *text)
{
  g_assert_true (g_utf8_validate (text, -1, NULL));
  for (const char *p = text; *p != '\0'; p++)
    if (*p != '\n')
      g_assert_cmpint ((guchar) *p, >=, 0x20);
}

static void
assert_made_valid (const char *got,
                   const char *original)
{
  g_autofree char *valid = g_utf8_make_valid (original, -1);

  g_assert_cmpstr (got, ==, valid);
}

/* The layout: named containers broken as told ("*" any member or element),
 * all others on one line, empty ones as {} and [], keys in insertion order. */
static void
test_write_layout (void)
{
  static const HlJsonLayout layout[] = {
    { "",       "\n ", "\n ", "\n" },
    { "rows/*", "<",   "|",   ">" },
  };
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;
  g_autoptr (GString) out = g_string_new (NULL);

  json_builder_begin_object (b);
  hl_json_add_string (b, "z", "first");
  hl_json_add_null (b, "a");
  json_builder_set_member_name (b, "rows");
  json_builder_begin_array (b);
  json_builder_begin_array (b);
  hl_json_add_uint (b, NULL, 1);
  hl_json_add_uint (b, NULL, 2);
  json_builder_end_array (b);
  json_builder_begin_object (b);
  hl_json_add_boolean (b, "t", TRUE);
  json_builder_set_member_name (b, "nested");
  json_builder_begin_object (b);
  hl_json_add_int (b, "n", -3);
  hl_json_add_string (b, "s", NULL);
  json_builder_end_object (b);
  json_builder_end_object (b);
  json_builder_begin_array (b);
  json_builder_end_array (b);
  json_builder_end_array (b);
  json_builder_set_member_name (b, "empty");
  json_builder_begin_object (b);
  json_builder_end_object (b);
  json_builder_end_object (b);
  root = json_builder_get_root (b);

  hl_json_write (out, root, layout, G_N_ELEMENTS (layout));
  g_assert_cmpstr (out->str, ==,
                   "{\n \"z\": \"first\",\n \"a\": null,\n"
                   " \"rows\": [[<1,|2>], {<\"t\": true,|\"nested\": {\"n\": -3, \"s\": \"\"}>}, []],\n"
                   " \"empty\": {}\n}");

  /* no layout: all on one line */
  g_string_truncate (out, 0);
  hl_json_write (out, root, NULL, 0);
  g_assert_null (strchr (out->str, '\n'));
}

/* Integers as json-glib writes them; above G_MAXINT64 a double. */
static void
test_write_numbers (void)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;
  g_autoptr (JsonNode) back = NULL;
  g_autoptr (GString) out = g_string_new (NULL);
  JsonArray *a;

  json_builder_begin_array (b);
  hl_json_add_uint (b, NULL, 0);
  hl_json_add_uint (b, NULL, G_MAXINT64);
  hl_json_add_uint (b, NULL, G_MAXUINT64);
  hl_json_add_int (b, NULL, G_MININT64);
  json_builder_end_array (b);
  root = json_builder_get_root (b);
  hl_json_write (out, root, NULL, 0);
  g_assert_true (g_str_has_prefix (out->str, "[0, 9223372036854775807, 1.8446744073709552e+19, "
                                             "-9223372036854775808]"));
  back = parse (out->str);
  a = json_node_get_array (back);
  g_assert_cmpint (json_array_get_int_element (a, 1), ==, G_MAXINT64);
  g_assert_cmpfloat (json_array_get_double_element (a, 2), ==, (double) G_MAXUINT64);
}

/* Each of U+0001..U+001F and U+007F alone, in a value and in a key:
 * escaped (json-glib 1.6 leaves U+001F as it is: hl_json_write escapes it),
 * and read back the same. */
static void
test_write_control_characters (void)
{
  for (int c = 1; c < 0x80; c++)
    {
      char s[2] = { (char) c, '\0' };
      g_autoptr (JsonBuilder) b = json_builder_new ();
      g_autoptr (JsonNode) root = NULL;
      g_autoptr (JsonNode) back = NULL;
      g_autoptr (GString) out = g_string_new (NULL);
      JsonObject *o;

      json_builder_begin_object (b);
      hl_json_add_string (b, s, s);
      json_builder_end_object (b);
      root = json_builder_get_root (b);
      hl_json_write (out, root, NULL, 0);
      assert_clean (out->str);
      back = parse (out->str);
      o = json_node_get_object (back);
      g_assert_cmpstr (json_object_get_string_member (o, s), ==, s);
    }
}

static void
test_write_invalid_utf8 (void)
{
  g_autoptr (JsonBuilder) b = json_builder_new ();
  g_autoptr (JsonNode) root = NULL;
  g_autoptr (JsonNode) back = NULL;
  g_autoptr (GString) out = g_string_new (NULL);
  g_autofree char *key = g_utf8_make_valid ("k" NASTY, -1);

  json_builder_begin_object (b);
  hl_json_add_string (b, "k" NASTY, "v" NASTY);
  json_builder_end_object (b);
  root = json_builder_get_root (b);
  hl_json_write (out, root, NULL, 0);
  assert_clean (out->str);
  back = parse (out->str);
  assert_made_valid (json_object_get_string_member (json_node_get_object (back), key), "v" NASTY);
  g_assert_nonnull (strstr (out->str, "\\u0001\\u0002\\b\\t\\u000b\\f\\r\\u001b\\u001e\\u001f\\u007f\\\"\\\\"));
}

/* A recording whose module path, program, metadata, mark and warning hold
 * NASTY. */
static HlRecording *
nasty_recording (void)
{
  HlRecording *rec = hl_recording_new ();
  const guint64 frames[] = { 0x401010 };

  hl_recording_append_info (rec, "exe", "/bin/prog" NASTY);
  hl_recording_append_module (rec, "/tmp/lib" NASTY ".so", 0x400000, 0x10000, 0, NULL, 0);
  hl_recording_append_stack (rec, 1, frames, 1);
  hl_recording_append_thread (rec, 0, 100, "thread" NASTY, FALSE);
  hl_recording_append_metadata (rec, 0, 100, "key" NASTY, "value" NASTY);
  hl_recording_append_alloc (rec, 0, 10, 100, 64, 0xa0, 1);
  hl_recording_append_mark (rec, 20, 100, "mark" NASTY);
  hl_recording_append_warning (rec, "warning" NASTY);
  hl_recording_append_end (rec, 30, 0);
  hl_recording_commit (rec);
  return rec;
}

static void
test_report_nasty_strings (void)
{
  g_autoptr (HlRecording) rec = nasty_recording ();
  g_autoptr (HlAnalysis) a = hl_analysis_new (rec, NULL);
  g_autofree char *text = hl_report_to_json ("trace" NASTY, a, NULL, 0, 10);
  g_autoptr (JsonNode) root = NULL;
  g_autofree char *module_name = NULL;
  JsonObject *o, *frame, *meta, *nodebug;
  JsonArray *warnings;
  gboolean warned = FALSE;

  assert_clean (text);
  root = parse (text);
  o = json_node_get_object (root);
  assert_made_valid (json_object_get_string_member (o, "file"), "trace" NASTY);
  assert_made_valid (json_object_get_string_member (o, "program"), "/bin/prog" NASTY);
  assert_made_valid (json_object_get_string_member (json_array_get_object_element (
                       json_object_get_array_member (o, "marks"), 0), "text"), "mark" NASTY);
  meta = json_array_get_object_element (json_object_get_array_member (o, "metadata"), 0);
  assert_made_valid (json_object_get_string_member (meta, "key"), "key" NASTY);
  assert_made_valid (json_object_get_string_member (meta, "value"), "value" NASTY);

  /* the call site's frame: named by its module (no symbols) */
  frame = json_array_get_object_element (json_object_get_array_member (json_array_get_object_element (
            json_object_get_array_member (json_object_get_object_member (o, "top"), "allocations"), 0),
            "stack"), 0);
  assert_made_valid (json_object_get_string_member (frame, "module"), "/tmp/lib" NASTY ".so");
  module_name = g_utf8_make_valid ("lib" NASTY ".so+0x1010", -1);
  g_assert_cmpstr (json_object_get_string_member (frame, "function"), ==, module_name);
  g_assert_cmpint (json_object_get_int_member (frame, "address"), ==, 0x401010);
  g_assert_true (json_object_get_null_member (frame, "file"));

  nodebug = json_array_get_object_element (json_object_get_array_member (o, "modules_without_debug_info"), 0);
  assert_made_valid (json_object_get_string_member (nodebug, "path"), "/tmp/lib" NASTY ".so");

  warnings = json_object_get_array_member (o, "warnings");
  for (guint i = 0; i < json_array_get_length (warnings); i++)
    {
      g_autofree char *valid = g_utf8_make_valid ("warning" NASTY, -1);
      warned |= g_strcmp0 (json_array_get_string_element (warnings, i), valid) == 0;
    }
  g_assert_true (warned);
}

/* The keys of the report in the order docs/cli.md lists them, and the
 * numbers of the hand-built recording. */
static void
test_report_keys (void)
{
  static const char * const keys[] = {
    "file", "program", "summary", "marks", "metadata", "selection", "lived_at_least_ns", "top",
    "threads", "memory", "mmap", "modules_without_debug_info", "warnings",
  };
  g_autoptr (HlRecording) rec = hl_test_small_recording (5);
  g_autoptr (HlAnalysis) a = hl_analysis_new (rec, NULL);
  g_autofree char *text = hl_report_to_json ("small", a, NULL, 0, 10);
  g_autoptr (JsonNode) root = parse (text);
  JsonObject *o = json_node_get_object (root);
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;
  guint i = 0;

  json_object_iter_init_ordered (&iter, o);
  while (json_object_iter_next_ordered (&iter, &name, &member))
    {
      g_assert_cmpuint (i, <, G_N_ELEMENTS (keys));
      g_assert_cmpstr (name, ==, keys[i++]);
    }
  g_assert_cmpuint (i, ==, G_N_ELEMENTS (keys));
  g_assert_true (json_object_get_null_member (o, "program"));
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (o, "summary"), "allocations"), ==, 6);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (o, "selection"), "leaked_bytes"),
                   ==, 65);
  /* no T: every block is long-lived (the bytes allocated, 1365); no
   * mappings in the hand-built recording */
  g_assert_cmpint (json_object_get_int_member (o, "lived_at_least_ns"), ==, 0);
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (o, "selection"), "long_lived_bytes"),
                   ==, json_object_get_int_member (json_object_get_object_member (o, "selection"), "bytes"));
  g_assert_cmpint (json_object_get_int_member (json_object_get_object_member (o, "selection"), "mmap_bytes"),
                   ==, 0);
  {
    /* every thread in start order (200 "worker" announced at 0, 100 first
     * seen at 10), with the costs of its allocations
     * (hl-model-test-recording.h): 100 made #0 #1 #2 #4, 200 made #3 #5;
     * at the peak (t=70) #2 #4 are 100's, #3 200's */
    JsonArray *threads = json_object_get_array_member (o, "threads");
    JsonObject *t100, *t200, *c100, *c200;

    g_assert_cmpuint (json_array_get_length (threads), ==, 2);
    t200 = json_array_get_object_element (threads, 0);
    t100 = json_array_get_object_element (threads, 1);
    g_assert_cmpint (json_object_get_int_member (t100, "tid"), ==, 100);
    g_assert_cmpint (json_object_get_int_member (t200, "tid"), ==, 200);
    g_assert_cmpstr (json_object_get_string_member (t200, "name"), ==, "worker");
    c100 = json_object_get_object_member (t100, "costs");
    c200 = json_object_get_object_member (t200, "costs");
    g_assert_cmpint (json_object_get_int_member (c100, "allocations"), ==, 4);
    g_assert_cmpint (json_object_get_int_member (c100, "bytes"), ==, 360);
    g_assert_cmpint (json_object_get_int_member (c100, "peak_bytes"), ==, 60);
    g_assert_cmpint (json_object_get_int_member (c100, "leaked_bytes"), ==, 60);
    g_assert_cmpint (json_object_get_int_member (c200, "allocations"), ==, 2);
    g_assert_cmpint (json_object_get_int_member (c200, "bytes"), ==, 1005);
    g_assert_cmpint (json_object_get_int_member (c200, "peak_bytes"), ==, 1000);
    g_assert_cmpint (json_object_get_int_member (c200, "leaked_bytes"), ==, 5);
  }
  g_assert_true (g_str_has_prefix (text, "{\n  \"file\": \"small\",\n  \"program\": null,\n  \"summary\": {"));
  g_assert_true (g_str_has_suffix (text, "\n}\n"));
}

int
main (int    argc,
      char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/json-writer/layout", test_write_layout);
  g_test_add_func ("/json-writer/numbers", test_write_numbers);
  g_test_add_func ("/json-writer/control-characters", test_write_control_characters);
  g_test_add_func ("/json-writer/invalid-utf8", test_write_invalid_utf8);
  g_test_add_func ("/report-json/nasty-strings", test_report_nasty_strings);
  g_test_add_func ("/report-json/keys", test_report_keys);
  return g_test_run ();
}
