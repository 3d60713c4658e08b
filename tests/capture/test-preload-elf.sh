#!/bin/sh
# The preload needs libc only, exports only what it interposes and the
# heaplens__* entry points, and uses static (initial-exec) TLS.
. "$(dirname "$0")/tap-lib.sh"

needed=$(readelf -d "$HL_PRELOAD" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
bad=$(echo "$needed" | tr ' ' '\n' | grep -v -E '^(libc\.so\.6|libdl\.so\.2|libpthread\.so\.0|ld-linux-x86-64\.so\.2|)$' || true)
eq "NEEDED lists libc-level libraries only ($needed)" "$bad" ""

# heaplens__attach: the entry point `heaplens-cli attach` calls after its remote dlopen;
# heaplens__attach_slots: the slots it patched (the application's attach asks)
allowed='^(malloc|calloc|realloc|reallocarray|free|cfree|posix_memalign|aligned_alloc|memalign|valloc|pvalloc|malloc_usable_size|dlopen|dlclose|execve|execv|execvp|execvpe|execl|execle|execlp|fexecve|execveat|posix_spawn|posix_spawnp|_exit|_Exit|sigaction|signal|prctl|pthread_setname_np|heaplens__metadata_set_int|heaplens__metadata_set_string|heaplens__metadata_remove|heaplens__mark|heaplens__attach|heaplens__attach_slots|mmap|mmap64|munmap|mremap)$'
exported=$(nm -D --defined-only "$HL_PRELOAD" | awk '{print $3}' | sed 's/@.*//' | sort -u)
extra=$(echo "$exported" | grep -v -E "$allowed" | tr '\n' ' ')
eq "exports nothing beyond the interposed functions (extra: $extra)" "$extra" ""
for s in malloc calloc realloc reallocarray free posix_memalign aligned_alloc memalign valloc pvalloc malloc_usable_size mmap mmap64 munmap mremap heaplens__mark heaplens__metadata_set_int; do
  echo "$exported" | grep -qx "$s"
  ok $? "exports $s"
done
readelf -d "$HL_PRELOAD" | grep -q STATIC_TLS
ok $? "TLS is initial-exec (STATIC_TLS)"
readelf -d "$HL_PRELOAD" | grep -E 'NEEDED' | grep -q -E 'glib|unwind|stdc'
ok $((1 - $?)) "no GLib, libunwind or libstdc++ dependency"
finish
