/* hl-recycle.h — large blocks kept from one result for the next.
 *
 * A live flame graph rebuilds a call tree, its layout and the drawing
 * nodes of the same size several times a second. Memory given back to the
 * kernel and taken again costs a page fault per 4 KiB (at 5 × 10⁵ nodes,
 * tens of MiB: more than the work itself), so each kind of result keeps
 * the largest block it freed in a slot, for the next one to take.
 *
 * A slot is a static HlRecycleSlot (zero-initialized); any thread may take
 * or give. Blocks under HL_RECYCLE_MIN_BYTES are freed, not kept.
 */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

#define HL_RECYCLE_MIN_BYTES ((gsize) 4 << 20)

typedef struct
{
  GMutex   lock;
  gpointer block;
  gsize    size;
} HlRecycleSlot;

/* A block of at least SIZE bytes, uninitialized: the slot's when it is
 * large enough (and not four times too large), else a new one. *GOT: its real size (give it back with it). */
gpointer hl_recycle_take (HlRecycleSlot *slot,
                          gsize          size,
                          gsize         *got);
/* Frees BLOCK of SIZE bytes, or keeps it in SLOT when it is larger than
 * the block there (which is freed instead). NULL is ignored. */
void     hl_recycle_give (HlRecycleSlot *slot,
                          gpointer       block,
                          gsize          size);

G_END_DECLS
