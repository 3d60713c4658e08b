/* hl-flame-data.c — the frames of a flame graph, laid out for drawing. */
#include "hl-config.h"

#include <string.h>

#include "hl-flame-data.h"
#include "hl-model.h"

struct _HlFlameData
{
  HlFlameNode  *nodes;
  guint         n_nodes;
  guint         room;         /* nodes allocated */
  gsize         block_size;   /* of nodes, for hl_recycle_give */
  /* While adding, per depth: the last node added there (the open one on
   * the current path) and where its next child starts. */
  guint        *open;
  guint64      *next_offset;
  guint         depth_room;
  GStringChunk *strings;
  guint         max_depth;
  gboolean      cost_is_bytes;
  gboolean      total_set;
  gboolean      finished;
  /* Cached lower-cased names for searching, built on first search: one
   * per distinct name (names are interned: the same string, the same
   * pointer), owned by folded_names. */
  const char  **folded;
  GHashTable   *folded_names;   /* name → its folded copy */
  /* Frames the recording could not symbolize: name → address + 1 (the
   * name of such a frame is its address's own); and who finds addresses
   * in the data's recording (hl_flame_data_set_resolver). */
  GHashTable        *addresses;
  char              *origin;
  HlFlameResolveFunc resolve;
  gpointer           resolve_data;
  GDestroyNotify     resolve_destroy;
};

/* The nodes of the last large data freed, for the next: a live flame
 * graph builds data of the same size several times a second
 * (hl-recycle.h). */
static HlRecycleSlot recycled_nodes;

static void
hl_flame_data_free (HlFlameData *data)
{
  g_free (data->folded);
  g_clear_pointer (&data->folded_names, g_hash_table_unref);
  g_clear_pointer (&data->addresses, g_hash_table_unref);
  g_free (data->origin);
  if (data->resolve_destroy != NULL)
    data->resolve_destroy (data->resolve_data);
  hl_recycle_give (&recycled_nodes, data->nodes, data->block_size);
  g_free (data->open);
  g_free (data->next_offset);
  g_string_chunk_free (data->strings);
}

/* Room for N nodes in all. */
static void
grow (HlFlameData *data,
      guint        n)
{
  HlFlameNode *nodes;
  gsize size;

  if (n <= data->room)
    return;
  n = MAX (n, data->room * 2);
  nodes = hl_recycle_take (&recycled_nodes, (gsize) n * sizeof (HlFlameNode), &size);
  if (data->n_nodes > 0)
    memcpy (nodes, data->nodes, (gsize) data->n_nodes * sizeof (HlFlameNode));
  hl_recycle_give (&recycled_nodes, data->nodes, data->block_size);
  data->nodes = nodes;
  data->block_size = size;
  data->room = (guint) MIN (size / sizeof (HlFlameNode), G_MAXUINT);
}

HlFlameData *
hl_flame_data_new (const char *root_name,
                   gboolean    cost_is_bytes)
{
  HlFlameData *data = g_atomic_rc_box_new0 (HlFlameData);
  HlFlameNode *root;

  grow (data, 64);
  data->depth_room = 64;
  data->open = g_new0 (guint, data->depth_room);
  data->next_offset = g_new0 (guint64, data->depth_room);
  data->strings = g_string_chunk_new (4096);
  data->cost_is_bytes = cost_is_bytes;

  root = &data->nodes[data->n_nodes++];
  *root = (HlFlameNode) { 0 };
  root->name = g_string_chunk_insert_const (data->strings, root_name ? root_name : "all");
  root->module = "";
  root->parent = -1;
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

/* NODE's place under PARENT (the open node at its depth: pre-order);
 * appends it. */
static guint
append_child (HlFlameData *data,
              guint        parent,
              HlFlameNode *node)
{
  HlFlameNode *p = &data->nodes[parent];
  guint d = p->depth;

  g_return_val_if_fail (data->open[d] == parent, 0);
  node->offset = p->offset + data->next_offset[d];
  node->depth = d + 1;
  node->parent = (gint) parent;
  data->next_offset[d] += node->cost;
  if (parent == 0 && !data->total_set)
    p->cost += node->cost;
  data->max_depth = MAX (data->max_depth, node->depth);
  if (node->depth >= data->depth_room)
    {
      data->depth_room *= 2;
      data->open = g_renew (guint, data->open, data->depth_room);
      data->next_offset = g_renew (guint64, data->next_offset, data->depth_room);
    }
  grow (data, data->n_nodes + 1);
  data->open[node->depth] = data->n_nodes;
  data->next_offset[node->depth] = 0;
  data->nodes[data->n_nodes] = *node;
  return data->n_nodes++;
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
  g_return_val_if_fail (parent < data->n_nodes, 0);

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
  HlFlameNode node;
  const HlFlameNode *l;

  g_return_val_if_fail (data != NULL && !data->finished, 0);
  g_return_val_if_fail (parent < data->n_nodes && like < data->n_nodes, 0);

  l = &data->nodes[like];
  node.name = l->name;
  node.module = l->module;
  node.file = l->file;
  node.line = l->line;
  node.is_inline = l->is_inline;
  node.cost = cost;
  node.user_data = user_data;
  node.end = 0;
  return append_child (data, parent, &node);
}

void
hl_flame_data_reserve (HlFlameData *data,
                       guint        n)
{
  g_return_if_fail (data != NULL && !data->finished);
  grow (data, n);
}

void
hl_flame_data_set_total (HlFlameData *data,
                         guint64      total)
{
  g_return_if_fail (data != NULL && !data->finished);
  data->nodes[0].cost = total;
  data->total_set = TRUE;
}

void
hl_flame_data_finish (HlFlameData *data)
{
  HlFlameNode *nodes = data->nodes;
  guint n = data->n_nodes;
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

  g_clear_pointer (&data->open, g_free);
  g_clear_pointer (&data->next_offset, g_free);
  data->finished = TRUE;
}

guint
hl_flame_data_get_n_nodes (const HlFlameData *data)
{
  return data->n_nodes;
}

const HlFlameNode *
hl_flame_data_get_node (const HlFlameData *data,
                        guint              index)
{
  g_return_val_if_fail (index < data->n_nodes, NULL);
  return &data->nodes[index];
}

guint64
hl_flame_data_get_total (const HlFlameData *data)
{
  return data->nodes[0].cost;
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
  const HlFlameNode *nodes = data->nodes;
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

void
hl_flame_data_set_address (HlFlameData *data,
                           guint        node,
                           guint64      address)
{
  g_return_if_fail (data != NULL && node < data->n_nodes && node > 0);
  if (data->addresses == NULL)
    data->addresses = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  g_hash_table_replace (data->addresses, (gpointer) data->nodes[node].name, g_memdup2 (&address, sizeof address));
}

gboolean
hl_flame_data_get_address (const HlFlameData *data,
                           guint              node,
                           guint64           *address)
{
  const guint64 *a;

  g_return_val_if_fail (data != NULL && node < data->n_nodes, FALSE);
  a = data->addresses != NULL ? g_hash_table_lookup (data->addresses, data->nodes[node].name) : NULL;
  if (a != NULL && address != NULL)
    *address = *a;
  return a != NULL;
}

void
hl_flame_data_set_resolver (HlFlameData       *data,
                            const char        *origin,
                            HlFlameResolveFunc resolve,
                            gpointer           user_data,
                            GDestroyNotify     destroy)
{
  g_return_if_fail (data != NULL && data->resolve == NULL);
  data->origin = g_strdup (origin);
  data->resolve = resolve;
  data->resolve_data = user_data;
  data->resolve_destroy = destroy;
}

const char *
hl_flame_data_get_origin (const HlFlameData *data)
{
  return data->origin;
}

GStrv
hl_flame_data_resolve (const HlFlameData *data,
                       guint64            address)
{
  return data->resolve != NULL ? data->resolve (data->resolve_data, address) : NULL;
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

  g_return_val_if_fail (node < data->n_nodes, NULL);
  for (gint i = (gint) node; i > 0; i = data->nodes[i].parent)
    g_ptr_array_insert (path, 0, node_key (&data->nodes[i]));
  g_ptr_array_add (path, NULL);
  return (GStrv) g_ptr_array_free (path, FALSE);
}

guint
hl_flame_data_find_path (const HlFlameData  *data,
                         const char * const *path,
                         guint              *n_matched)
{
  const HlFlameNode *nodes = data->nodes;
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

/* NODE's child named KEY, or -1. */
static gint
child_by_key (const HlFlameData *data,
              guint              node,
              const char        *key)
{
  const HlFlameNode *nodes = data->nodes;

  for (guint c = node + 1; c < nodes[node].end; c = nodes[c].end)
    {
      g_autofree char *k = node_key (&nodes[c]);

      if (g_strcmp0 (k, key) == 0)
        return (gint) c;
    }
  return -1;
}

guint
hl_flame_data_find_node_of (const HlFlameData *data,
                            const HlFlameData *old,
                            guint              old_node,
                            gboolean          *exact)
{
  g_autoptr(GArray) steps = g_array_new (FALSE, FALSE, sizeof (guint));
  gboolean by_address;
  guint node = 0, i;

  g_return_val_if_fail (data != NULL && old != NULL && old_node < old->n_nodes, 0);
  for (gint n = (gint) old_node; n > 0; n = old->nodes[n].parent)
    g_array_prepend_val (steps, n);
  by_address = data->resolve != NULL && data->origin != NULL && g_strcmp0 (data->origin, old->origin) == 0;
  for (i = 0; i < steps->len; i++)
    {
      guint step = g_array_index (steps, guint, i);
      g_autofree char *key = node_key (&old->nodes[step]);
      gint found = child_by_key (data, node, key);
      guint64 address;

      if (found < 0 && by_address && hl_flame_data_get_address (old, step, &address))
        {
          /* one frame not symbolized: the frames it is in DATA, inline
           * ones included, one level each */
          g_auto(GStrv) keys = data->resolve (data->resolve_data, address);
          gint at = (gint) node;

          for (guint k = 0; keys != NULL && keys[k] != NULL && at >= 0; k++)
            at = child_by_key (data, (guint) at, keys[k]);
          if (keys != NULL && keys[0] != NULL)
            found = at;
        }
      if (found < 0)
        break;
      node = (guint) found;
    }
  if (exact != NULL)
    *exact = i == steps->len;
  return node;
}

static void
ensure_folded (HlFlameData *data)
{
  if (data->folded != NULL)
    return;
  data->folded_names = g_hash_table_new_full (g_direct_hash, g_direct_equal, NULL, g_free);
  data->folded = g_new (const char *, data->n_nodes);
  for (guint i = 0; i < data->n_nodes; i++)
    {
      const char *name = data->nodes[i].name;
      char *f;

      if (i > 0 && name == data->nodes[i - 1].name)
        {
          data->folded[i] = data->folded[i - 1];
          continue;
        }
      f = g_hash_table_lookup (data->folded_names, name);
      if (f == NULL)
        {
          f = g_utf8_casefold (name, -1);
          g_hash_table_insert (data->folded_names, (gpointer) name, f);
        }
      data->folded[i] = f;
    }
}

const char *
hl_flame_data_get_folded_name (const HlFlameData *data,
                               guint              node)
{
  g_return_val_if_fail (node < data->n_nodes, "");
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
  const HlFlameNode *nodes = data->nodes;
  g_autofree char *needle = NULL;
  guint64 cost = 0;
  guint i = 1;

  if (search == NULL || search[0] == '\0')
    return 0;
  ensure_folded ((HlFlameData *) data);
  needle = g_utf8_casefold (search, -1);
  while (i < data->n_nodes)
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
  const HlFlameNode *nodes = data->nodes;
  GString *out = g_string_new (NULL);
  g_autoptr(GPtrArray) path = g_ptr_array_new ();

  g_return_val_if_fail (data->finished, NULL);

  for (guint i = 1; i < data->n_nodes; i++)
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
