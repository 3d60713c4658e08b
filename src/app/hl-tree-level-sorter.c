/* hl-tree-level-sorter.c — sorts a GtkTreeListModel's rows level by level. */
#include "hl-config.h"

#include "hl-tree-level-sorter.h"

struct _HlTreeLevelSorter
{
  GtkSorter parent_instance;

  /* Owned */
  GtkSorter *sorter;   /* of the rows' items; NULL: their model's order */
};

G_DEFINE_FINAL_TYPE (HlTreeLevelSorter, hl_tree_level_sorter, GTK_TYPE_SORTER)

/* ROW's ancestor LEVELS levels up (a new reference), ROW itself for 0. */
static GtkTreeListRow *
ancestor (GtkTreeListRow *row,
          guint           levels)
{
  g_object_ref (row);
  while (levels-- > 0 && row != NULL)
    {
      GtkTreeListRow *parent = gtk_tree_list_row_get_parent (row);

      g_object_unref (row);
      row = parent;
    }
  return row;
}

/* Two siblings: by the sorter, then (a total order, so that a child of
 * one always goes between them) by their place in the model. */
static GtkOrdering
compare_siblings (HlTreeLevelSorter *self,
                  GtkTreeListRow    *a,
                  GtkTreeListRow    *b)
{
  GtkOrdering order = GTK_ORDERING_EQUAL;

  if (self->sorter != NULL)
    {
      g_autoptr(GObject) item_a = gtk_tree_list_row_get_item (a);
      g_autoptr(GObject) item_b = gtk_tree_list_row_get_item (b);

      order = gtk_sorter_compare (self->sorter, item_a, item_b);
    }
  if (order == GTK_ORDERING_EQUAL)
    order = gtk_tree_list_row_get_position (a) < gtk_tree_list_row_get_position (b) ? GTK_ORDERING_SMALLER
                                                                                      : GTK_ORDERING_LARGER;
  return order;
}

static GtkOrdering
hl_tree_level_sorter_compare (GtkSorter *sorter,
                              gpointer   item1,
                              gpointer   item2)
{
  HlTreeLevelSorter *self = HL_TREE_LEVEL_SORTER (sorter);
  GtkTreeListRow *a, *b;
  guint depth_a, depth_b;
  GtkOrdering order;

  if (item1 == item2)
    return GTK_ORDERING_EQUAL;
  /* not rows (a model of other items): after the rows, by address */
  if (!GTK_IS_TREE_LIST_ROW (item1) || !GTK_IS_TREE_LIST_ROW (item2))
    {
      if (GTK_IS_TREE_LIST_ROW (item1))
        return GTK_ORDERING_SMALLER;
      if (GTK_IS_TREE_LIST_ROW (item2))
        return GTK_ORDERING_LARGER;
      return item1 < item2 ? GTK_ORDERING_SMALLER : GTK_ORDERING_LARGER;
    }

  /* Both at the depth of the shallower: a row and its own ancestor
   * (the same row then) put the ancestor first. */
  depth_a = gtk_tree_list_row_get_depth (item1);
  depth_b = gtk_tree_list_row_get_depth (item2);
  a = ancestor (item1, depth_a > depth_b ? depth_a - depth_b : 0);
  b = ancestor (item2, depth_b > depth_a ? depth_b - depth_a : 0);
  if (a == b)
    order = depth_a < depth_b ? GTK_ORDERING_SMALLER : GTK_ORDERING_LARGER;
  else
    {
      /* up to the children of the common parent */
      for (;;)
        {
          GtkTreeListRow *parent_a = gtk_tree_list_row_get_parent (a);
          GtkTreeListRow *parent_b = gtk_tree_list_row_get_parent (b);
          gboolean siblings = parent_a == parent_b;

          if (siblings)
            {
              g_clear_object (&parent_a);
              g_clear_object (&parent_b);
              break;
            }
          g_object_unref (a);
          g_object_unref (b);
          a = parent_a;
          b = parent_b;
        }
      order = compare_siblings (self, a, b);
    }
  g_object_unref (a);
  g_object_unref (b);
  return order;
}

static GtkSorterOrder
hl_tree_level_sorter_get_order (GtkSorter *sorter)
{
  /* every row has one place: where a new child goes is known */
  return GTK_SORTER_ORDER_TOTAL;
}

/* Any change of the items' order is a new order of the rows: inverting
 * the siblings' order must not put children before their parent. */
static void
on_sorter_changed (HlTreeLevelSorter *self,
                   GtkSorterChange    change)
{
  gtk_sorter_changed (GTK_SORTER (self), GTK_SORTER_CHANGE_DIFFERENT);
}

static void
hl_tree_level_sorter_dispose (GObject *object)
{
  HlTreeLevelSorter *self = HL_TREE_LEVEL_SORTER (object);

  if (self->sorter != NULL)
    g_signal_handlers_disconnect_by_func (self->sorter, on_sorter_changed, self);
  g_clear_object (&self->sorter);
  G_OBJECT_CLASS (hl_tree_level_sorter_parent_class)->dispose (object);
}

static void
hl_tree_level_sorter_class_init (HlTreeLevelSorterClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkSorterClass *sorter_class = GTK_SORTER_CLASS (klass);

  object_class->dispose = hl_tree_level_sorter_dispose;
  sorter_class->compare = hl_tree_level_sorter_compare;
  sorter_class->get_order = hl_tree_level_sorter_get_order;
}

static void
hl_tree_level_sorter_init (HlTreeLevelSorter *self)
{
}

HlTreeLevelSorter *
hl_tree_level_sorter_new (GtkSorter *sorter)
{
  HlTreeLevelSorter *self;

  g_return_val_if_fail (sorter == NULL || GTK_IS_SORTER (sorter), NULL);
  self = g_object_new (HL_TYPE_TREE_LEVEL_SORTER, NULL);
  self->sorter = sorter;
  if (sorter != NULL)
    g_signal_connect_swapped (sorter, "changed", G_CALLBACK (on_sorter_changed), self);
  return self;
}
