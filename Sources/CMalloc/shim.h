// glibc's allocator settings (mallopt), which Glibc's Swift module does not include: the
// haul executable keeps its transfer buffers' memory instead of returning it after each file.
#include <malloc.h>
