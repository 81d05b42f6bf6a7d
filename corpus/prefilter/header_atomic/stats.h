/* A request counter every TU may read: declared here, defined in count.c. */
#include <stdatomic.h>

extern _Atomic long requests;
