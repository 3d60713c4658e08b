/* t-plugin — a shared library dlopen'ed by t-life; allocates in its
 * constructor and through plugin_alloc(). */
#include <stdlib.h>

void *plugin_alloc (size_t n);

static void *ctor_block;

__attribute__ ((constructor)) static void
plugin_init (void)
{
  ctor_block = malloc (11);
}

__attribute__ ((destructor)) static void
plugin_fini (void)
{
  free (ctor_block);
}

void *
plugin_alloc (size_t n)
{
  return malloc (n);
}
