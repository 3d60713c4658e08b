/* hl-adapter-call-tree.c — the call tree view's rows from the model's call
 * trees. */
#include "hl-config.h"

#include <string.h>
#include <glib/gi18n.h>

#include "hl-adapter-call-tree.h"
#include "hl-adapter-stack.h"

static void
fill_info_from_frame (HlTreeRowInfo *info,
                      const HlFrame *f)
{
  info->name = f ? f->function : "??";
  info->module = f ? f->module_name : "";
  info->file = f ? f->file : NULL;
  info->line = f ? f->line : 0;
  info->is_inline = f ? f->is_inline : FALSE;
}

static GListModel *
call_tree_children (HlTreeRow *row,
                    gpointer   user_data)
{
  HlCallTree *tree = user_data;
  HlCallNode node = GPOINTER_TO_UINT (hl_tree_row_get_node (row));
  guint n = hl_call_tree_get_n_children (tree, node);
  GListStore *store = g_list_store_new (HL_TYPE_TREE_ROW);

  for (guint i = 0; i < n; i++)
    {
      HlCallNode child = hl_call_tree_get_child (tree, node, i);
      HlTreeRowInfo info = { 0 };
      g_autoptr(HlTreeRow) r = NULL;

      fill_info_from_frame (&info, hl_call_tree_get_frame (tree, child));
      info.has_children = hl_call_tree_get_n_children (tree, child) > 0;
      info.node = GUINT_TO_POINTER (child);
      hl_adapter_costs_to_array (hl_call_tree_get_costs (tree, child), info.costs);
      info.has_self = TRUE;
      hl_adapter_costs_to_array (hl_call_tree_get_self_costs (tree, child), info.self_costs);
      r = hl_tree_row_new_child (row, &info);
      g_list_store_append (store, r);
    }
  return G_LIST_MODEL (store);
}

HlTreeRow *
hl_adapter_call_tree (HlCallTree *tree)
{
  HlCallNode root = hl_call_tree_get_root (tree);
  HlTreeRowInfo info = { .name = _("all"), .has_children = TRUE, .node = GUINT_TO_POINTER (root) };

  hl_adapter_costs_to_array (hl_call_tree_get_costs (tree, root), info.costs);
  return hl_tree_row_new_root (&info, info.costs, call_tree_children,
                               hl_call_tree_ref (tree), (GDestroyNotify) hl_call_tree_unref);
}
