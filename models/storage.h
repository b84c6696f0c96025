/* storage.h: data loading, checkpoint size, and checkpoint write and
 * restore on a storage tier (node-local NVMe, FSx for Lustre, S3).
 *
 * A tier delivers an aggregate bandwidth to the whole job and each node
 * reaches it through its own ceiling (its drives, the tier's per-client cap,
 * its network): storage_bandwidth() works both out once, and the data and
 * checkpoint functions take the binding one of the two for the bytes each
 * node moves.  Pure functions over plain structs: no I/O, no allocation,
 * nothing to free; the caller owns every struct.
 */
#ifndef SC_STORAGE_H
#define SC_STORAGE_H

#include <stdbool.h>

#include "catalog.h"
#include "resilience_types.h"
#include "scenario.h"
#include "status.h"

#define STORAGE_KIND_LIST(X) X(STORAGE_NVME, "nvme") X(STORAGE_FSX, "fsx-lustre") X(STORAGE_S3, "s3")
enum storage_kind { STORAGE_KIND_LIST(SC_ENUM_ID) };
extern const char *const storage_kind_names[];

/* What one tier delivers to a job of `nodes` nodes. */
struct storage_bw {
	enum storage_kind kind;
	double read_Bps;          /* aggregate over the job, bytes/s */
	double write_Bps;
	double node_read_Bps;     /* one node's ceiling, bytes/s */
	double node_write_Bps;
	double node_net_Bps;      /* one node's network (EFA/ENA), bytes/s */
	double latency_s;         /* first byte / metadata, one request */
	double provisioned_TiB;   /* FSx capacity used (0 for the other kinds) */
};

/* Kind of a catalogue tier from its "kind" string; SC_EINVAL if unknown. */
enum sc_status storage_kind_of(const struct storage_spec *tier, enum storage_kind *out,
			       struct sc_error *err);

/* One node's network for storage traffic, bytes/s: the instance's EFA
 * interfaces, nics x Gb/s / 8 (on P5/P6 storage and collectives share these
 * cards). */
double storage_node_network_Bps(const struct instance_spec *inst);

/* Bandwidth of tier for `nodes` nodes of inst.  provisioned_TiB: FSx capacity
 * (0: the tier's default_provisioned_TiB); s3_prefixes: partitioned S3
 * prefixes the job spreads its keys over (>= 1).  Fails with SC_EINVAL, the
 * pointer naming the missing number, when the tier lacks what its kind needs
 * (an NVMe tier on an instance without drives, FSx without MB/s per TiB, S3
 * without request rates and request size). */
enum sc_status storage_bandwidth(const struct storage_spec *tier,
				 const struct instance_spec *inst, int nodes,
				 double provisioned_TiB, int s3_prefixes,
				 struct storage_bw *out, struct sc_error *err);

/* ---- data loading -------------------------------------------------------- */

/* Bytes per token of tokenised training data when the scenario gives none:
 * Megatron's indexed dataset stores token ids as uint16 when the vocabulary
 * has fewer than 65,500 entries and as int32 otherwise. */
double storage_default_bytes_per_token(int vocab);

struct data_load_in {
	double tokens_per_step;   /* global batch x sequence length */
	double bytes_per_token;
	double copies;            /* times each token is read per step */
	int reading_nodes;        /* nodes that read (>= 1) */
	double compute_step_s;    /* the step without the stall */
	int prefetch_batches;     /* batches kept in flight; 0 = read on demand */
};

struct data_load_out {
	double bytes_per_step;    /* read from the tier per step, all readers */
	double node_bytes_per_step; /* by the busiest reading node */
	double demand_Bps;        /* bytes_per_step / compute_step_s */
	double supply_Bps;        /* job-wide rate the tier and the nodes sustain */
	double fetch_s;           /* time to read one step's data at that rate */
	double stall_s;           /* added to every step */
	bool node_bound;          /* the nodes' ceiling binds, not the tier's */
};

/* Which ranks read a scenario's data: Megatron loads a batch on TP rank 0 of
 * every CP rank of every DP replica, on the first pipeline stage (inputs)
 * and, with pp > 1, on the last one too (labels).  Fills the copies of each
 * token read per step and the nodes that read. */
void storage_data_readers(const struct scenario *sc, double *copies, int *reading_nodes);

/* The stall data loading adds to a step.  The loader reads the next batches
 * while the GPUs compute: with prefetch depth k >= 1 a step takes
 * max(compute, fetch + latency / k), so a stall appears exactly when the
 * bytes a step needs take longer to read than the step computes (demand
 * above supply) or the request latency is not covered; with k = 0 every
 * step waits latency + fetch. */
void storage_data_load(const struct storage_bw *bw, const struct data_load_in *in,
		       struct data_load_out *out);

/* ---- checkpoints ---------------------------------------------------------- */

/* What a checkpoint holds and how it is spread over the job.  The saved
 * state is the BF16 weights (2 bytes per parameter), the FP32 master copy (4)
 * and the optimizer's moments (Adam: m and v, 4 + 4 in FP32 or 2 + 2 in
 * BF16; SGD: momentum, 4 or 2), with the multi-token-prediction modules;
 * gradients are not saved.  One replica suffices (ZeRO paper, Rajbhandari et
 * al. 2020; BLOOM-176B's 2.3 TB checkpoint is 14 bytes x 176 B parameters),
 * and a fully parallel save (Megatron-LM --ckpt-fully-parallel-save, PyTorch
 * DCP's deduplicating planner) spreads the replicated parts evenly, so every
 * GPU writes total / GPUs whatever the sharding.  The sharding decides what
 * each GPU holds and must get back on restore: ZeRO-1/2 hold full weights of
 * their TP/PP/EP slice (replicated over data parallel) and 1/dp of the
 * optimizer state, FSDP (ZeRO-3) holds 1/dp of everything. */
struct ckpt_size {
	double params;               /* parameters saved */
	double weights_bytes;        /* whole model, BF16 */
	double master_bytes;         /* FP32 master copy */
	double moments_bytes;        /* optimizer moments */
	double total_bytes;          /* the checkpoint */
	double gpu_write_bytes;      /* each GPU's share: total / GPUs */
	double node_write_bytes;     /* each node's share: total / nodes */
	double gpu_params;           /* parameters of one GPU's TP/PP/EP slice
					(before ZeRO sharding) */
	double shard_group;          /* ranks its dense ZeRO shards are spread over */
	double gpu_sharded_params;   /* its ZeRO shard: dense / shard group +
					experts / expert data-parallel group */
	double gpu_held_bytes;       /* checkpointed state one GPU holds (even
					split of layers over pipeline stages) */
	double gpu_replicated_bytes; /* of which other data-parallel ranks hold
					copies (ZeRO-1/2: weights; ZeRO-0: all) */
	int replica_group;           /* copies of the replicated part (restore
					all-gathers it over this many ranks) */
	int replica_stride;          /* rank stride of that group */
};

void storage_ckpt_size(const struct scenario *sc, enum ckpt_moments moments,
		       struct ckpt_size *out);

/* Timing of one checkpoint on a tier when every rank writes at once. */
struct ckpt_io {
	double snapshot_s;           /* each GPU's share copied to host memory */
	double write_s;              /* the whole checkpoint written: max(total /
					aggregate, node share / node ceiling) */
	bool write_node_bound;
	double sync_stall_s;         /* a synchronous save blocks training for
					max(snapshot, write) + latency */
	double async_stall_s;        /* an asynchronous save blocks for the
					snapshot only ... */
	double drain_s;              /* ... and drains in the background for
					write + latency */
	double read_s;               /* restore: every byte read once (fully
					parallel load) + latency */
	bool read_node_bound;
	double host_bytes_per_node;  /* pinned host memory an async save holds */
};

/* d2h_Bps: GPU-to-host copy bandwidth per GPU, bytes/s.  NVMe: each node
 * writes its share and a copy of one peer's to its drives (its own drives
 * alone would not survive the node), sending its share over the network; a
 * restore reads the replaced node's share from that peer. */
void storage_ckpt_io(const struct storage_bw *bw, const struct ckpt_size *sz,
		     double d2h_Bps, int gpus_per_node, struct ckpt_io *out);

const char *storage_kind_name(enum storage_kind k);

#endif
