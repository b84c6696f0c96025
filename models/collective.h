/* collective.h: time of one NCCL-style collective on a placed rank group.
 *
 * Each algorithm (ring, tree, NVLS, hierarchical, direct all-to-all, p2p) is
 * an alpha-beta formula per tier (NVLink domain, EFA) whose alphas and
 * bandwidth efficiencies are calibration parameters, under two protocols
 * (NCCL's Simple and LL).  coll_time() evaluates every algorithm and
 * protocol valid for the op, size and topology and returns the fastest, the
 * way NCCL's tuner picks by its own predicted time, with the chosen name.
 * Nothing is substituted silently: an op with no valid algorithm reports
 * "none" and an infinite time.  Pure; caller-owned structs.
 */
#ifndef SC_COLLECTIVE_H
#define SC_COLLECTIVE_H

#include "calibration.h"
#include "network.h"

#define COLL_OP_LIST(X) X(COLL_ALL_REDUCE, "all_reduce") X(COLL_REDUCE_SCATTER, "reduce_scatter") \
	X(COLL_ALL_GATHER, "all_gather") X(COLL_ALL_TO_ALL, "all_to_all") X(COLL_SEND_RECV, "send_recv")
enum coll_op { COLL_OP_LIST(SC_ENUM_ID) };

#define COLL_NAME_MAX 48

struct coll_choice {
	double time_s;
	char algorithm[COLL_NAME_MAX]; /* e.g. "ring/simple", "hierarchical(nvls+efa-tree)/simple" */
	const char *tier;              /* "nvlink" or "efa" (static) */
	const char *selected_by;       /* "aws-ofi-nccl region" where the plugin's
					  region tuner chose, else "fastest" (NCCL's
					  own tuner rule) (static) */
	const char *region;            /* the region table's record id
					  (efa-tuner-priors.json), or NULL */
};

/* Time of one collective of `bytes` on group span s.  bytes follows
 * nccl-tests' "size": the whole buffer for all-reduce; the full (gathered)
 * buffer for all-gather and reduce-scatter; the send buffer of one rank
 * (all peers' parts together) for all-to-all; the message for send/recv.
 * A group of one rank, or 0 bytes, costs 0 ("none").  out may be NULL. */
double coll_time(const struct calibration *cal, const struct net_span *s,
		 enum coll_op op, double bytes, struct coll_choice *out);

/* Every algorithm x protocol that coll_time() weighs for op and bytes on s,
 * with the time it predicts for each (coll_time() returns the fastest): for
 * tests that hold each candidate, not only the winner, to a property.  The
 * names are static strings.  A group of one rank or 0 bytes has none. */
#define COLL_CANDIDATES_MAX 16

struct coll_candidates {
	int n;
	struct {
		double time_s;
		const char *algorithm;
	} c[COLL_CANDIDATES_MAX];
};

int coll_candidates_of(const struct calibration *cal, const struct net_span *s,
		       enum coll_op op, double bytes, struct coll_candidates *out);

/* All-to-all where the caller knows how many bytes per rank cross NVLink
 * and how many cross EFA (e.g. a node-deduplicating MoE dispatcher); both
 * tiers run at once.  Returns seconds; fills out (may be NULL). */
double coll_all_to_all_split(const struct calibration *cal, const struct net_span *s,
			     double nvlink_bytes, double efa_bytes, struct coll_choice *out);

/* A chosen collective as the flows that carry it, for the discrete-event
 * engine (sim/des), which replays them on a simulated fabric.  Every
 * algorithm above has the form
 *   time = latency_s + max(nvlink_bytes / s->nvlink_Bps,
 *                          efa_latency_s + efa_bytes / efa_Bps)
 * with s->nvlink_Bps of the span and efa_Bps below (the span's EFA share,
 * less where the leaves' uplinks bind: net_efa_Bps_leaving with the
 * pattern's fraction of traffic that leaves a leaf): latency_s holds every alpha term (EFA start-up,
 * per-step latencies, the span's spine latency), nvlink_bytes and
 * efa_bytes are what ONE rank pushes through its NVLink port and through
 * its NIC share over the whole collective, already divided by the
 * algorithm's bandwidth efficiency (so that they run at the raw link
 * speed), and efa_latency_s is a latency that only the EFA part pays (the
 * spine hop of a node-deduplicating all-to-all; 0 otherwise).  Steps are
 * the algorithm's sequential steps on each tier (the message granularity of
 * an exact replay).  The pattern says whom a rank sends to: RING, its
 * successor among the group's members in its NVLink domain (NVLink part)
 * and the member at the same position in the next domain (EFA part, rail
 * aligned); ALL_TO_ALL, every member (EFA part per remote domain, rail
 * aligned); P2P, one peer.  Tree algorithms move the same volume per NIC as
 * rings and are replayed on the ring pattern. */
enum coll_pattern { COLL_PATTERN_NONE, COLL_PATTERN_RING, COLL_PATTERN_ALL_TO_ALL, COLL_PATTERN_P2P };

struct coll_flows {
	enum coll_pattern pattern;
	double latency_s;
	double efa_latency_s;
	double nvlink_bytes;
	double efa_bytes;
	double efa_Bps;      /* per GPU, the rate the analytical model gives efa_bytes */
	int nvlink_steps;
	int efa_steps;
	double time_s;       /* the formula above: equal to coll_time() */
	struct coll_choice choice;
};

/* Decompose the collective that coll_time(cal, s, op, bytes) chooses into
 * flows (see struct coll_flows).  Returns time_s.  A group of one rank or
 * 0 bytes gives pattern NONE and 0. */
double coll_flows_of(const struct calibration *cal, const struct net_span *s,
		     enum coll_op op, double bytes, struct coll_flows *out);

/* The same for one named candidate of coll_candidates_of(), chosen or not.
 * Returns its time, or INFINITY (pattern NONE) when op on s has no such
 * candidate. */
double coll_flows_of_algorithm(const struct calibration *cal, const struct net_span *s,
			      enum coll_op op, double bytes, const char *algorithm,
			      struct coll_flows *out);

/* The same for coll_all_to_all_split(). */
double coll_flows_of_a2a_split(const struct calibration *cal, const struct net_span *s,
			       double nvlink_bytes, double efa_bytes, struct coll_flows *out);

/* nccl-tests bus-bandwidth factor of op for n ranks: 2(n-1)/n for
 * all-reduce, (n-1)/n for all-gather, reduce-scatter and all-to-all, 1 for
 * send/recv. */
double coll_busbw_factor(enum coll_op op, int n);

const char *coll_op_name(enum coll_op op);

/* The parameter that plays generic scale-out parameter p (an efa_* or
 * a2a_alpha_s) on span s: its awsefa_* counterpart where s->aws_efa, else
 * p itself (for fits that name the generic parameters: calibrate fit). */
enum calib_param coll_scaleout_param(const struct net_span *s, enum calib_param p);

/* The inverse: the generic scale-out parameter an awsefa_* parameter stands
 * for (awsefa_nvlstree_bw_eff: efa_tree_bw_eff; awsefa_startup_s:
 * efa_startup_s), or p itself (also for the LL128 fractions, which have no
 * generic counterpart).  Both read one table in collective.c. */
enum calib_param coll_generic_param(enum calib_param p);

#endif
