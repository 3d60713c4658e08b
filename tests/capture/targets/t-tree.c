/* t-tree — builds a binary tree of strdup'ed keys, frees half of it and
 * loses the rest (definitely + indirectly lost). No stdio. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

typedef struct Node
{
  struct Node *left, *right;
  char        *key;
} Node;

static Node *
insert (Node *n, const char *key)
{
  if (n == NULL)
    {
      n = calloc (1, sizeof *n);
      n->key = strdup (key);
      return n;
    }
  if (strcmp (key, n->key) < 0)
    n->left = insert (n->left, key);
  else
    n->right = insert (n->right, key);
  return n;
}

static void
destroy (Node *n)
{
  if (n == NULL)
    return;
  destroy (n->left);
  destroy (n->right);
  free (n->key);
  free (n);
}

int
main (void)
{
  Node *root = NULL;
  char key[16];
  unsigned s = 7;
  for (int i = 0; i < 3000; i++)
    {
      s = s * 1664525u + 1013904223u;
      for (int k = 0; k < 8; k++)
        key[k] = (char) ('a' + ((s >> (k * 3)) & 15));
      key[8] = '\0';
      root = insert (root, key);
    }
  destroy (root->left);
  root->left = NULL;
  root = NULL; /* the right half is lost */
  (void) !write (1, "t-tree: done\n", 13);
  return 0;
}
