/* hl-flame-data.h — the frames of a flame graph, laid out for drawing.
 *
 * A flat array of nodes in depth-first pre-order: node 0 is the root (the
 * total), a node's subtree is the index range [i, hl_flame_data_subtree_end (i)).
 * Every node knows its horizontal offset in cost units, so that drawing,
 * hit-testing and zoom are arithmetic on this array and never touch the model.
 * Built once per (model result, cost), immutable afterwards, reference counted.
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef struct _HlFlameData HlFlameData;

#define HL_TYPE_FLAME_DATA (hl_flame_data_get_type ())
GType hl_flame_data_get_type (void) G_GNUC_CONST;

typedef struct
{
  const char *name;      /* function, never NULL */
  const char *module;    /* basename of the module, or "" */
  const char *file;      /* source file, or NULL */
  guint       line;
  guint64     cost;      /* inclusive */
  guint64     offset;    /* start in cost units, from the root's start */
  guint       depth;     /* root = 0 */
  gint        parent;    /* -1 for the root */
  guint       end;       /* one past the last node of the subtree */
  gboolean    is_inline;
  gpointer    user_data; /* e.g. the model's node, borrowed */
} HlFlameNode;

HlFlameData       *hl_flame_data_new          (const char  *root_name,
                                               gboolean     cost_is_bytes);
HlFlameData       *hl_flame_data_ref          (HlFlameData *data);
void               hl_flame_data_unref        (HlFlameData *data);

/* Append a child of PARENT (an index already added). Children must be added
 * in depth-first pre-order: a node after its parent and after the whole
 * subtree of its previous sibling. Returns the new index. */
guint              hl_flame_data_add          (HlFlameData *data,
                                               guint        parent,
                                               const char  *name,
                                               const char  *module,
                                               const char  *file,
                                               guint        line,
                                               guint64      cost,
                                               gboolean     is_inline,
                                               gpointer     user_data);
/* As hl_flame_data_add, with the name, module, file, line and inline flag
 * of node LIKE (an index already added): no strings copied or looked up. */
guint              hl_flame_data_add_like     (HlFlameData *data,
                                               guint        parent,
                                               guint        like,
                                               guint64      cost,
                                               gpointer     user_data);
/* Room for N nodes in all, before the first add (fewer copies). */
void               hl_flame_data_reserve      (HlFlameData *data,
                                               guint        n);
/* Set the root's cost (by default the sum of its children). */
void               hl_flame_data_set_total    (HlFlameData *data,
                                               guint64      total);
/* Computes subtree ends; call once after the last add. */
void               hl_flame_data_finish       (HlFlameData *data);

guint              hl_flame_data_get_n_nodes  (const HlFlameData *data);
const HlFlameNode *hl_flame_data_get_node     (const HlFlameData *data,
                                               guint              index);
guint64            hl_flame_data_get_total    (const HlFlameData *data);
guint              hl_flame_data_get_max_depth(const HlFlameData *data);
gboolean           hl_flame_data_cost_is_bytes(const HlFlameData *data);

/* The child of NODE that contains cost offset OFFSET, or -1. */
gint               hl_flame_data_child_at     (const HlFlameData *data,
                                               guint              node,
                                               guint64            offset);
/* TRUE if ANCESTOR is NODE or one of its ancestors. */
gboolean           hl_flame_data_is_ancestor  (const HlFlameData *data,
                                               guint              ancestor,
                                               guint              node);
/* Whether NODE's name matches SEARCH (case-insensitive substring). */
gboolean           hl_flame_data_node_matches (const HlFlameData *data,
                                               guint              node,
                                               const char        *search);
/* NODE's name case-folded (g_utf8_casefold), for fast repeated matching. */
const char        *hl_flame_data_get_folded_name (const HlFlameData *data,
                                                  guint              node);
/* Cost of the nodes matching SEARCH, counted once per stack (a match under
 * a match is not counted again): the share the search bar shows. */
guint64            hl_flame_data_search_cost  (const HlFlameData *data,
                                               const char        *search);
/* NODE's frames from the root's child down to NODE, each "module/function"
 * (the module's basename): a name for a node that survives rebuilding the
 * data from another recording of the same program (a live session and its
 * saved trace). Empty for the root. */
GStrv              hl_flame_data_get_path     (const HlFlameData *data,
                                               guint              node);
/* The node named by PATH (hl_flame_data_get_path), or the deepest one on
 * it that exists; 0 (the root) when even the first frame is missing. */
guint              hl_flame_data_find_path    (const HlFlameData  *data,
                                               const char * const *path,
                                               guint              *n_matched);
/* A frame the recording could not symbolize (shown as "module+0x…")
 * keeps its return address, absolute in its process: every node of that
 * name gives it. */
void               hl_flame_data_set_address  (HlFlameData       *data,
                                               guint              node,
                                               guint64            address);
gboolean           hl_flame_data_get_address  (const HlFlameData *data,
                                               guint              node,
                                               guint64           *address);
/* The names ("module/function", as in hl_flame_data_get_path) that the
 * data's recording gives the frames of return address ADDRESS, in the
 * order of the data's paths (outermost first, innermost first when
 * inverted); NULL when it knows no frame there. */
typedef GStrv (*HlFlameResolveFunc) (gpointer user_data,
                                     guint64  address);
/* RESOLVE answers for the data's recording, whose process ORIGIN names
 * (its pid; NULL: unknown): addresses of data of another origin are not
 * looked up. */
void               hl_flame_data_set_resolver (HlFlameData       *data,
                                               const char        *origin,
                                               HlFlameResolveFunc resolve,
                                               gpointer           user_data,
                                               GDestroyNotify     destroy);
const char        *hl_flame_data_get_origin   (const HlFlameData *data);
GStrv              hl_flame_data_resolve      (const HlFlameData *data,
                                               guint64            address);
/* OLD's node OLD_NODE found again in DATA, new data of the same program
 * (a live view rebuilt, or become its saved trace): along the names of
 * its path, and where a frame OLD could not symbolize has no node of its
 * name, by its address (DATA's resolver, same origin: the frames DATA's
 * recording gives that address, inline frames as nodes of their own).
 * The deepest node found; *EXACT: the whole path. */
guint              hl_flame_data_find_node_of (const HlFlameData *data,
                                               const HlFlameData *old,
                                               guint              old_node,
                                               gboolean          *exact);
/* Collapsed stacks ("root;a;b 123\n", self costs, as flamegraph.pl reads). */
char              *hl_flame_data_to_collapsed (const HlFlameData *data);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HlFlameData, hl_flame_data_unref)

G_END_DECLS
