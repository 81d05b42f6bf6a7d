/* This TU's only relevance is that serve() reaches plugin_run() through the pointer hook:
 * without its edge to stamp_now() the clock read below it is not on a hot path. */
#include "plugin.h"

void plugin_run(void)
{
    stamp_now();
}
