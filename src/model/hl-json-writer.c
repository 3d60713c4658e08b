/* hl-json-writer.c — JSON documents as text in Heaplens's layout. */
#include "hl-config.h"

#include "hl-json-writer.h"

typedef struct
{
  JsonGenerator *generator;   /* writes each value */
  JsonNode      *scratch;     /* a string node for member names */
  GHashTable    *names;       /* member name -> its JSON text */
  char        ***rule_paths;  /* the layouts' paths, split at "/" */
  const HlJsonLayout *layouts;
  guint          n_layouts;
  GPtrArray     *path;        /* segments from the root to the container written */
} Writer;

static const HlJsonLayout one_line = { NULL, "", " ", "" };

static const HlJsonLayout *
layout_here (Writer *w)
{
  for (guint i = 0; i < w->n_layouts; i++)
    {
      char **rule = w->rule_paths[i];
      guint n = g_strv_length (rule);

      if (n != w->path->len)
        continue;
      guint k = 0;
      for (; k < n; k++)
        if (g_strcmp0 (rule[k], "*") != 0 && g_strcmp0 (rule[k], w->path->pdata[k]) != 0)
          break;
      if (k == n)
        return &w->layouts[i];
    }
  return &one_line;
}

/* json-glib 1.6 leaves U+001F unescaped (it escapes up to U+001E): the
 * bytes 0x1f the generator wrote since START, escaped. In valid UTF-8 the
 * byte 0x1f is that character and nothing else. */
static void
escape_unit_separators (GString *out,
                        gsize    start)
{
  for (gsize i = start; i < out->len; i++)
    if (out->str[i] == 0x1f)
      {
        g_string_erase (out, (gssize) i, 1);
        g_string_insert (out, (gssize) i, "\\u001f");
        i += 5;
      }
}

static void
write_string (Writer   *w,
              GString  *out,
              JsonNode *node)
{
  const char *s = json_node_get_string (node);
  gsize start = out->len;

  if (s != NULL && !g_utf8_validate (s, -1, NULL))
    {
      g_autofree char *valid = g_utf8_make_valid (s, -1);
      json_node_set_string (w->scratch, valid);
      node = w->scratch;
    }
  json_generator_set_root (w->generator, node);
  json_generator_to_gstring (w->generator, out);
  escape_unit_separators (out, start);
}

static void
write_scalar (Writer   *w,
              GString  *out,
              JsonNode *node)
{
  GType type = json_node_get_value_type (node);

  /* Integers and booleans as JsonGenerator writes them, without a copy of
   * the node for it each (a report holds tens of thousands). */
  if (type == G_TYPE_INT64)
    g_string_append_printf (out, "%" G_GINT64_FORMAT, json_node_get_int (node));
  else if (type == G_TYPE_BOOLEAN)
    g_string_append (out, json_node_get_boolean (node) ? "true" : "false");
  else if (type == G_TYPE_STRING)
    write_string (w, out, node);
  else
    {
      json_generator_set_root (w->generator, node);
      json_generator_to_gstring (w->generator, out);
    }
}

/* Member names repeat (every frame has the same six): each written once. */
static void
write_name (Writer     *w,
            GString    *out,
            const char *name)
{
  const char *text = g_hash_table_lookup (w->names, name);

  if (text == NULL)
    {
      g_autoptr (GString) s = g_string_new (NULL);

      json_node_set_string (w->scratch, name);
      write_string (w, s, w->scratch);
      g_hash_table_insert (w->names, g_strdup (name), g_strdup (s->str));
      text = g_hash_table_lookup (w->names, name);
    }
  g_string_append (out, text);
}

static void write_node (Writer   *w,
                        GString  *out,
                        JsonNode *node);

static void
write_object (Writer     *w,
              GString    *out,
              JsonObject *object)
{
  const HlJsonLayout *layout = layout_here (w);
  JsonObjectIter iter;
  const char *name;
  JsonNode *member;
  gboolean first = TRUE;

  g_string_append_c (out, '{');
  json_object_iter_init_ordered (&iter, object);
  while (json_object_iter_next_ordered (&iter, &name, &member))
    {
      if (first)
        g_string_append (out, layout->open);
      else
        {
          g_string_append_c (out, ',');
          g_string_append (out, layout->sep);
        }
      first = FALSE;
      write_name (w, out, name);
      g_string_append (out, ": ");
      g_ptr_array_add (w->path, (gpointer) name);
      write_node (w, out, member);
      g_ptr_array_remove_index (w->path, w->path->len - 1);
    }
  if (!first)
    g_string_append (out, layout->close);
  g_string_append_c (out, '}');
}

static void
write_array (Writer    *w,
             GString   *out,
             JsonArray *array)
{
  const HlJsonLayout *layout = layout_here (w);
  guint n = json_array_get_length (array);

  g_string_append_c (out, '[');
  if (n > 0)
    g_string_append (out, layout->open);
  g_ptr_array_add (w->path, (gpointer) "*");
  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        {
          g_string_append_c (out, ',');
          g_string_append (out, layout->sep);
        }
      write_node (w, out, json_array_get_element (array, i));
    }
  g_ptr_array_remove_index (w->path, w->path->len - 1);
  if (n > 0)
    g_string_append (out, layout->close);
  g_string_append_c (out, ']');
}

static void
write_node (Writer   *w,
            GString  *out,
            JsonNode *node)
{
  switch (json_node_get_node_type (node))
    {
    case JSON_NODE_OBJECT:
      write_object (w, out, json_node_get_object (node));
      break;
    case JSON_NODE_ARRAY:
      write_array (w, out, json_node_get_array (node));
      break;
    case JSON_NODE_VALUE:
      write_scalar (w, out, node);
      break;
    case JSON_NODE_NULL:
    default:
      g_string_append (out, "null");
      break;
    }
}

void
hl_json_write (GString            *out,
               JsonNode           *node,
               const HlJsonLayout *layouts,
               guint               n_layouts)
{
  Writer w = { 0 };

  g_return_if_fail (out != NULL);
  g_return_if_fail (node != NULL);
  g_return_if_fail (layouts != NULL || n_layouts == 0);

  w.generator = json_generator_new ();
  w.scratch = json_node_init_string (json_node_alloc (), "");
  w.names = g_hash_table_new_full (g_str_hash, g_str_equal, g_free, g_free);
  w.layouts = layouts;
  w.n_layouts = n_layouts;
  w.rule_paths = g_new0 (char **, n_layouts + 1);
  for (guint i = 0; i < n_layouts; i++)
    w.rule_paths[i] = g_strsplit (layouts[i].path, "/", -1);
  w.path = g_ptr_array_new ();

  write_node (&w, out, node);

  g_ptr_array_unref (w.path);
  for (guint i = 0; i < n_layouts; i++)
    g_strfreev (w.rule_paths[i]);
  g_free (w.rule_paths);
  g_hash_table_unref (w.names);
  json_node_unref (w.scratch);
  g_object_unref (w.generator);
}

static void
set_name (JsonBuilder *builder,
          const char  *name)
{
  if (name != NULL)
    json_builder_set_member_name (builder, name);
}

void
hl_json_add_uint (JsonBuilder *builder,
                  const char  *name,
                  guint64      v)
{
  set_name (builder, name);
  if (v <= G_MAXINT64)
    json_builder_add_int_value (builder, (gint64) v);
  else
    json_builder_add_double_value (builder, (double) v);
}

void
hl_json_add_int (JsonBuilder *builder,
                 const char  *name,
                 gint64       v)
{
  set_name (builder, name);
  json_builder_add_int_value (builder, v);
}

void
hl_json_add_string (JsonBuilder *builder,
                    const char  *name,
                    const char  *s)
{
  set_name (builder, name);
  json_builder_add_string_value (builder, s != NULL ? s : "");
}

void
hl_json_add_boolean (JsonBuilder *builder,
                     const char  *name,
                     gboolean     v)
{
  set_name (builder, name);
  json_builder_add_boolean_value (builder, v);
}

void
hl_json_add_null (JsonBuilder *builder,
                  const char  *name)
{
  set_name (builder, name);
  json_builder_add_null_value (builder);
}
