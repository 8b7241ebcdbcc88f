/* The random stream's jump-ahead and the table's block distribution. */
#include "ra.h"

/* a * b in GF(2)[x] modulo the stream's polynomial, by Horner's rule over
 * the bits of b (multiplying by x is one step of the stream). */
static uint64_t gf_mul(uint64_t a, uint64_t b)
{
    uint64_t acc = 0;
    for (int bit = 63; bit >= 0; bit--) {
        acc = ra_next(acc);
        if ((b >> bit) & 1u)
            acc ^= a;
    }
    return acc;
}

uint64_t ra_starts(int64_t n)
{
    n %= RA_PERIOD;
    if (n < 0)
        n += RA_PERIOD;
    uint64_t result = 1, power = 2; /* power = x^(2^i) */
    for (uint64_t e = (uint64_t)n; e != 0; e >>= 1) {
        if (e & 1u)
            result = gf_mul(result, power);
        power = gf_mul(power, power);
    }
    return result;
}

void ra_layout_init(ra_layout *l, int log2, int np)
{
    l->size = UINT64_C(1) << log2;
    l->mask = l->size - 1;
    l->np = np;
    l->base = l->size / (uint64_t)np;
    l->rem = l->size % (uint64_t)np;
    l->cut = l->rem * (l->base + 1);
}

uint64_t ra_first(const ra_layout *l, int p)
{
    uint64_t q = (uint64_t)p;
    return q < l->rem ? q * (l->base + 1) : l->cut + (q - l->rem) * l->base;
}

uint64_t ra_count(const ra_layout *l, int p)
{
    return l->base + ((uint64_t)p < l->rem ? 1u : 0u);
}
