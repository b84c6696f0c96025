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

enum coll_op {
	COLL_ALL_REDUCE,
	COLL_REDUCE_SCATTER,
	COLL_ALL_GATHER,
	COLL_ALL_TO_ALL,
	COLL_SEND_RECV
};

#define COLL_NAME_MAX 48

struct coll_choice {
	double time_s;
	char algorithm[COLL_NAME_MAX]; /* e.g. "ring/simple", "hierarchical(nvls+efa-tree)/simple" */
	const char *tier;              /* "nvlink" or "efa" (static) */
};

/* Time of one collective of `bytes` on group span s.  bytes follows
 * nccl-tests' "size": the whole buffer for all-reduce; the full (gathered)
 * buffer for all-gather and reduce-scatter; the send buffer of one rank
 * (all peers' parts together) for all-to-all; the message for send/recv.
 * A group of one rank, or 0 bytes, costs 0 ("none").  out may be NULL. */
double coll_time(const struct calibration *cal, const struct net_span *s,
		 enum coll_op op, double bytes, struct coll_choice *out);

/* All-to-all where the caller knows how many bytes per rank cross NVLink
 * and how many cross EFA (e.g. a node-deduplicating MoE dispatcher); both
 * tiers run at once.  Returns seconds; fills out (may be NULL). */
double coll_all_to_all_split(const struct calibration *cal, const struct net_span *s,
			     double nvlink_bytes, double efa_bytes, struct coll_choice *out);

/* nccl-tests bus-bandwidth factor of op for n ranks: 2(n-1)/n for
 * all-reduce, (n-1)/n for all-gather, reduce-scatter and all-to-all, 1 for
 * send/recv. */
double coll_busbw_factor(enum coll_op op, int n);

const char *coll_op_name(enum coll_op op);

#endif
