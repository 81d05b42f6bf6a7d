/* Nothing here can contribute to a finding: no clock, atomic or event name, no function any
 * clock read's callers or callees need, no address taken. The prefilter may leave it out. */
static int mix(int a, int b)
{
    return (a * 31) ^ b;
}

int checksum(const unsigned char *p, int n)
{
    int h = 0;
    for (int i = 0; i < n; i++)
        h = mix(h, p[i]);
    return h;
}
