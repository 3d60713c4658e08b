/* hl-flame-data.c — the frames of a flame graph, laid out for drawing. */
#include "hl-config.h"

#include <string.h>

#include "hl-flame-data.h"

struct _HlFlameData
{
  GArray       *nodes;        /* HlFlameNode */
  GArray       *next_offset;  /* guint64 per node: where its next child starts */
  GStringChunk *strings;
  guint         max_depth;
  gboolean      cost_is_bytes;
  gboolean      total_set;
  gboolean      finished;
  /* Cached lower-cased names for searching, built on first search. */
  char        **folded;
};

static void
hl_flame_data_free (HlFlameData *data)
{
  if (data->folded != NULL)
    {
      for (guint i = 0; i < data->nodes->len; i++)
        g_free (data->folded[i]);
      g_free (data->folded);
    }
  g_array_unref (data->nodes);
  g_clear_pointer (&data->next_offset, g_array_unref);
  g_string_chunk_free (data->strings);
}

HlFlameData *
hl_flame_data_new (const char *root_name,
                   gboolean    cost_is_bytes)
{
  HlFlameData *data = g_atomic_rc_box_new0 (HlFlameData);
  HlFlameNode root = { 0 };
  guint64 zero = 0;

  data->nodes = g_array_new (FALSE, FALSE, sizeof (HlFlameNode));
  data->next_offset = g_array_new (FALSE, FALSE, sizeof (guint64));
  data->strings = g_string_chunk_new (4096);
  data->cost_is_bytes = cost_is_bytes;

  root.name = g_string_chunk_insert_const (data->strings, root_name ? root_name : "all");
  root.module = "";
  root.parent = -1;
  g_array_append_val (data->nodes, root);
  g_array_append_val (data->next_offset, zero);
  return data;
}

G_DEFINE_BOXED_TYPE (HlFlameData, hl_flame_data, hl_flame_data_ref, hl_flame_data_unref)

HlFlameData *
hl_flame_data_ref (HlFlameData *data)
{
  return g_atomic_rc_box_acquire (data);
}

void
hl_flame_data_unref (HlFlameData *data)
{
  g_atomic_rc_box_release_full (data, (GDestroyNotify) hl_flame_data_free);
}

/* NODE's place under PARENT; appends it. */
static guint
append_child (HlFlameData *data,
              guint        parent,
              HlFlameNode *node)
{
  HlFlameNode *p = &g_array_index (data->nodes, HlFlameNode, parent);
  guint64 *next = &g_array_index (data->next_offset, guint64, parent);

  node->offset = p->offset + *next;
  node->depth = p->depth + 1;
  node->parent = (gint) parent;
  *next += node->cost;
  if (parent == 0 && !data->total_set)
    p->cost += node->cost;
  data->max_depth = MAX (data->max_depth, node->depth);

  g_array_append_val (data->nodes, *node);
  g_array_append_val (data->next_offset, (guint64) { 0 });
  return data->nodes->len - 1;
}

guint
hl_flame_data_add (HlFlameData *data,
                   guint        parent,
                   const char  *name,
                   const char  *module,
                   const char  *file,
                   guint        line,
                   guint64      cost,
                   gboolean     is_inline,
                   gpointer     user_data)
{
  HlFlameNode node = { 0 };

  g_return_val_if_fail (data != NULL && !data->finished, 0);
  g_return_val_if_fail (parent < data->nodes->len, 0);

  node.name = g_string_chunk_insert_const (data->strings, name ? name : "??");
  node.module = module ? g_string_chunk_insert_const (data->strings, module) : "";
  node.file = file ? g_string_chunk_insert_const (data->strings, file) : NULL;
  node.line = line;
  node.cost = cost;
  node.is_inline = is_inline;
  node.user_data = user_data;
  return append_child (data, parent, &node);
}

guint
hl_flame_data_add_like (HlFlameData *data,
                        guint        parent,
                        guint        like,
                        guint64      cost,
                        gpointer     user_data)
{
  HlFlameNode node = { 0 };
  const HlFlameNode *l;

  g_return_val_if_fail (data != NULL && !data->finished, 0);
  g_return_val_if_fail (parent < data->nodes->len && like < data->nodes->len, 0);

  l = &g_array_index (data->nodes, HlFlameNode, like);
  node.name = l->name;
  node.module = l->module;
  node.file = l->file;
  node.line = l->line;
  node.is_inline = l->is_inline;
  node.cost = cost;
  node.user_data = user_data;
  return append_child (data, parent, &node);
}

void
hl_flame_data_reserve (HlFlameData *data,
                       guint        n)
{
  GArray *nodes, *next;

  g_return_if_fail (data != NULL && !data->finished);
  if (data->nodes->len > 1 || n <= 1)
    return;
  nodes = g_array_sized_new (FALSE, FALSE, sizeof (HlFlameNode), n);
  next = g_array_sized_new (FALSE, FALSE, sizeof (guint64), n);
  g_array_append_vals (nodes, data->nodes->data, data->nodes->len);
  g_array_append_vals (next, data->next_offset->data, data->next_offset->len);
  g_array_unref (data->nodes);
  g_array_unref (data->next_offset);
  data->nodes = nodes;
  data->next_offset = next;
}

void
hl_flame_data_set_total (HlFlameData *data,
                         guint64      total)
{
  g_return_if_fail (data != NULL && !data->finished);
  g_array_index (data->nodes, HlFlameNode, 0).cost = total;
  data->total_set = TRUE;
}

void
hl_flame_data_finish (HlFlameData *data)
{
  HlFlameNode *nodes = (HlFlameNode *) (gpointer) data->nodes->data;
  guint n = data->nodes->len;
  g_autofree guint *stack = g_new (guint, data->max_depth + 2);
  guint top = 0;

  g_return_if_fail (!data->finished);

  /* Pre-order: a node's subtree ends at the next node that is not deeper. */
  for (guint i = 0; i < n; i++)
    {
      while (top > 0 && nodes[stack[top - 1]].depth >= nodes[i].depth)
        nodes[stack[--top]].end = i;
      stack[top++] = i;
    }
  while (top > 0)
    nodes[stack[--top]].end = n;

  g_clear_pointer (&data->next_offset, g_array_unref);
  data->finished = TRUE;
}

guint
hl_flame_data_get_n_nodes (const HlFlameData *data)
{
  return data->nodes->len;
}

const HlFlameNode *
hl_flame_data_get_node (const HlFlameData *data,
                        guint              index)
{
  g_return_val_if_fail (index < data->nodes->len, NULL);
  return &g_array_index (data->nodes, HlFlameNode, index);
}

guint64
hl_flame_data_get_total (const HlFlameData *data)
{
  return g_array_index (data->nodes, HlFlameNode, 0).cost;
}

guint
hl_flame_data_get_max_depth (const HlFlameData *data)
{
  return data->max_depth;
}

gboolean
hl_flame_data_cost_is_bytes (const HlFlameData *data)
{
  return data->cost_is_bytes;
}

gint
hl_flame_data_child_at (const HlFlameData *data,
                        guint              node,
                        guint64            offset)
{
  const HlFlameNode *nodes = (const HlFlameNode *) (gconstpointer) data->nodes->data;
  guint end = nodes[node].end;

  for (guint c = node + 1; c < end; c = nodes[c].end)
    if (offset >= nodes[c].offset && offset < nodes[c].offset + nodes[c].cost)
      return (gint) c;
  return -1;
}

gboolean
hl_flame_data_is_ancestor (const HlFlameData *data,
                           guint              ancestor,
                           guint              node)
{
  const HlFlameNode *a = hl_flame_data_get_node (data, ancestor);

  return node >= ancestor && node < a->end;
}

static char *
node_key (const HlFlameNode *n)
{
  return g_strdup_printf ("%s/%s", n->module ? n->module : "", n->name);
}

GStrv
hl_flame_data_get_path (const HlFlameData *data,
                        guint              node)
{
  GPtrArray *path = g_ptr_array_new ();

  g_return_val_if_fail (node < data->nodes->len, NULL);
  for (gint i = (gint) node; i > 0; i = g_array_index (data->nodes, HlFlameNode, i).parent)
    g_ptr_array_insert (path, 0, node_key (&g_array_index (data->nodes, HlFlameNode, i)));
  g_ptr_array_add (path, NULL);
  return (GStrv) g_ptr_array_free (path, FALSE);
}

guint
hl_flame_data_find_path (const HlFlameData  *data,
                         const char * const *path,
                         guint              *n_matched)
{
  const HlFlameNode *nodes = (const HlFlameNode *) (gconstpointer) data->nodes->data;
  guint node = 0;
  guint depth = 0;

  for (; path != NULL && path[depth] != NULL; depth++)
    {
      gint found = -1;

      for (guint c = node + 1; c < nodes[node].end && found < 0; c = nodes[c].end)
        {
          g_autofree char *key = node_key (&nodes[c]);

          if (g_strcmp0 (key, path[depth]) == 0)
            found = (gint) c;
        }
      if (found < 0)
        break;
      node = (guint) found;
    }
  if (n_matched != NULL)
    *n_matched = depth;
  return node;
}

static void
ensure_folded (HlFlameData *data)
{
  if (data->folded != NULL)
    return;
  data->folded = g_new (char *, data->nodes->len);
  for (guint i = 0; i < data->nodes->len; i++)
    data->folded[i] = g_utf8_casefold (g_array_index (data->nodes, HlFlameNode, i).name, -1);
}

const char *
hl_flame_data_get_folded_name (const HlFlameData *data,
                               guint              node)
{
  g_return_val_if_fail (node < data->nodes->len, "");
  ensure_folded ((HlFlameData *) data);
  return data->folded[node];
}

gboolean
hl_flame_data_node_matches (const HlFlameData *data,
                            guint              node,
                            const char        *search)
{
  g_autofree char *needle = NULL;

  if (search == NULL || search[0] == '\0')
    return FALSE;
  ensure_folded ((HlFlameData *) data);
  needle = g_utf8_casefold (search, -1);
  return strstr (data->folded[node], needle) != NULL;
}

guint64
hl_flame_data_search_cost (const HlFlameData *data,
                           const char        *search)
{
  const HlFlameNode *nodes = (const HlFlameNode *) (gconstpointer) data->nodes->data;
  g_autofree char *needle = NULL;
  guint64 cost = 0;
  guint i = 1;

  if (search == NULL || search[0] == '\0')
    return 0;
  ensure_folded ((HlFlameData *) data);
  needle = g_utf8_casefold (search, -1);
  while (i < data->nodes->len)
    {
      if (strstr (data->folded[i], needle) != NULL)
        {
          cost += nodes[i].cost;
          i = nodes[i].end;  /* the subtree is counted already */
        }
      else
        i++;
    }
  return cost;
}

char *
hl_flame_data_to_collapsed (const HlFlameData *data)
{
  const HlFlameNode *nodes = (const HlFlameNode *) (gconstpointer) data->nodes->data;
  GString *out = g_string_new (NULL);
  g_autoptr(GPtrArray) path = g_ptr_array_new ();

  g_return_val_if_fail (data->finished, NULL);

  for (guint i = 1; i < data->nodes->len; i++)
    {
      guint64 children = 0;

      g_ptr_array_set_size (path, nodes[i].depth - 1);
      g_ptr_array_add (path, (gpointer) nodes[i].name);
      for (guint c = i + 1; c < nodes[i].end; c = nodes[c].end)
        children += nodes[c].cost;
      if (nodes[i].cost > children)
        {
          for (guint k = 0; k < path->len; k++)
            {
              if (k > 0)
                g_string_append_c (out, ';');
              /* ';' separates frames and a line is one stack. */
              for (const char *s = g_ptr_array_index (path, k); *s; s++)
                g_string_append_c (out, (*s == ';' || *s == '\n') ? '_' : *s);
            }
          g_string_append_printf (out, " %" G_GUINT64_FORMAT "\n", nodes[i].cost - children);
        }
    }
  return g_string_free (out, FALSE);
}
