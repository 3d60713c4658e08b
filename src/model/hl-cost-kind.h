/* hl-cost-kind.h — the costs the model computes for every node and selection.
 *
 * Definitions (all over the allocations a filter selects):
 *   ALLOCATIONS  number of allocations (a realloc counts as one allocation
 *                plus one free of the old block)
 *   BYTES        bytes allocated
 *   TEMPORARY    allocations freed before the same thread's next allocation
 *                (heaptrack's definition)
 *   PEAK         bytes live at the moment of the heap peak (of the selected
 *                time range, the whole recording by default)
 *   LEAKED       bytes never freed (with a time range [t0, t1]: allocated in
 *                it and still live at t1)
 *   LIVE         bytes live at the instant HlFilter's live_at_ns (defaults to
 *                the end of the selected range)
 *   LONG_LIVED   bytes of the blocks that lived at least T, HlFilter's
 *                lived_at_least_ns (hl_filter_with_lived_at_least; 0, the
 *                default, counts every block: BYTES). A block's lifetime is
 *                its free time minus its allocation time, whatever the
 *                selected range (a block freed after the range's end lived
 *                that long); a block never freed lives until the end of the
 *                recording (hl_recording_get_end_ns), as the lifetimes'
 *                "alive at exit" bucket holds it
 *   MMAP         bytes of the program's own anonymous mappings (MMAP and
 *                MREMAP events, docs/trace-format.md 5.3) that the selected
 *                calls made (in the range, by the selected threads and
 *                stacks, of a selected size: the call's length) and that
 *                are still mapped at LIVE's instant (the end of the selected
 *                range, of the recording without one); a partial munmap
 *                takes its pages off the call that mapped them. Not heap
 *                bytes: mappings have no blocks, so MMAP adds nothing to the
 *                other costs, and they nothing to it
 */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

typedef enum
{
  HL_COST_KIND_ALLOCATIONS,
  HL_COST_KIND_BYTES,
  HL_COST_KIND_TEMPORARY,
  HL_COST_KIND_PEAK,
  HL_COST_KIND_LEAKED,
  HL_COST_KIND_LIVE,
  HL_COST_KIND_LONG_LIVED,
  HL_COST_KIND_MMAP,
  HL_N_COST_KINDS
} HlCostKind;

#define HL_TYPE_COST_KIND (hl_cost_kind_get_type ())
GType hl_cost_kind_get_type (void) G_GNUC_CONST;

/* The costs of one node or selection. Counts (allocations, temporary,
 * leaked_blocks) and bytes are both kept so every view can show either. */
typedef struct
{
  guint64 allocations;
  guint64 bytes;
  guint64 temporary;
  guint64 peak_bytes;
  guint64 leaked_bytes;
  guint64 leaked_blocks;
  guint64 live_bytes;
  guint64 long_lived_bytes;
  guint64 mmap_bytes;
} HlCosts;

/* The value of one kind: ALLOCATIONS/TEMPORARY are counts, the rest bytes. */
guint64     hl_costs_get            (const HlCosts *costs,
                                     HlCostKind     kind);
/* hl_costs_get without its checks, for loops over every node (the call
 * tree, the flame layout); an unknown KIND gives 0. */
static inline guint64
hl_costs_value (const HlCosts *costs,
                HlCostKind     kind)
{
  switch (kind)
    {
    case HL_COST_KIND_ALLOCATIONS: return costs->allocations;
    case HL_COST_KIND_BYTES:       return costs->bytes;
    case HL_COST_KIND_TEMPORARY:   return costs->temporary;
    case HL_COST_KIND_PEAK:        return costs->peak_bytes;
    case HL_COST_KIND_LEAKED:      return costs->leaked_bytes;
    case HL_COST_KIND_LIVE:        return costs->live_bytes;
    case HL_COST_KIND_LONG_LIVED:  return costs->long_lived_bytes;
    case HL_COST_KIND_MMAP:        return costs->mmap_bytes;
    case HL_N_COST_KINDS:
    default:                       return 0;
    }
}
/* DEST += SRC, every kind (inline: the call tree adds costs per node). */
static inline void
hl_costs_add (HlCosts       *dest,
              const HlCosts *src)
{
  dest->allocations += src->allocations;
  dest->bytes += src->bytes;
  dest->temporary += src->temporary;
  dest->peak_bytes += src->peak_bytes;
  dest->leaked_bytes += src->leaked_bytes;
  dest->leaked_blocks += src->leaked_blocks;
  dest->live_bytes += src->live_bytes;
  dest->long_lived_bytes += src->long_lived_bytes;
  dest->mmap_bytes += src->mmap_bytes;
}
gboolean    hl_cost_kind_is_bytes   (HlCostKind     kind);
/* "allocations", "bytes", "temporary", "peak", "leaked", "live",
 * "long-lived", "mmap" (stable,
 * used by the CLI and JSON) and back; FALSE for an unknown name. */
const char *hl_cost_kind_to_string  (HlCostKind     kind);
gboolean    hl_cost_kind_from_string(const char    *name,
                                     HlCostKind    *out);

G_END_DECLS
