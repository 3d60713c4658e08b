/* hl-recording-aggregate.h — a recording that keeps costs, not
 * allocations (HL_LOAD_FLAGS_AGGREGATE).
 *
 * A report needs per-call-site totals, not every allocation: this keeps
 * the allocations still live (by id), a bitmap of the ids seen, and costs
 * per internal stack and thread, so memory grows with what is live, not
 * with what was allocated. The numbers are the full model's by
 * construction: allocations and frees are applied in the same file order
 * with the same sequence numbers (hl-recording-builder.c calls in here;
 * the recording's side is in hl-recording-builder.h),
 * and the heap-curve points go through a min-heap on (time, seq) that
 * releases them in the order the full model sorts them into. A point may
 * leave the heap once no packet still to come can hold an earlier one:
 * the packet index gives each packet's first time, so after the packet at
 * offset O only times ≥ the least first time of the packets after O can
 * come. A trace that breaks that promise (a lying index) is detected and
 * reported by hl_aggregate_order_broken(): the caller loads it in full.
 *
 * The peak contribution of each stack is tracked lazily: a stack's live
 * bytes are snapshotted when it first changes after the latest peak. */
#pragma once

#include <glib.h>

#include "hl-cost-kind.h"
#include "hl-size-histogram.h"
#include "hl-trace-index.h"

G_BEGIN_DECLS

typedef struct _HlAggregate HlAggregate;

/* INDEX (borrowed for the call only) gives the release bounds; NULL: all
 * points wait for hl_aggregate_finish(). */
HlAggregate *hl_aggregate_new            (const HlTraceIndex *index);
void         hl_aggregate_free           (HlAggregate *self);

/* TRUE when allocation ID was applied before (live or freed). */
gboolean     hl_aggregate_seen           (const HlAggregate *self,
                                          guint64            id);
void         hl_aggregate_alloc          (HlAggregate *self,
                                          guint64      id,
                                          guint64      time_ns,
                                          guint32      seq,
                                          guint32      thread,
                                          guint32      stack,
                                          guint64      size,
                                          guint64      address,
                                          guint64      weight);
/* The free of live allocation ID at TIME_NS (raised to its allocation's
 * time). THREAD_LAST[thread] is each thread's last allocation id: a free
 * of that id, unless LATE, is a temporary. FALSE when ID is not live (a
 * second free); *TEMPORARY says what was counted, *WEIGHT (if not NULL)
 * the allocation's weight.
 *
 * WEIGHT (1 in a full recording) is how many of the program's
 * allocations ID stands for in a sampled one (hl-sample-weight.h): it
 * counts as WEIGHT allocations (temporaries, leaked blocks) of SIZE /
 * WEIGHT bytes each, SIZE being already the weighted bytes. */
gboolean     hl_aggregate_free_id        (HlAggregate   *self,
                                          guint64        id,
                                          guint64        time_ns,
                                          guint32        seq,
                                          const guint64 *thread_last,
                                          gboolean       late,
                                          gboolean      *temporary,
                                          guint64       *weight);
/* Id + 1 of the live allocation at ADDRESS, 0 when none. */
guint64      hl_aggregate_lookup_address (HlAggregate *self,
                                          guint64      address);
/* Every packet up to the one at OFFSET (of the reader's image) has been
 * applied: releases the points no later packet can precede. */
void         hl_aggregate_packets_done   (HlAggregate *self,
                                          guint64      offset);
/* Releases the points up to time BOUND (inclusive), for a caller that
 * knows no event to come is earlier (hl-recording-costs-stream.h), then
 * the earliest others while more than KEEP wait. A later point before
 * one released breaks the order (hl_aggregate_order_broken()). */
void         hl_aggregate_release_until  (HlAggregate *self,
                                          guint64      bound,
                                          guint64      keep);
/* Points applied but not released yet. */
guint64      hl_aggregate_n_waiting      (const HlAggregate *self);
/* Releases every point and settles peak and leak costs. */
void         hl_aggregate_finish         (HlAggregate *self);
gboolean     hl_aggregate_order_broken   (const HlAggregate *self);

/* At any moment: the allocations live now (every one applied, whether
 * its heap-curve point was released or not), per internal stack below
 * N_STACKS: OBJECTS[s] gets the allocations they stand for (their
 * weights), BYTES[s] their weighted bytes (added to what is there). */
void         hl_aggregate_sum_live       (const HlAggregate *self,
                                          guint              n_stacks,
                                          guint64           *objects,
                                          guint64           *bytes);

/* After hl_aggregate_finish(): */
void         hl_aggregate_get_peak       (const HlAggregate *self,
                                          guint64           *peak_bytes,
                                          guint64           *peak_time_ns);
void         hl_aggregate_get_leaks      (const HlAggregate *self,
                                          guint64           *bytes,
                                          guint64           *blocks);
/* Costs per internal stack (N_STACKS entries, zero past what was seen)
 * and per thread index; new arrays. */
HlCosts     *hl_aggregate_dup_stack_costs  (const HlAggregate *self,
                                            guint              n_stacks);
HlCosts     *hl_aggregate_dup_thread_costs (const HlAggregate *self,
                                            guint              n_threads);
void         hl_aggregate_get_histogram  (const HlAggregate *self,
                                          HlSizeHistogram   *out);

/* An aggregate that only answers the getters above, with these costs
 * (N_STACKS per internal stack, N_THREADS per thread index) and histogram:
 * what a saved COSTS packet gives back (hl-recording-costs-packet.h). */
HlAggregate *hl_aggregate_new_settled    (const HlCosts         *stacks,
                                          const guint32         *owners,
                                          guint                  n_stacks,
                                          const HlCosts         *threads,
                                          guint                  n_threads,
                                          const HlSizeHistogram *histogram);

void         hl_aggregate_set_histogram    (HlAggregate           *self,
                                            const HlSizeHistogram *histogram);
/* Then the costs of one (STACK, THREAD) pair whose thread is not the
 * stack's owner; FALSE when out of range, the owner's or given before. */
gboolean     hl_aggregate_add_settled_pair (HlAggregate   *self,
                                            guint32        stack,
                                            guint32        thread,
                                            const HlCosts *costs);

/* Costs per (stack, thread), for filters by thread or by stack: each
 * stack's owner (thread index + 1 of the first thread that allocated
 * there, 0 when none), and the pairs of the other threads; the owner's
 * share is the stack's costs minus its other pairs'. */
guint32      hl_aggregate_get_stack_owner (const HlAggregate *self,
                                           guint32            stack);
guint        hl_aggregate_get_n_pairs     (const HlAggregate *self);
void         hl_aggregate_get_pair        (const HlAggregate *self,
                                           guint              i,
                                           guint32           *stack,
                                           guint32           *thread,
                                           HlCosts           *costs);

G_END_DECLS
