/* hl-stack-trie.c — the tries of a recording's stacks (top-down: outermost
 * frame first; bottom-up: innermost first), shared by every analysis. Nodes
 * merge frames of the same function + module (and inline flag). */
#include "hl-stack-trie.h"

/* (parent, function, inline) → child, so that finding a child does not
 * walk a sibling list (10,000 outermost frames made that quadratic). */
typedef struct
{
  guint64 *keys;     /* key + 1, 0 = empty */
  guint32 *values;
  gsize    mask;
  gsize    used;
} ChildIndex;

static inline guint64
child_key (guint32             parent,
           const HlFrameEntry *frame)
{
  return ((guint64) parent << 32) | ((guint64) frame->function_id << 1) | (frame->pub.is_inline != 0);
}

static inline gsize
child_slot (const ChildIndex *ix,
            guint64           key)
{
  guint64 h = (key + 1) * G_GUINT64_CONSTANT (0x9E3779B97F4A7C15);
  gsize i = (gsize) (h >> 29) & ix->mask;

  while (ix->keys[i] != 0 && ix->keys[i] != key + 1)
    i = (i + 1) & ix->mask;
  return i;
}

static void
child_index_grow (ChildIndex *ix)
{
  ChildIndex bigger = { 0 };
  gsize size = (ix->mask + 1) * 2;

  bigger.keys = g_new0 (guint64, size);
  bigger.values = g_new (guint32, size);
  bigger.mask = size - 1;
  for (gsize i = 0; ix->keys != NULL && i <= ix->mask; i++)
    if (ix->keys[i] != 0)
      {
        gsize j = child_slot (&bigger, ix->keys[i] - 1);
        bigger.keys[j] = ix->keys[i];
        bigger.values[j] = ix->values[i];
      }
  bigger.used = ix->used;
  g_free (ix->keys);
  g_free (ix->values);
  *ix = bigger;
}

static guint32
trie_child (GArray             *nodes,
            ChildIndex         *ix,
            guint32             parent,
            const HlFrameEntry *frame)
{
  guint64 key = child_key (parent, frame);
  HlTrieNode *p = &g_array_index (nodes, HlTrieNode, parent);
  HlTrieNode n = { 0 };
  gsize slot = child_slot (ix, key);

  if (ix->keys[slot] != 0)
    return ix->values[slot];
  n.frame = frame;
  n.parent = parent;
  n.depth = p->depth + 1;
  n.next_sibling = p->first_child;
  g_array_append_val (nodes, n);
  g_array_index (nodes, HlTrieNode, parent).first_child = nodes->len - 1;
  ix->keys[slot] = key + 1;
  ix->values[slot] = nodes->len - 1;
  if (++ix->used * 2 > ix->mask + 1)
    child_index_grow (ix);
  return nodes->len - 1;
}

HlTrie *
hl_stack_trie_build (const HlFrameTable *frames,
                     gboolean            bottom_up)
{
  HlTrie *trie;
  HlTrieNode root = { 0 };
  ChildIndex ix = { NULL, NULL, 511, 0 };

  child_index_grow (&ix);
  static guint64 serials;

  trie = g_new0 (HlTrie, 1);
  trie->serial = __atomic_add_fetch (&serials, 1, __ATOMIC_RELAXED);
  trie->nodes = g_array_new (FALSE, TRUE, sizeof (HlTrieNode));
  g_array_append_val (trie->nodes, root);
  trie->n_stacks = hl_frame_table_get_n_stacks (frames);
  trie->stack_leaf = g_new0 (guint32, trie->n_stacks + 1);
  for (guint32 s = 1; s < trie->n_stacks; s++)
    {
      guint n;
      const HlFrameEntry * const *f = hl_frame_table_get_stack (frames, s, &n);
      guint32 node = 0;

      for (guint i = 0; i < n; i++)
        node = trie_child (trie->nodes, &ix, node, f[bottom_up ? i : n - 1 - i]);
      trie->stack_leaf[s] = node;
    }
  g_free (ix.keys);
  g_free (ix.values);
  return trie;
}

void
hl_stack_trie_free (HlTrie *trie)
{
  if (trie == NULL)
    return;
  g_array_unref (trie->nodes);
  g_free (trie->stack_leaf);
  g_free (trie);
}

/* ---- The cache ------------------------------------------------------------ */

struct _HlTrieCache
{
  GMutex  lock;       /* analyses on worker threads build tries */
  HlTrie *tries[2];   /* top-down, bottom-up */
};

HlTrieCache *
hl_trie_cache_new (void)
{
  HlTrieCache *self = g_new0 (HlTrieCache, 1);

  g_mutex_init (&self->lock);
  return self;
}

void
hl_trie_cache_free (HlTrieCache *self)
{
  if (self == NULL)
    return;
  g_clear_pointer (&self->tries[0], hl_stack_trie_free);
  g_clear_pointer (&self->tries[1], hl_stack_trie_free);
  g_mutex_clear (&self->lock);
  g_free (self);
}

const HlTrie *
hl_trie_cache_get (HlTrieCache       *self,
                   gboolean           bottom_up,
                   HlTrieCacheUpdate  update,
                   gpointer           user_data)
{
  const HlFrameTable *frames;
  HlTrie *trie;

  g_mutex_lock (&self->lock);
  frames = update (user_data);
  trie = self->tries[bottom_up ? 1 : 0];
  if (trie == NULL)
    trie = self->tries[bottom_up ? 1 : 0] = hl_stack_trie_build (frames, bottom_up);
  g_mutex_unlock (&self->lock);
  return trie;
}

void
hl_trie_cache_update (HlTrieCache       *self,
                      HlTrieCacheUpdate  update,
                      gpointer           user_data)
{
  g_mutex_lock (&self->lock);
  update (user_data);
  g_mutex_unlock (&self->lock);
}

void
hl_trie_cache_clear (HlTrieCache *self)
{
  g_mutex_lock (&self->lock);
  g_clear_pointer (&self->tries[0], hl_stack_trie_free);
  g_clear_pointer (&self->tries[1], hl_stack_trie_free);
  g_mutex_unlock (&self->lock);
}
