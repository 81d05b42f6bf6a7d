/* This TU names no clock: it reaches clock() only through the header's macro. */
#include "clockmacro.h"

long last_stamp;

void stamp_request(void)
{
    STAMP(last_stamp); // expect: timer-hot-path
}
