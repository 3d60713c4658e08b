/* hl-tree-row.c — one row of a call tree table. */
#include "hl-config.h"

#include <string.h>

#include "hl-tree-row.h"

typedef struct
{
  HlTreeRowChildrenFunc func;
  gpointer              data;
  GDestroyNotify        destroy;
  guint64               totals[HL_N_COST_KINDS];
} Tree;

struct _HlTreeRow
{
  GObject parent_instance;

  /* Owned */
  char      *name;
  char      *module;
  char      *file;
  Tree      *tree;      /* shared by every row of a tree (rc box) */
  HlTreeRow *parent;    /* a reference: rows keep their path alive */

  guint      line;
  guint      depth;
  gboolean   is_inline;
  gboolean   has_children;
  gboolean   has_self;
  guint64    costs[HL_N_COST_KINDS];
  guint64    self_costs[HL_N_COST_KINDS];
  gpointer   node;
  guint64    address;
};

G_DEFINE_FINAL_TYPE (HlTreeRow, hl_tree_row, G_TYPE_OBJECT)

static void
tree_clear (Tree *tree)
{
  if (tree->destroy != NULL)
    tree->destroy (tree->data);
}

static void
fill (HlTreeRow           *self,
      const HlTreeRowInfo *info)
{
  self->name = g_strdup (info->name ? info->name : "??");
  self->module = g_strdup (info->module ? info->module : "");
  self->file = g_strdup (info->file);
  self->line = info->line;
  self->is_inline = info->is_inline;
  self->has_children = info->has_children;
  memcpy (self->costs, info->costs, sizeof self->costs);
  self->has_self = info->has_self;
  if (info->has_self)
    memcpy (self->self_costs, info->self_costs, sizeof self->self_costs);
  self->node = info->node;
  self->address = info->address;
}

guint64
hl_tree_row_get_address (HlTreeRow *self)
{
  g_return_val_if_fail (HL_IS_TREE_ROW (self), 0);
  return self->address;
}

HlTreeRow *
hl_tree_row_new_root (const HlTreeRowInfo   *info,
                      const guint64          totals[HL_N_COST_KINDS],
                      HlTreeRowChildrenFunc  func,
                      gpointer               data,
                      GDestroyNotify         destroy)
{
  HlTreeRow *self = g_object_new (HL_TYPE_TREE_ROW, NULL);

  fill (self, info);
  self->tree = g_atomic_rc_box_new0 (Tree);
  self->tree->func = func;
  self->tree->data = data;
  self->tree->destroy = destroy;
  memcpy (self->tree->totals, totals, sizeof self->tree->totals);
  return self;
}

HlTreeRow *
hl_tree_row_new_child (HlTreeRow           *parent,
                       const HlTreeRowInfo *info)
{
  HlTreeRow *self;

  g_return_val_if_fail (HL_IS_TREE_ROW (parent), NULL);
  self = g_object_new (HL_TYPE_TREE_ROW, NULL);
  fill (self, info);
  self->tree = g_atomic_rc_box_acquire (parent->tree);
  self->parent = g_object_ref (parent);
  self->depth = parent->depth + 1;
  return self;
}

const char *hl_tree_row_get_name (HlTreeRow *self) { return self->name; }
const char *hl_tree_row_get_module (HlTreeRow *self) { return self->module; }
const char *hl_tree_row_get_file (HlTreeRow *self) { return self->file; }
guint hl_tree_row_get_line (HlTreeRow *self) { return self->line; }
gboolean hl_tree_row_get_is_inline (HlTreeRow *self) { return self->is_inline; }
gboolean hl_tree_row_has_children (HlTreeRow *self) { return self->has_children; }
gpointer hl_tree_row_get_node (HlTreeRow *self) { return self->node; }
HlTreeRow *hl_tree_row_get_parent (HlTreeRow *self) { return self->parent; }
guint hl_tree_row_get_depth (HlTreeRow *self) { return self->depth; }

guint64
hl_tree_row_get_cost (HlTreeRow *self,
                      HlCostKind     cost)
{
  g_return_val_if_fail (HL_IS_TREE_ROW (self) && cost < HL_N_COST_KINDS, 0);
  return self->costs[cost];
}

guint64
hl_tree_row_get_total (HlTreeRow *self,
                       HlCostKind     cost)
{
  g_return_val_if_fail (HL_IS_TREE_ROW (self) && cost < HL_N_COST_KINDS, 0);
  return self->tree->totals[cost];
}

gboolean
hl_tree_row_has_self (HlTreeRow *self)
{
  g_return_val_if_fail (HL_IS_TREE_ROW (self), FALSE);
  return self->has_self;
}

guint64
hl_tree_row_get_self_cost (HlTreeRow *self,
                           HlCostKind cost)
{
  g_return_val_if_fail (HL_IS_TREE_ROW (self) && cost < HL_N_COST_KINDS, 0);
  return self->self_costs[cost];
}

GListModel *
hl_tree_row_create_children (HlTreeRow *self)
{
  g_return_val_if_fail (HL_IS_TREE_ROW (self), NULL);
  if (!self->has_children || self->tree->func == NULL)
    return NULL;
  return self->tree->func (self, self->tree->data);
}

char *
hl_tree_row_describe (HlTreeRow *self)
{
  GString *out = g_string_new (self->name);

  if (self->is_inline)
    g_string_append (out, " [inline]");
  if (self->file != NULL)
    g_string_append_printf (out, " — %s:%u", self->file, self->line);
  if (self->module[0] != '\0')
    g_string_append_printf (out, " (%s)", self->module);
  return g_string_free (out, FALSE);
}

static void
hl_tree_row_finalize (GObject *object)
{
  HlTreeRow *self = HL_TREE_ROW (object);

  g_free (self->name);
  g_free (self->module);
  g_free (self->file);
  g_clear_object (&self->parent);
  g_atomic_rc_box_release_full (self->tree, (GDestroyNotify) tree_clear);
  G_OBJECT_CLASS (hl_tree_row_parent_class)->finalize (object);
}

static void
hl_tree_row_class_init (HlTreeRowClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = hl_tree_row_finalize;
}

static void
hl_tree_row_init (HlTreeRow *self)
{
}
