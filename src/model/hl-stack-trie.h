/* hl-stack-trie.h — the tries of a recording's expanded stacks, shared by
 * every analysis of it, and HlTrieCache, which holds a recording's two
 * (built on first use and kept until its stacks or symbols change:
 * hl_recording_get_trie()). */
#pragma once

#include "hl-frame-table.h"

G_BEGIN_DECLS

/* One node of a stack trie. */
typedef struct
{
  const HlFrameEntry *frame;   /* NULL for the root */
  guint32 parent;
  guint32 first_child;
  guint32 next_sibling;
  guint32 depth;
} HlTrieNode;

typedef struct
{
  GArray  *nodes;        /* HlTrieNode, [0] is the root */
  guint32 *stack_leaf;   /* per internal stack: its deepest node */
  guint    n_stacks;
  guint64  serial;       /* unique per trie built (a freed trie's address is not) */
} HlTrie;

/* Top-down (outermost frame first) or bottom-up, over the stacks FRAMES
 * has expanded. */
HlTrie *hl_stack_trie_build (const HlFrameTable *frames,
                             gboolean            bottom_up);
void    hl_stack_trie_free  (HlTrie             *trie);

/* A recording's two tries, built on first use and kept until its stacks
 * or symbols change. Analyses on worker threads ask for them: the cache
 * has a lock of its own. */
typedef struct _HlTrieCache HlTrieCache;

/* Brings the frame table up to date before a trie is built from it,
 * under the cache's lock; gives the table. */
typedef const HlFrameTable *(*HlTrieCacheUpdate) (gpointer user_data);

HlTrieCache  *hl_trie_cache_new   (void);
void          hl_trie_cache_free  (HlTrieCache       *self);
/* The trie (BOTTOM_UP or top-down): UPDATE is called first, under the
 * lock, then the trie is built from the table it gives unless cached.
 * Valid until hl_trie_cache_clear(). */
const HlTrie *hl_trie_cache_get   (HlTrieCache       *self,
                                   gboolean           bottom_up,
                                   HlTrieCacheUpdate  update,
                                   gpointer           user_data);
/* Calls UPDATE under the lock, without building a trie: a reader of the
 * frame table while analyses on workers may expand it. */
void          hl_trie_cache_update (HlTrieCache      *self,
                                    HlTrieCacheUpdate update,
                                    gpointer          user_data);
/* Drops both tries (the stacks or their frames changed). */
void          hl_trie_cache_clear (HlTrieCache       *self);

G_END_DECLS
