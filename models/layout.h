/* layout.h: the one owner of parallelism-layout validity and of every
 * quantity derived from a layout.
 *
 * A layout (struct layout in scenario.h) is valid when the frameworks that
 * run it accept it; layout_derive() checks those rules, each with its
 * source, and fills struct layout_info with what the rest of the code needs:
 * micro-batches per step, the effective ZeRO stage and expert tensor
 * parallelism, group sizes and strides in Megatron's rank order (and so
 * which tier each group spans, through net_span_of), and which decoder
 * layers each virtual pipeline stage holds.  The scenario loader, the
 * analytic engine, the DES, search, plan and validate ask this module and
 * re-derive none of it.  The overlap rule both engines share is here too
 * (layout_hidden_s).
 *
 * Pure: plain structs, no allocation, nothing to free.  Messages name the
 * scenario key (JSON pointer) and the framework rule.
 */
#ifndef SC_LAYOUT_H
#define SC_LAYOUT_H

#include <stdbool.h>

#include "network.h"
#include "schedule.h"
#include "scenario.h"
#include "status.h"

/* Communication groups in Megatron-Core's rank order (TP innermost, then
 * CP, then DP, then PP; expert layers refold TP x CP x DP as ETP x EP x
 * EDP): megatron/core/parallel_state.py, RankGenerator. */
enum layout_group {
	LG_TP,       /* tensor parallel: tp ranks, stride 1 */
	LG_CP,       /* context parallel: cp ranks, stride tp */
	LG_DP,       /* dense gradient/parameter group: dp x cp (or the FSDP shard group), stride tp */
	LG_REPLICA,  /* hybrid sharding: the replicas of one FSDP shard group, stride tp x fsdp_group */
	LG_ETP,      /* expert tensor parallel: etp ranks, stride 1 */
	LG_EP,       /* expert parallel: ep ranks, stride etp */
	LG_EDP,      /* expert data parallel: edp ranks, stride etp x ep */
	LG_PP,       /* pipeline neighbours: 2 ranks (1 when pp = 1), stride tp x cp x dp */
	LG_COUNT
};

struct layout_group_def {
	int ranks;
	int stride;
};

struct layout_info {
	long long gpus;          /* nodes x GPUs per node */
	int tp, pp, vpp, dp, cp, ep;
	int etp;                 /* effective expert TP (the layout's, else tp) */
	int edp;                 /* expert data parallel: tp cp dp / (etp ep); 1 if dense */
	int zero;                /* effective ZeRO stage: 3 with FSDP */
	int stage_gpus;          /* GPUs of one pipeline stage: tp x cp x dp */
	int dense_shard;         /* ranks a dense parameter is sharded over (ZeRO >= 1): dp cp or fsdp_group */
	int micro_batches;       /* per step per pipeline: global / (micro x dp) */
	int virtual_stages;      /* pp x vpp */
	enum sc_layer_split split; /* resolved (never SPLIT_AUTO) */
	int layers;              /* decoder layers of the model */
	int first_layers, last_layers; /* SPLIT_UNEVEN: on the first / last pipeline rank (-1: not given) */
	int mid_layers;          /* SPLIT_UNEVEN: on every other rank */
	struct layout_group_def g[LG_COUNT];
};

/* Check sc's layout against the model, the cluster and the training
 * settings, and derive li (may be NULL).  Errors: SC_EINVAL with file
 * (may be NULL) and the JSON pointer of the key at fault.  Cheap (no loop
 * over stages): a search calls it for every layout. */
enum sc_status layout_derive(const struct scenario *sc, const char *file,
			     struct layout_info *li, struct sc_error *err);

/* The cluster's GPUs, nodes x gpus_per_node computed in 64 bits: SC_EINVAL
 * at /cluster/nodes (file may be NULL) unless 1 <= GPUs <= SC_MAX_GPUS
 * (models/limits.h), so that every group product fits in an int.
 * layout_derive applies it; search and plan call it before enumerating. */
enum sc_status layout_cluster_gpus(const struct scenario *sc, const char *file, int *gpus,
				   struct sc_error *err);

/* Single rules, for enumerators (search, the serving planner) that prune
 * before building a whole layout; layout_derive applies the same ones.
 * tp against the attention heads: tp divides the query heads, and the
 * key/value heads and tp divide one another (MLA has no KV heads). */
bool layout_tp_fits_heads(const struct model_arch *m, int tp);
/* cp and sequence parallelism against the sequence: seq_len a multiple of
 * 2 cp (load-balanced chunks), and with sp (tp > 1) seq_len / cp a
 * multiple of tp. */
bool layout_cp_fits_seq(int seq_len, int tp, int cp, bool sp);

/* The global batch in whole micro-batches per DP rank: global_batch_seqs
 * a multiple of micro_batch_seqs x dp. */
static inline bool layout_dp_fits_batch(const struct training *t, int dp)
{
	return t->global_batch_seqs % ((long long)t->micro_batch_seqs * dp) == 0;
}
/* Expert layers refold a stage's tp x cp x dp GPUs as etp x ep x edp. */
static inline bool layout_ep_folds(int tp, int cp, int dp, int etp, int ep)
{
	return ((long long)tp * cp * dp) % ((long long)etp * ep) == 0;
}

/* The decoder layers of virtual stage j (0 <= j < virtual_stages, in model
 * order): [*begin, *end).  Whether j also holds the embedding (j == 0) or
 * the loss head (j == virtual_stages - 1) is positional; under SPLIT_SLOTS
 * and SPLIT_BALANCED those take a layer's slot (Megatron-Core
 * account_for_embedding/loss_in_pipeline_split, pipeline_model_parallel_layout). */
static inline void layout_vstage_layers(const struct layout_info *li, int j, int *begin, int *end);

/* The virtual stage (model order) that pipeline rank s runs as its chunk c
 * (0 <= c < vpp): c pp + s for the interleaved schedule (Megatron-Core
 * get_model_chunk_id); the V shape of ZB-V mirrors the second chunk. */
static inline int layout_vstage_of(const struct layout_info *li, enum sc_schedule sched, int s, int c)
{
	/* the schedule owns where its chunks sit (models/schedule) */
	return sched_slot(sched, li->pp, li->vpp, s, c);
}

/* ---- fix-ups: the settings that follow when one is changed ----------------
 *
 * Every caller that changes one setting of a layout (explain's neighbours,
 * the search's enumeration) applies these, so that what follows a change is
 * decided once.  They make no layout valid: layout_derive still decides. */

/* Sequence parallelism as TP runs it: Megatron-Core's --sequence-parallel
 * needs tp > 1 and is what TP layouts run with (NVIDIA's recipes; the
 * scenario's default, sim/config/scenario_load). */
static inline bool layout_sp_default(int tp)
{
	return tp > 1;
}

/* The schedule Megatron-Core runs when none is named: interleaved-1f1b
 * with virtual stages (--num-layers-per-virtual-pipeline-stage), 1f1b
 * without.  The scenario's default, validate's for published runs, and what
 * layout_set_pipeline falls back to. */
static inline enum sc_schedule layout_schedule_default(int vpp)
{
	return vpp > 1 ? SCHED_INTERLEAVED_1F1B : SCHED_1F1B;
}

/* l with tp and what follows it: sequence parallelism off at tp 1 (it needs
 * tp > 1), on when TP appears (layout_sp_default), kept when tp > 1 stays
 * (a user's sequence_parallel false is theirs). */
void layout_set_tp(struct layout *l, int tp);

/* l with pp and vpp (vpp 1 when pp is 1: no virtual stages without a
 * pipeline) and a schedule that runs them: the current one when its rule
 * accepts (pp, vpp) (sched_check, micro-batches not yet known), else
 * Megatron-Core's for that vpp: interleaved-1f1b with vpp > 1, 1f1b with
 * vpp 1. */
void layout_set_pipeline(struct layout *l, int pp, int vpp);

/* l with schedule s and the vpp s's rule needs: the current vpp when s
 * accepts it, else 1 or else 2 (DualPipe, ZB-H1, 1F1B, GPipe run one chunk
 * per rank; ZB-V two; interleaved-1f1b at least two), the first s accepts.
 * Unchanged vpp when s accepts none of them at l's pp. */
void layout_set_schedule(struct layout *l, enum sc_schedule s);

/* The network span of group g of li on cluster cl. */
struct net_span layout_span(const struct cluster *cl, const struct layout_info *li,
			    enum layout_group g);

/* The overlap rule shared by the analytic engine and the DES: of comm_s
 * seconds of communication, a fraction frac can hide under a window of
 * window_s seconds of independent work; the hidden part is
 * min(frac comm_s, window_s), never negative. */
static inline double layout_hidden_s(double frac, double comm_s, double window_s)
{
	double h = frac * comm_s;

	if (h > window_s)
		h = window_s;
	return h > 0 ? h : 0;
}

const char *layer_split_name(enum sc_layer_split s);

/* ---- inline: layout_vstage_layers is in every stage loop of a search ---- */

/* Slots before virtual stage j when S slots spread over pv stages as
 * evenly as possible: floor(j S / pv). */
static inline int layout_slots_before_(int j, int S, int pv)
{
	return (int)(((long long)j * S) / pv);
}

/* Decoder layers before virtual stage j (model order). */
static inline int layout_layers_before_(const struct layout_info *li, int j)
{
	int pv = li->virtual_stages, L = li->layers;

	if (j <= 0)
		return 0;
	if (j >= pv)
		return L;
	switch (li->split) {
	case SPLIT_SLOTS:
		return j * ((L + 2) / pv) - 1;   /* L + 2 divisible by pv */
	case SPLIT_BALANCED:
		/* the embedding takes slot 0, so every stage after the first
		 * has one decoder layer fewer before it than slots */
		return layout_slots_before_(j, L + 2, pv) - 1;
	case SPLIT_UNEVEN: {
		/* rank s runs n_s / vpp layers in each of its chunks; virtual
		 * stage j = c pp + s */
		int pp = li->pp, v = li->vpp, c = j / pp, s = j % pp;
		int f = li->first_layers >= 0 ? li->first_layers : li->mid_layers;
		int n = c * (L / v);

		if (s > 0)
			n += f / v + (s - 1) * (li->mid_layers / v);
		return n;
	}
	case SPLIT_AUTO:
	case SPLIT_EVEN:
		break;
	}
	return j * (L / pv);   /* even: L divisible by pv */
}

static inline void layout_vstage_layers(const struct layout_info *li, int j, int *begin, int *end)
{
	*begin = layout_layers_before_(li, j);
	*end = layout_layers_before_(li, j + 1);
	if (*end < *begin)
		*end = *begin;
}

#endif
