/* A clock read only a macro's body names. */
#include <time.h>

#define STAMP(v) ((v) = clock())
