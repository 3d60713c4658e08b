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

/* Caller/callee rows: node is the HlFrame; the two section rows carry a
 * marker in their node so that the children function knows the direction. */
typedef struct
{
  HlAnalysis    *analysis;
  const HlFrame *function;
} CallerCallee;

static void
caller_callee_free (CallerCallee *cc)
{
  g_object_unref (cc->analysis);
  g_free (cc);
}

static GListModel *
caller_callee_children (HlTreeRow *row,
                        gpointer   user_data)
{
  CallerCallee *cc = user_data;
  GListStore *store = g_list_store_new (HL_TYPE_TREE_ROW);
  HlTreeRow *r;
  gboolean callers = TRUE;
  const HlFrame *function;
  g_autoptr(GArray) list = NULL;

  if (hl_tree_row_get_parent (row) == NULL)
    {
      /* The root: the two sections. */
      for (int k = 0; k < 2; k++)
        {
          HlTreeRowInfo info = { 0 };
          HlCosts costs;
          g_autoptr(HlTreeRow) section = NULL;

          info.name = k == 0 ? _("Callers") : _("Callees");
          info.module = "";
          info.has_children = TRUE;
          info.node = (gpointer) cc->function;
          hl_analysis_get_function_costs (cc->analysis, cc->function, &costs);
          hl_adapter_costs_to_array (&costs, info.costs);
          section = hl_tree_row_new_child (row, &info);
          g_object_set_data (G_OBJECT (section), "hl-callers", GINT_TO_POINTER (k == 0));
          g_list_store_append (store, section);
        }
      return G_LIST_MODEL (store);
    }

  /* The direction is the section's, inherited down the rows. */
  for (r = row; hl_tree_row_get_parent (r) != NULL && hl_tree_row_get_parent (hl_tree_row_get_parent (r)) != NULL;
       r = hl_tree_row_get_parent (r))
    ;
  callers = GPOINTER_TO_INT (g_object_get_data (G_OBJECT (r), "hl-callers"));
  function = hl_tree_row_get_node (row);
  list = callers ? hl_analysis_get_callers (cc->analysis, function, HL_COST_KIND_BYTES)
                 : hl_analysis_get_callees (cc->analysis, function, HL_COST_KIND_BYTES);
  for (guint i = 0; list != NULL && i < list->len; i++)
    {
      const HlStackCosts *sc = &g_array_index (list, HlStackCosts, i);
      HlTreeRowInfo info = { 0 };
      g_autoptr(HlTreeRow) child = NULL;

      fill_info_from_frame (&info, sc->frame);
      info.has_children = hl_tree_row_get_depth (row) < 64;
      info.node = (gpointer) sc->frame;
      hl_adapter_costs_to_array (&sc->costs, info.costs);
      child = hl_tree_row_new_child (row, &info);
      g_list_store_append (store, child);
    }
  return G_LIST_MODEL (store);
}

HlTreeRow *
hl_adapter_caller_callee (HlAnalysis    *analysis,
                          const HlFrame *function)
{
  CallerCallee *cc = g_new0 (CallerCallee, 1);
  HlTreeRowInfo info = { .name = function->function, .has_children = TRUE };
  HlCosts totals;
  guint64 total_array[HL_N_COST_KINDS];

  cc->analysis = g_object_ref (analysis);
  cc->function = function;
  hl_analysis_get_totals (analysis, &totals);
  hl_adapter_costs_to_array (&totals, total_array);
  memcpy (info.costs, total_array, sizeof info.costs);
  return hl_tree_row_new_root (&info, total_array, caller_callee_children, cc,
                               (GDestroyNotify) caller_callee_free);
}

const HlFrame *
hl_adapter_find_function (HlAnalysis *analysis,
                          const char *name)
{
  g_autoptr(HlCallTree) tree = hl_analysis_get_call_tree (analysis, HL_CALL_TREE_BOTTOM_UP, HL_COST_KIND_BYTES);
  guint n = hl_call_tree_get_n_nodes (tree);

  /* Node indices cover the tree; any node with that name will do, since
   * callers/callees merge a function's frames by name and module. */
  for (HlCallNode node = 0; node < n; node++)
    {
      const HlFrame *f = hl_call_tree_get_frame (tree, node);
      if (f != NULL && g_strcmp0 (f->function, name) == 0)
        return f;
    }
  return NULL;
}
