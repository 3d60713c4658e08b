/* hl-alloc-item.c — one row of the allocations page. */
#include "hl-config.h"

#include "hl-alloc-item.h"

struct _HlAllocItem
{
  GObject parent_instance;

  /* Owned */
  char  *function;
  char  *module;
  char  *caller;  /* the function that called FUNCTION, or NULL */
  char  *lifetime_text;
  char  *verdict;
  char  *kind_text;
  GStrv  stack;

  guint64 count;
  guint64 size_bytes;
  guint64 time_ns;
  guint   tid;
  guint64 lifetime_ns;
  int     kind;   /* the leak scan's (HlReachabilityKind), or -1 */
};

G_DEFINE_FINAL_TYPE (HlAllocItem, hl_alloc_item, G_TYPE_OBJECT)

HlAllocItem *
hl_alloc_item_new (const char         *function,
                   const char         *module,
                   guint64             count,
                   guint64             size_bytes,
                   guint64             time_ns,
                   guint               tid,
                   const char * const *stack)
{
  HlAllocItem *self = g_object_new (HL_TYPE_ALLOC_ITEM, NULL);

  self->function = g_strdup (function ? function : "??");
  self->module = g_strdup (module ? module : "");
  self->kind = -1;
  self->count = count;
  self->size_bytes = size_bytes;
  self->time_ns = time_ns;
  self->tid = tid;
  self->stack = g_strdupv ((char **) stack);
  if (self->stack == NULL)
    self->stack = g_new0 (char *, 1);
  return self;
}

const char *hl_alloc_item_get_function (HlAllocItem *self) { return self->function; }
const char *hl_alloc_item_get_module (HlAllocItem *self) { return self->module; }
const char *hl_alloc_item_get_caller (HlAllocItem *self) { return self->caller; }

void
hl_alloc_item_set_caller (HlAllocItem *self,
                          const char  *caller)
{
  g_free (self->caller);
  self->caller = g_strdup (caller);
}
guint64 hl_alloc_item_get_count (HlAllocItem *self) { return self->count; }
guint64 hl_alloc_item_get_size_bytes (HlAllocItem *self) { return self->size_bytes; }
guint64 hl_alloc_item_get_time_ns (HlAllocItem *self) { return self->time_ns; }
guint hl_alloc_item_get_tid (HlAllocItem *self) { return self->tid; }
const char * const *hl_alloc_item_get_stack (HlAllocItem *self) { return (const char * const *) self->stack; }

void
hl_alloc_item_set_lifetime (HlAllocItem *self,
                            guint64      lifetime_ns,
                            const char  *text)
{
  self->lifetime_ns = lifetime_ns;
  g_free (self->lifetime_text);
  self->lifetime_text = g_strdup (text);
}
guint64 hl_alloc_item_get_lifetime_ns (HlAllocItem *self) { return self->lifetime_ns; }
const char *hl_alloc_item_get_lifetime_text (HlAllocItem *self) { return self->lifetime_text; }

void
hl_alloc_item_set_verdict (HlAllocItem *self,
                           const char  *verdict)
{
  g_free (self->verdict);
  self->verdict = g_strdup (verdict);
}
const char *hl_alloc_item_get_verdict (HlAllocItem *self) { return self->verdict; }

void
hl_alloc_item_set_kind (HlAllocItem *self,
                        int          kind,
                        const char  *text)
{
  self->kind = kind;
  g_free (self->kind_text);
  self->kind_text = g_strdup (text);
}
int hl_alloc_item_get_kind (HlAllocItem *self) { return self->kind; }
const char *hl_alloc_item_get_kind_text (HlAllocItem *self) { return self->kind_text; }

static void
hl_alloc_item_finalize (GObject *object)
{
  HlAllocItem *self = HL_ALLOC_ITEM (object);

  g_free (self->function);
  g_free (self->module);
  g_free (self->caller);
  g_free (self->lifetime_text);
  g_free (self->verdict);
  g_free (self->kind_text);
  g_strfreev (self->stack);
  G_OBJECT_CLASS (hl_alloc_item_parent_class)->finalize (object);
}

static void
hl_alloc_item_class_init (HlAllocItemClass *klass)
{
  G_OBJECT_CLASS (klass)->finalize = hl_alloc_item_finalize;
}

static void
hl_alloc_item_init (HlAllocItem *self)
{
}
