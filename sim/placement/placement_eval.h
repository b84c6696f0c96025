/* placement_eval.h: what a placement costs a job, and which placement of a
 * cluster's free nodes a scheduler should pick.
 *
 * pl_evaluate() predicts sc's step on placement pl (NULL: packed, the
 * engines' default) with the analytical engine and optionally the DES, and
 * lists, for each communication group that leaves its NVLink domain (DP,
 * the expert DP, PP, EP, CP, and TP when it spans nodes), the switch
 * levels it climbs and the fraction of its ring hops that leave a leaf
 * (models/placement.h).  pl_eval_cost() sets the cost against a packed
 * evaluation: the step time difference and the parts (DP, PP, EP, CP, TP
 * communication, bubble) that pay it.
 *
 * pl_choose() picks `nodes` of a cluster's free nodes (a placement of all
 * of them, from an EC2/Slurm/K8s file) three ways: topology-aware (the
 * smallest subtree that holds the job, fullest leaves first: Slurm's
 * topology/tree best fit), in the file's order (what a topology-blind
 * scheduler takes) and spread (round-robin over leaves: the worst case).
 *
 * Plain data; the caller owns everything; errors are values.
 */
#ifndef SC_PLACEMENT_EVAL_H
#define SC_PLACEMENT_EVAL_H

#include <stdbool.h>

#include "../../models/placement.h"
#include "../analytic/step.h"
#include "../des/des.h"

#define PL_MAX_GROUPS 6

struct pl_group {
	const char *name;         /* "dp", "edp", "pp", "ep", "cp", "tp" (static) */
	int ranks, stride;
	bool inter;               /* leaves its NVLink domain (uses EFA) */
	int spine_levels;         /* switch levels climbed above the leaves */
	double ring_leave;        /* fraction of ring hops between leaves */
	double a2a_leave;
	double oversubscription;  /* the effective taper it sees */
};

struct pl_eval {
	char label[32];
	char source[PLACEMENT_SOURCE_MAX];
	struct step_result an;
	bool des;
	double des_step_s;
	double des_part_s[PART_COUNT];
	int n_groups;
	struct pl_group g[PL_MAX_GROUPS];
	/* against packed (pl_eval_cost) */
	double cost_s, cost_rel, des_cost_s, des_cost_rel;
	char pays[128];           /* e.g. "dp +0.120 s, pp +0.004 s" or "nothing" */
};

/* Predict sc on pl (NULL: packed).  des: also simulate (dopt may be NULL). */
enum sc_status pl_evaluate(const struct scenario *sc, const struct placement *pl, const char *label,
			   bool des, const struct des_options *dopt, struct pl_eval *out,
			   struct sc_error *err);

/* Fill e's cost fields against the packed evaluation base. */
void pl_eval_cost(struct pl_eval *e, const struct pl_eval *base);

enum pl_choice { PL_CHOOSE_AWARE, PL_CHOOSE_FILE_ORDER, PL_CHOOSE_SPREAD, PL_CHOOSE_COUNT };

const char *pl_choice_name(enum pl_choice c);

/* `nodes` of free's nodes, chosen the `how` way, in rank order (names kept). */
enum sc_status pl_choose(const struct placement *free_nodes, int nodes, enum pl_choice how,
			 struct placement *out, struct sc_error *err);

#endif
