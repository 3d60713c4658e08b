/* hl-dwarf-scopes.c — per-unit tables of function scopes by address. */
#include "hl-dwarf-scopes.h"

#include <dwarf.h>

/* Units imported into units (DWZ) nest this deep at most. */
#define MAX_NESTING 64

typedef struct
{
  Dwarf_Die die;
  gint32    parent;   /* enclosing function scope, -1 */
} ScopeDie;

typedef struct
{
  Dwarf_Addr lo, hi;
  guint32    die;
  guint32    depth;
} ScopeRange;

struct _HlCuScopes
{
  GArray *dies;      /* ScopeDie */
  GArray *ranges;    /* ScopeRange, by (lo, depth) */
};

struct _HlDwarfScopes
{
  GHashTable *units;  /* unit DIE offset + 1 → HlCuScopes * */
};

static void
cu_scopes_free (gpointer p)
{
  HlCuScopes *cu = p;

  g_array_unref (cu->dies);
  g_array_unref (cu->ranges);
  g_free (cu);
}

HlDwarfScopes *
hl_dwarf_scopes_new (void)
{
  HlDwarfScopes *self = g_new0 (HlDwarfScopes, 1);

  self->units = g_hash_table_new_full (NULL, NULL, NULL, cu_scopes_free);
  return self;
}

void
hl_dwarf_scopes_free (HlDwarfScopes *self)
{
  if (self == NULL)
    return;
  g_hash_table_unref (self->units);
  g_free (self);
}

static void
collect (HlCuScopes *cu,
         Dwarf_Die  *parent_die,
         gint32      parent,
         guint32     depth,
         guint       nesting)
{
  Dwarf_Die child;

  if (nesting > MAX_NESTING || dwarf_child (parent_die, &child) != 0)
    return;
  do
    {
      switch (dwarf_tag (&child))
        {
        case DW_TAG_subprogram:
        case DW_TAG_inlined_subroutine:
          {
            ScopeDie sd = { child, parent };
            guint32 index = cu->dies->len;
            Dwarf_Addr base, start, end;
            ptrdiff_t off = 0;

            g_array_append_val (cu->dies, sd);
            while ((off = dwarf_ranges (&child, off, &base, &start, &end)) > 0)
              if (end > start)
                {
                  ScopeRange r = { start, end, index, depth };
                  g_array_append_val (cu->ranges, r);
                }
            collect (cu, &child, (gint32) index, depth + 1, nesting + 1);
          }
          break;
        case DW_TAG_lexical_block:
        case DW_TAG_namespace:
        case DW_TAG_class_type:
        case DW_TAG_structure_type:
        case DW_TAG_union_type:
        case DW_TAG_module:
        case DW_TAG_try_block:
        case DW_TAG_catch_block:
          collect (cu, &child, parent, depth, nesting + 1);
          break;
        case DW_TAG_imported_unit:
          {
            Dwarf_Attribute attr;
            Dwarf_Die unit;
            if (dwarf_attr (&child, DW_AT_import, &attr) != NULL && dwarf_formref_die (&attr, &unit) != NULL)
              collect (cu, &unit, parent, depth, nesting + 1);
          }
          break;
        default:
          break;
        }
    }
  while (dwarf_siblingof (&child, &child) == 0);
}

static int
compare_ranges (gconstpointer a,
                gconstpointer b)
{
  const ScopeRange *x = a, *y = b;

  if (x->lo != y->lo)
    return x->lo < y->lo ? -1 : 1;
  if (x->depth != y->depth)
    return x->depth < y->depth ? -1 : 1;
  return x->die < y->die ? -1 : x->die > y->die;
}

const HlCuScopes *
hl_dwarf_scopes_for_cu (HlDwarfScopes *self,
                        Dwarf_Die     *cudie)
{
  gpointer key = GSIZE_TO_POINTER ((gsize) dwarf_dieoffset (cudie) + 1);
  HlCuScopes *cu = g_hash_table_lookup (self->units, key);

  if (cu != NULL)
    return cu;
  cu = g_new0 (HlCuScopes, 1);
  cu->dies = g_array_new (FALSE, FALSE, sizeof (ScopeDie));
  cu->ranges = g_array_new (FALSE, FALSE, sizeof (ScopeRange));
  collect (cu, cudie, -1, 0, 0);
  g_array_sort (cu->ranges, compare_ranges);
  g_hash_table_insert (self->units, key, cu);
  return cu;
}

static gboolean
die_has_pc (const HlCuScopes *cu,
            gint32            i,
            Dwarf_Addr        pc)
{
  return dwarf_haspc (&g_array_index (cu->dies, ScopeDie, i).die, pc) == 1;
}

gint32
hl_cu_scopes_innermost (const HlCuScopes *cu,
                        Dwarf_Addr        pc)
{
  const ScopeRange *r = (const ScopeRange *) cu->ranges->data;
  guint lo = 0, hi = cu->ranges->len;
  gint32 best = -1;
  guint32 best_depth = 0;

  /* The last range starting at or before PC, the deepest of those
   * starting there. Scopes nest: every scope containing PC encloses it. */
  while (lo < hi)
    {
      guint mid = lo + (hi - lo) / 2;
      if (r[mid].lo <= pc)
        lo = mid + 1;
      else
        hi = mid;
    }
  if (lo == 0)
    return -1;
  for (gint32 d = (gint32) r[lo - 1].die; d >= 0; d = g_array_index (cu->dies, ScopeDie, d).parent)
    if (die_has_pc (cu, d, pc))
      return d;

  /* Scopes that do not nest (a damaged or unusual unit): the deepest range
   * holding PC. */
  for (guint i = 0; i < lo; i++)
    if (pc < r[i].hi && (best < 0 || r[i].depth >= best_depth))
      {
        best = (gint32) r[i].die;
        best_depth = r[i].depth;
      }
  return best;
}

gint32
hl_cu_scopes_parent (const HlCuScopes *cu,
                     gint32            i)
{
  g_return_val_if_fail (i >= 0 && (guint) i < cu->dies->len, -1);
  return g_array_index (cu->dies, ScopeDie, i).parent;
}

const Dwarf_Die *
hl_cu_scopes_die (const HlCuScopes *cu,
                  gint32            i)
{
  g_return_val_if_fail (i >= 0 && (guint) i < cu->dies->len, NULL);
  return &g_array_index (cu->dies, ScopeDie, i).die;
}
