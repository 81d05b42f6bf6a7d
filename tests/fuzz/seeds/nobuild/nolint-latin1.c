long f(void)
{
    long a = clock(); // NOLINT(timer-hot-path)
    long b = clock(); // NOLINT(timer-*, hotscan-été)
    return a + b; /* NOLINTEND(os-ÿ) */
}
