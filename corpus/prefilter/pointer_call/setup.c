#include "plugin.h"

extern void (*hook)(void);

void setup(void)
{
    hook = plugin_run;
}
