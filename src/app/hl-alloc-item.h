/* hl-alloc-item.h — one row of the allocations page: a group of leaks with
 * the same stack, or one large allocation. */
#pragma once

#include <glib-object.h>

G_BEGIN_DECLS

#define HL_TYPE_ALLOC_ITEM (hl_alloc_item_get_type ())
G_DECLARE_FINAL_TYPE (HlAllocItem, hl_alloc_item, HL, ALLOC_ITEM, GObject)

/* STACK: frames innermost first, as display lines (copied). */
HlAllocItem *hl_alloc_item_new (const char         *function,
                                const char         *module,
                                guint64             count,
                                guint64             size_bytes,
                                guint64             time_ns,
                                guint               tid,
                                const char * const *stack);

const char         *hl_alloc_item_get_function   (HlAllocItem *self);
const char         *hl_alloc_item_get_module     (HlAllocItem *self);
/* The function that called the row's function (tells apart rows of the
 * same function reached from different places), or NULL. */
const char         *hl_alloc_item_get_caller     (HlAllocItem *self);
void                hl_alloc_item_set_caller     (HlAllocItem *self,
                                                  const char  *caller);
guint64             hl_alloc_item_get_count      (HlAllocItem *self);
guint64             hl_alloc_item_get_size_bytes (HlAllocItem *self);
guint64             hl_alloc_item_get_time_ns    (HlAllocItem *self);
guint               hl_alloc_item_get_tid        (HlAllocItem *self);
const char * const *hl_alloc_item_get_stack      (HlAllocItem *self);
/* How long the row's block lived (a call site's row: its median block's
 * bucket), for sorting (G_MAXUINT64: never freed), and as shown; TEXT
 * NULL (the default) leaves the column empty. */
void                hl_alloc_item_set_lifetime   (HlAllocItem *self,
                                                  guint64      lifetime_ns,
                                                  const char  *text);
guint64             hl_alloc_item_get_lifetime_ns (HlAllocItem *self);
const char         *hl_alloc_item_get_lifetime_text (HlAllocItem *self);
/* A call site's lifetime verdict ("Short-lived", "Growing"), or NULL. */
void                hl_alloc_item_set_verdict    (HlAllocItem *self,
                                                  const char  *verdict);
const char         *hl_alloc_item_get_verdict    (HlAllocItem *self);
/* A leak row's kind by the leak scan at exit (an HlReachabilityKind: the
 * larger, the more surely lost), as shown; -1 (the default): none. */
void                hl_alloc_item_set_kind       (HlAllocItem *self,
                                                  int          kind,
                                                  const char  *text);
int                 hl_alloc_item_get_kind       (HlAllocItem *self);
const char         *hl_alloc_item_get_kind_text  (HlAllocItem *self);

G_END_DECLS
