/* hl-diff-tree.c — two call trees merged by function + module. */
#include "hl-diff-tree.h"

#include "hl-frame-table.h"

#include <stdlib.h>
#include <string.h>

typedef struct
{
  const HlFrame *frame;
  int            frame_side;  /* which recording FRAME is from */
  guint          parent;
  HlCosts        a;
  HlCosts        b;
  HlCosts        self_a;
  HlCosts        self_b;
  guint          n_from[2];   /* call tree nodes of A, of B merged here */
  GArray        *children;    /* guint, NULL when none */
} DiffNode;

/* What matching needs to know of one side's recording. */
typedef struct
{
  const HlModuleInfo *modules;
  guint               n_modules;
  guint               main_module;  /* G_MAXUINT32 when not found */
} Side;

struct _HlDiffTree
{
  gatomicrefcount ref_count;
  HlCostKind      sort_by;
  GArray         *nodes;     /* DiffNode */
  HlAnalysis     *analyses[2];  /* owned: the frames are their recordings' */
  Side            sides[2];  /* borrowed from the analyses' recordings, during the build */
  guint           matched[2];
  guint           total[2];
};

G_DEFINE_BOXED_TYPE (HlDiffTree, hl_diff_tree, hl_diff_tree_ref, hl_diff_tree_unref)

/* The module of the executable: the one mapped from the trace's "exe",
 * else the one of that basename. */
static void
side_init (Side        *side,
           HlRecording *rec)
{
  const char *exe = hl_recording_get_info (rec, "exe");
  g_autofree char *exe_name = exe != NULL ? g_path_get_basename (exe) : NULL;

  side->modules = hl_recording_get_modules (rec, &side->n_modules);
  side->main_module = G_MAXUINT32;
  for (guint pass = 0; exe != NULL && pass < 2 && side->main_module == G_MAXUINT32; pass++)
    for (guint m = 0; m < side->n_modules; m++)
      if (pass == 0 ? g_strcmp0 (side->modules[m].path, exe) == 0
                    : g_strcmp0 (side->modules[m].name, exe_name) == 0)
        {
          side->main_module = m;
          break;
        }
}

static const HlModuleInfo *
module_of (const Side    *side,
           const HlFrame *frame)
{
  guint32 m = hl_frame_entry (frame)->module;

  return m < side->n_modules ? &side->modules[m] : NULL;
}

/* Modules are the same when both are their side's executable, or when
 * neither is and their basenames are equal. */
static gboolean
same_module (const Side    *sx,
             const HlFrame *x,
             const Side    *sy,
             const HlFrame *y)
{
  guint32 mx = hl_frame_entry (x)->module;
  guint32 my = hl_frame_entry (y)->module;
  gboolean main_x = mx != G_MAXUINT32 && mx == sx->main_module;
  gboolean main_y = my != G_MAXUINT32 && my == sy->main_module;

  if (main_x || main_y)
    return main_x && main_y;
  return g_strcmp0 (x->module_name, y->module_name) == 0;
}

static const char *
file_basename (const char *file)
{
  const char *slash = file != NULL ? strrchr (file, '/') : NULL;

  return slash != NULL ? slash + 1 : file;
}

/* Symbolized frames: function, source file (basename) and module. Frames
 * without a symbol: their offset in the same module, and only when the
 * modules are one build (the same build-id; without build-ids, the same
 * file); without a module, the same address. */
static gboolean
frames_match (const HlDiffTree *self,
              const HlFrame    *x,
              int               side_x,
              const HlFrame    *y,
              int               side_y)
{
  const Side *sx = &self->sides[side_x];
  const Side *sy = &self->sides[side_y];
  const HlModuleInfo *modx, *mody;

  if (x == y)
    return TRUE;
  if (x->is_inline != y->is_inline || x->resolved != y->resolved || !same_module (sx, x, sy, y))
    return FALSE;
  if (x->resolved)
    return strcmp (x->function, y->function) == 0
           && g_strcmp0 (file_basename (x->file), file_basename (y->file)) == 0;
  modx = module_of (sx, x);
  mody = module_of (sy, y);
  if (modx == NULL || mody == NULL)
    return modx == mody && strcmp (x->function, y->function) == 0;
  if (x->address - modx->start != y->address - mody->start)
    return FALSE;
  if (modx->build_id[0] != '\0' || mody->build_id[0] != '\0')
    return strcmp (modx->build_id, mody->build_id) == 0;
  return strcmp (modx->path, mody->path) == 0;
}

static guint
add_node (HlDiffTree    *self,
          guint          parent,
          const HlFrame *frame,
          int            side)
{
  DiffNode n = { .frame = frame, .frame_side = side, .parent = parent };
  guint index = self->nodes->len;

  g_array_append_val (self->nodes, n);
  if (parent != G_MAXUINT)
    {
      DiffNode *p = &g_array_index (self->nodes, DiffNode, parent);
      if (p->children == NULL)
        p->children = g_array_new (FALSE, FALSE, sizeof (guint));
      g_array_append_val (p->children, index);
    }
  return index;
}

/* Adds the subtree of NODE in TREE (side 0 = a, 1 = b) under DIFF. */
static void
merge (HlDiffTree       *self,
       const HlCallTree *tree,
       HlCallNode        node,
       guint             diff,
       int               side)
{
  guint n = hl_call_tree_get_n_children (tree, node);
  DiffNode *d = &g_array_index (self->nodes, DiffNode, diff);

  /* Costs add up: two nodes of one side may match one path. */
  hl_costs_add (side == 0 ? &d->a : &d->b, hl_call_tree_get_costs (tree, node));
  hl_costs_add (side == 0 ? &d->self_a : &d->self_b, hl_call_tree_get_self_costs (tree, node));
  d->n_from[side]++;

  for (guint i = 0; i < n; i++)
    {
      HlCallNode c = hl_call_tree_get_child (tree, node, i);
      const HlFrame *frame = hl_call_tree_get_frame (tree, c);
      guint match = G_MAXUINT;
      GArray *kids = g_array_index (self->nodes, DiffNode, diff).children;

      for (guint k = 0; kids != NULL && k < kids->len; k++)
        {
          guint idx = g_array_index (kids, guint, k);
          const DiffNode *kid = &g_array_index (self->nodes, DiffNode, idx);

          if (frames_match (self, kid->frame, kid->frame_side, frame, side))
            {
              match = idx;
              break;
            }
        }
      if (match == G_MAXUINT)
        match = add_node (self, diff, frame, side);
      merge (self, tree, c, match, side);
    }
}

static gint64
delta (const DiffNode *n,
       HlCostKind      kind)
{
  return (gint64) hl_costs_get (&n->b, kind) - (gint64) hl_costs_get (&n->a, kind);
}

static int
compare_children (gconstpointer x,
                  gconstpointer y,
                  gpointer      user_data)
{
  HlDiffTree *self = user_data;
  const DiffNode *a = &g_array_index (self->nodes, DiffNode, *(const guint *) x);
  const DiffNode *b = &g_array_index (self->nodes, DiffNode, *(const guint *) y);
  guint64 da = (guint64) llabs (delta (a, self->sort_by));
  guint64 db = (guint64) llabs (delta (b, self->sort_by));

  if (da != db)
    return da > db ? -1 : 1;
  return strcmp (a->frame->function, b->frame->function);
}

HlDiffTree *
hl_diff_tree_new (HlAnalysis     *a,
                  HlAnalysis     *b,
                  HlCallTreeKind  kind,
                  HlCostKind      sort_by)
{
  g_autoptr (HlCallTree) ta = NULL;
  g_autoptr (HlCallTree) tb = NULL;
  HlDiffTree *self;

  g_return_val_if_fail (HL_IS_ANALYSIS (a) && HL_IS_ANALYSIS (b), NULL);
  g_return_val_if_fail (sort_by < HL_N_COST_KINDS, NULL);

  ta = hl_analysis_get_call_tree (a, kind, sort_by);
  tb = hl_analysis_get_call_tree (b, kind, sort_by);
  self = g_new0 (HlDiffTree, 1);
  g_atomic_ref_count_init (&self->ref_count);
  self->sort_by = sort_by;
  self->nodes = g_array_new (FALSE, TRUE, sizeof (DiffNode));
  self->analyses[0] = g_object_ref (a);
  self->analyses[1] = g_object_ref (b);
  side_init (&self->sides[0], hl_analysis_get_recording (a));
  side_init (&self->sides[1], hl_analysis_get_recording (b));
  add_node (self, G_MAXUINT, NULL, 0);
  merge (self, ta, 0, 0, 0);
  merge (self, tb, 0, 0, 1);
  /* The root's costs are the analyses' totals (a peak is not a sum). */
  g_array_index (self->nodes, DiffNode, 0).a = *hl_call_tree_get_costs (ta, 0);
  g_array_index (self->nodes, DiffNode, 0).b = *hl_call_tree_get_costs (tb, 0);
  for (guint i = 0; i < self->nodes->len; i++)
    {
      const DiffNode *n = &g_array_index (self->nodes, DiffNode, i);

      if (i != 0)
        for (int side = 0; side < 2; side++)
          {
            self->total[side] += n->n_from[side];
            if (n->n_from[!side] != 0)
              self->matched[side] += n->n_from[side];
          }
      if (n->children != NULL)
        g_array_sort_with_data (n->children, compare_children, self);
    }
  memset (self->sides, 0, sizeof self->sides);
  return self;
}

HlDiffTree *
hl_diff_tree_ref (HlDiffTree *tree)
{
  g_return_val_if_fail (tree != NULL, NULL);
  g_atomic_ref_count_inc (&tree->ref_count);
  return tree;
}

void
hl_diff_tree_unref (HlDiffTree *tree)
{
  g_return_if_fail (tree != NULL);
  if (!g_atomic_ref_count_dec (&tree->ref_count))
    return;
  for (guint i = 0; i < tree->nodes->len; i++)
    g_clear_pointer (&g_array_index (tree->nodes, DiffNode, i).children, g_array_unref);
  g_array_unref (tree->nodes);
  g_clear_object (&tree->analyses[0]);
  g_clear_object (&tree->analyses[1]);
  g_free (tree);
}

static const DiffNode *
node_at (const HlDiffTree *tree,
         guint             node)
{
  g_return_val_if_fail (node < tree->nodes->len, &g_array_index (tree->nodes, DiffNode, 0));
  return &g_array_index (tree->nodes, DiffNode, node);
}

guint
hl_diff_tree_get_n_nodes (const HlDiffTree *tree)
{
  return tree->nodes->len;
}

const HlFrame *
hl_diff_tree_get_frame (const HlDiffTree *tree,
                        guint             node)
{
  return node_at (tree, node)->frame;
}

guint
hl_diff_tree_get_parent (const HlDiffTree *tree,
                         guint             node)
{
  return node_at (tree, node)->parent;
}

guint
hl_diff_tree_get_n_children (const HlDiffTree *tree,
                             guint             node)
{
  const DiffNode *n = node_at (tree, node);
  return n->children != NULL ? n->children->len : 0;
}

guint
hl_diff_tree_get_child (const HlDiffTree *tree,
                        guint             node,
                        guint             i)
{
  const DiffNode *n = node_at (tree, node);

  g_return_val_if_fail (n->children != NULL && i < n->children->len, G_MAXUINT);
  return g_array_index (n->children, guint, i);
}

const HlCosts *
hl_diff_tree_get_costs_a (const HlDiffTree *tree,
                          guint             node)
{
  return &node_at (tree, node)->a;
}

const HlCosts *
hl_diff_tree_get_costs_b (const HlDiffTree *tree,
                          guint             node)
{
  return &node_at (tree, node)->b;
}

gint64
hl_diff_tree_get_delta (const HlDiffTree *tree,
                        guint             node,
                        HlCostKind        kind)
{
  return delta (node_at (tree, node), kind);
}

const HlCosts *
hl_diff_tree_get_self_costs_a (const HlDiffTree *tree,
                               guint             node)
{
  return &node_at (tree, node)->self_a;
}

const HlCosts *
hl_diff_tree_get_self_costs_b (const HlDiffTree *tree,
                               guint             node)
{
  return &node_at (tree, node)->self_b;
}

gint64
hl_diff_tree_get_self_delta (const HlDiffTree *tree,
                             guint             node,
                             HlCostKind        kind)
{
  const DiffNode *n = node_at (tree, node);

  return (gint64) hl_costs_get (&n->self_b, kind) - (gint64) hl_costs_get (&n->self_a, kind);
}

void
hl_diff_tree_get_match_counts (const HlDiffTree *tree,
                               guint            *matched_a,
                               guint            *total_a,
                               guint            *matched_b,
                               guint            *total_b)
{
  g_return_if_fail (tree != NULL);
  if (matched_a != NULL)
    *matched_a = tree->matched[0];
  if (total_a != NULL)
    *total_a = tree->total[0];
  if (matched_b != NULL)
    *matched_b = tree->matched[1];
  if (total_b != NULL)
    *total_b = tree->total[1];
}
