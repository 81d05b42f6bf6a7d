/* A module header of server.c that includes the statistics header back. */
#ifndef STATS_MODULE_H
#define STATS_MODULE_H

#include "stats.h"

void stats_module_init(void);

#endif
