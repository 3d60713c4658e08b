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
  info->address = f != NULL && !f->resolved ? f->address : 0;
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

GStrv
hl_adapter_call_tree_resolve (HlRecording *recording,
                              guint64      address,
                              gboolean     bottom_up)
{
  g_autoptr(GPtrArray) frames = hl_recording_get_address_frames (recording, address);
  GPtrArray *names;

  if (frames->len == 0)
    return NULL;
  names = g_ptr_array_new ();
  for (guint i = 0; i < frames->len; i++)
    {
      const HlFrame *f = g_ptr_array_index (frames, bottom_up ? i : frames->len - 1 - i);

      g_ptr_array_add (names, g_strdup (f->function));
    }
  g_ptr_array_add (names, NULL);
  return (GStrv) g_ptr_array_free (names, FALSE);
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
