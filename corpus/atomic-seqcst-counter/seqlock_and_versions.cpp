// hotscan-args: --min-confidence low
// A sequence lock and a version number need their order: readers compare a load with an
// earlier one or test its parity. Counters kept in std::array are counters; asking the
// array its size touches no element, but binding its elements to references (range-for)
// lets them escape.
#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>

static std::atomic<uint32_t> cfg_seq{0};
static char cfg[64];

void cfg_write(const char *src)
{
    cfg_seq.fetch_add(1);
    std::memcpy(cfg, src, sizeof cfg);
    cfg_seq.fetch_add(1);
}

int cfg_read(char *out)
{
    uint32_t v = cfg_seq.load();
    if (v & 1)
        return -1;
    std::memcpy(out, cfg, sizeof cfg);
    if (cfg_seq.load() != v)
        return -1;
    return 0;
}

struct share { std::atomic<uint64_t> version{0}; };
void share_bump(share *s) { s->version.fetch_add(1); }
bool share_is_current(share *s, uint64_t v) { return s->version.load() == v; }

static std::array<std::atomic<uint64_t>, 8> status_codes{};
static std::array<std::atomic<uint64_t>, 8> route_hits{};

void on_response(unsigned status, unsigned route)
{
    status_codes[status & 7]++; // expect: atomic-seqcst-counter
    route_hits[route & 7].fetch_add(1);
}

uint64_t total_status()
{
    uint64_t t = 0;
    for (size_t i = 0; i < status_codes.size(); i++)
        t += status_codes[i].load(); // expect: atomic-seqcst-counter
    return t;
}

uint64_t total_routes()
{
    uint64_t t = 0;
    for (auto &c : route_hits)
        t += c.load();
    return t;
}
