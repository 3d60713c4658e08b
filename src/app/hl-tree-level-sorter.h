/* hl-tree-level-sorter.h — sorts the rows of a GtkTreeListModel level by
 * level: siblings by a given sorter, children right after their parent.
 *
 * The order of GtkTreeListRowSorter, which the call tree and the diff
 * table cannot use: in GTK 4.8 its sort keys of a row more than 8 levels
 * deep hold an array that clear_key never frees ((depth + 2) pointers,
 * 80 to 272 bytes for the 9th to the 33rd level, lost each time such a
 * row leaves the sort model or is sorted again), and a new call tree
 * opens its heaviest path HL_CALL_TREE_HEAVIEST_DEPTH levels deep. This
 * sorter has no keys of its own: the sort model compares the rows with it.
 */
#pragma once

#include <gtk/gtk.h>

G_BEGIN_DECLS

#define HL_TYPE_TREE_LEVEL_SORTER (hl_tree_level_sorter_get_type ())
G_DECLARE_FINAL_TYPE (HlTreeLevelSorter, hl_tree_level_sorter, HL, TREE_LEVEL_SORTER, GtkSorter)

/* SORTER (transfer full, may be NULL: siblings keep their order) compares
 * the items of the rows. */
HlTreeLevelSorter *hl_tree_level_sorter_new (GtkSorter *sorter);

G_END_DECLS
