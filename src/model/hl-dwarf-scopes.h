/* hl-dwarf-scopes.h — the function scopes (subprograms and inlined
 * subroutines) of a compilation unit, read once per unit into a table
 * sorted by address, so that finding the innermost scope of an address is
 * a binary search instead of dwarf_getscopes' walk of the unit's DIEs
 * (which, per address, was most of symbolization's time: a C library's
 * units hold thousands of DIEs).
 *
 * Not thread-safe (one per symbolizer, itself one per thread).
 */
#pragma once

#include <elfutils/libdw.h>
#include <glib.h>

G_BEGIN_DECLS

typedef struct _HlDwarfScopes HlDwarfScopes;  /* the units of one module */
typedef struct _HlCuScopes HlCuScopes;        /* one unit */

HlDwarfScopes    *hl_dwarf_scopes_new       (void);
void              hl_dwarf_scopes_free      (HlDwarfScopes *self);

/* The table of CUDIE's unit, built on first use. */
const HlCuScopes *hl_dwarf_scopes_for_cu    (HlDwarfScopes *self,
                                             Dwarf_Die     *cudie);
/* The innermost function scope containing PC (a DWARF address: without
 * the module's bias), or -1. */
gint32            hl_cu_scopes_innermost    (const HlCuScopes *cu,
                                             Dwarf_Addr        pc);
/* The function scope that lexically encloses scope I (where an inlined
 * subroutine was inlined into), or -1 for an outermost one. */
gint32            hl_cu_scopes_parent       (const HlCuScopes *cu,
                                             gint32            i);
/* The DIE of scope I, valid while the Dwarf is. */
const Dwarf_Die  *hl_cu_scopes_die          (const HlCuScopes *cu,
                                             gint32            i);

G_END_DECLS
