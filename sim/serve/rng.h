/* rng.h: a small seeded random-number stream for the serving simulation.
 *
 * xoshiro256** (Blackman and Vigna 2018, "Scrambled linear pseudorandom
 * number generators"), seeded through splitmix64, so results are the same
 * on every platform and libc.  Plain struct, caller-owned, nothing to free.
 */
#ifndef SC_SERVE_RNG_H
#define SC_SERVE_RNG_H

#include <math.h>
#include <stdint.h>

struct srv_rng {
	uint64_t s[4];
};

static inline uint64_t srv_rng_splitmix(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

static inline void srv_rng_seed(struct srv_rng *r, uint64_t seed)
{
	for (int i = 0; i < 4; i++)
		r->s[i] = srv_rng_splitmix(&seed);
}

static inline uint64_t srv_rng_rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

static inline uint64_t srv_rng_next(struct srv_rng *r)
{
	uint64_t *s = r->s;
	uint64_t out = srv_rng_rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = srv_rng_rotl(s[3], 45);
	return out;
}

/* Uniform on (0, 1): never 0, so log() is safe. */
static inline double srv_rng_uniform(struct srv_rng *r)
{
	return ((double)(srv_rng_next(r) >> 11) + 0.5) * (1.0 / 9007199254740992.0);
}

/* Exponential with the given mean. */
static inline double srv_rng_exp(struct srv_rng *r, double mean)
{
	return -mean * log(srv_rng_uniform(r));
}

/* Standard normal (Box-Muller; one value per call, the pair's second
 * discarded so the stream position does not depend on history). */
static inline double srv_rng_normal(struct srv_rng *r)
{
	double u = srv_rng_uniform(r), v = srv_rng_uniform(r);

	return sqrt(-2.0 * log(u)) * cos(6.283185307179586 * v);
}

#endif
