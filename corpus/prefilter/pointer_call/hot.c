// hotscan-args: --hot serve
/* The hot path calls through a pointer set in setup.c. */
void (*hook)(void);

void serve(void)
{
    for (int i = 0; i < 1000; i++)
        hook();
}
