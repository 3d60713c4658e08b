/* hl-json-writer.h — JSON documents built with json-glib (JsonBuilder)
 * and written as text in Heaplens's layout: json-glib's JsonGenerator
 * writes every value (strings escaped, numbers), this file only places
 * the line breaks between them. Used by `report --json` (hl-report-json.h),
 * `timeline --json` and the application's Export Report. */
#pragma once

#include <json-glib/json-glib.h>

G_BEGIN_DECLS

/* How the containers (objects, arrays) at one place of a document are
 * laid out. PATH names the place by its segments from the root, separated
 * by "/", each a member's name or "*" for any member or element: "" is the
 * root, "top" the root's member "top", "top" "/" "*" any member of that.
 * Containers no layout names are written on one line:
 * {"a": 1, "b": [2, 3]}. */
typedef struct
{
  const char *path;
  const char *open;   /* after "{" or "[" when not empty */
  const char *sep;    /* after each "," between members or elements */
  const char *close;  /* before "}" or "]" when not empty */
} HlJsonLayout;

/* Appends NODE to OUT as JSON text, its containers laid out by the first
 * of LAYOUTS (N_LAYOUTS of them) whose path is theirs. Strings (member
 * names too) are made valid UTF-8 first (g_utf8_make_valid(): each byte
 * of invalid UTF-8 becomes U+FFFD) and every control character is
 * escaped, so the text is valid JSON whatever the strings held. */
void hl_json_write          (GString            *out,
                             JsonNode           *node,
                             const HlJsonLayout *layouts,
                             guint               n_layouts);

/* Adds to BUILDER, as member NAME of the current object (NAME NULL: as
 * the next element of the current array): */
/* ... V as an integer. json-glib's integers are signed 64-bit: above
 * G_MAXINT64 (only in a damaged trace) V is a double, its nearest. */
void hl_json_add_uint       (JsonBuilder        *builder,
                             const char         *name,
                             guint64             v);
void hl_json_add_int        (JsonBuilder        *builder,
                             const char         *name,
                             gint64              v);
/* ... S as a string, NULL as "". */
void hl_json_add_string     (JsonBuilder        *builder,
                             const char         *name,
                             const char         *s);
void hl_json_add_boolean    (JsonBuilder        *builder,
                             const char         *name,
                             gboolean            v);
void hl_json_add_null       (JsonBuilder        *builder,
                             const char         *name);

G_END_DECLS
