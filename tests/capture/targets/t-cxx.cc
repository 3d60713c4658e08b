// t-cxx — C++ allocations through operator new/delete in their forms
// (plain, array, nothrow, aligned, sized delete), std::vector/map/string.
// The allocating function's range is published as metadata so the test can
// check that the innermost frame is make_objects, not operator new.
#include <cstdint>
#include <map>
#include <new>
#include <string>
#include <vector>
#include <unistd.h>

#include "heaplens.h"

struct alignas (64) Wide
{
  char bytes[64];
};

// alone in its section: the linker's __start_/__stop_ symbols bound it
// whatever its size (at -O0 the call to new[] ends past a fixed 48 bytes)
__attribute__ ((noinline, section ("hl_site"))) static int *
make_objects (int n)
{
  int *p = new int[n];
  __asm__ volatile ("" ::: "memory");
  return p;
}

extern "C" char __start_hl_site[], __stop_hl_site[];

int
main ()
{
  heaplens_metadata_set_int ("site_lo", (int64_t) (uintptr_t) __start_hl_site);
  heaplens_metadata_set_int ("site_hi", (int64_t) (uintptr_t) __stop_hl_site);
  for (int i = 0; i < 20; i++)
    delete[] make_objects (i + 1);
  int *a = new int (5);
  delete a;
  int *b = new (std::nothrow) int[10];
  delete[] b;
  Wide *w = new Wide;
  delete w;
  std::vector<std::string> v;
  for (int i = 0; i < 100; i++)
    v.push_back (std::string (40, 'x'));
  std::map<int, int> m;
  for (int i = 0; i < 100; i++)
    m[i] = i;
  (void) !write (1, "t-cxx: done\n", 12);
  return 0;
}
