/* hl-stack-trie.c — the tries of a recording's stacks (top-down: outermost
 * frame first; bottom-up: innermost first), shared by every analysis. Nodes
 * merge frames of the same function + module (and inline flag). */
#include "hl-recording-private.h"

static guint32
trie_child (GArray             *nodes,
            guint32             parent,
            const HlFrameEntry *frame)
{
  HlTrieNode *p = &g_array_index (nodes, HlTrieNode, parent);
  HlTrieNode n = { 0 };

  for (guint32 c = p->first_child; c != 0; c = g_array_index (nodes, HlTrieNode, c).next_sibling)
    {
      const HlTrieNode *cn = &g_array_index (nodes, HlTrieNode, c);
      if (cn->frame->function_id == frame->function_id && cn->frame->pub.is_inline == frame->pub.is_inline)
        return c;
    }
  n.frame = frame;
  n.parent = parent;
  n.depth = p->depth + 1;
  n.next_sibling = p->first_child;
  g_array_append_val (nodes, n);
  g_array_index (nodes, HlTrieNode, parent).first_child = nodes->len - 1;
  return nodes->len - 1;
}

HlTrie *
hl_stack_trie_build (HlRecording *self,
                     gboolean     bottom_up)
{
  HlTrie *trie;
  HlTrieNode root = { 0 };

  trie = g_new0 (HlTrie, 1);
  trie->nodes = g_array_new (FALSE, TRUE, sizeof (HlTrieNode));
  g_array_append_val (trie->nodes, root);
  trie->n_stacks = hl_recording_get_n_stacks (self);
  trie->stack_leaf = g_new0 (guint32, trie->n_stacks + 1);
  for (guint32 s = 1; s < trie->n_stacks; s++)
    {
      guint n;
      const HlFrameEntry * const *f = hl_recording_get_stack_entries (self, s, &n);
      guint32 node = 0;

      for (guint i = 0; i < n; i++)
        node = trie_child (trie->nodes, node, f[bottom_up ? i : n - 1 - i]);
      trie->stack_leaf[s] = node;
    }
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
