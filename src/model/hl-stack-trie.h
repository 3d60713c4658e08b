/* hl-stack-trie.h — the tries of a recording's expanded stacks, shared by
 * every analysis of it (HlRecording builds them on first use and keeps
 * them until its stacks or symbols change: hl_recording_get_trie()). */
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

G_END_DECLS
