/* sc_catalog.h: the shipped catalogue and scenario files, for the tests that
 * read them (unit and DES): the catalogue is loaded once, on first use, from
 * catalog_default_dir() (the tests run from the source root), and freed by
 * sc_test_catalog_free() at the end of main(). */
#ifndef SC_TEST_CATALOG_H
#define SC_TEST_CATALOG_H

#include <stdbool.h>
#include <stdio.h>

#include "../../sim/config/catalog_load.h"
#include "../../sim/config/scenario_load.h"

struct sc_test_cat {
	struct catalog cat;
	bool have;
};

static inline struct sc_test_cat *sc_test_cat_state(void)
{
	static struct sc_test_cat state;

	return &state;
}

/* The catalogue, or NULL (said on stderr) when it does not load. */
static inline struct catalog *sc_test_catalog(void)
{
	struct sc_test_cat *s = sc_test_cat_state();
	struct sc_error err;

	if (!s->have) {
		if (catalog_load(catalog_default_dir(), &s->cat, &err) != SC_OK) {
			fprintf(stderr, "catalog: %s: %s\n", err.file, err.message);
			return NULL;
		}
		s->have = true;
	}
	return &s->cat;
}

static inline void sc_test_catalog_free(void)
{
	struct sc_test_cat *s = sc_test_cat_state();

	if (s->have)
		catalog_free(&s->cat);
	s->have = false;
}

/* Load scenario PATH against the catalogue; false (said on stderr) on an error. */
static inline bool sc_test_load(const char *path, struct scenario *sc)
{
	struct catalog *cat = sc_test_catalog();
	struct sc_error err;

	if (!cat)
		return false;
	if (scenario_load(path, cat, sc, &err) != SC_OK) {
		fprintf(stderr, "%s: %s: %s\n", err.file, err.pointer, err.message);
		return false;
	}
	return true;
}

/* Scenario PATH cut down to one data-parallel pair the DES tests compute by
 * hand: 2 nodes, tp 8 (one simulated GPU per node), pp 1, dp 2, sequence
 * parallel, 16 sequences a step; its own catalogue, freed before it
 * returns.  false (said on stderr) on an error. */
static inline bool sc_test_load_dp_pair(const char *path, struct scenario *sc)
{
	struct catalog cat;
	struct sc_error err;
	enum sc_status st;

	if (catalog_load(catalog_default_dir(), &cat, &err) != SC_OK) {
		fprintf(stderr, "catalog: %s: %s\n", err.file, err.message);
		return false;
	}
	st = scenario_load(path, &cat, sc, &err);
	catalog_free(&cat);
	if (st != SC_OK) {
		fprintf(stderr, "%s: %s: %s\n", err.file, err.pointer, err.message);
		return false;
	}
	sc->cluster.nodes = 2;
	sc->layout.tp = 8;
	sc->layout.pp = 1;
	sc->layout.dp = 2;
	sc->layout.sequence_parallel = true;
	sc->training.global_batch_seqs = 16;
	return true;
}

#endif
