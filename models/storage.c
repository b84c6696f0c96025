/* storage.c: data loading and checkpoint I/O on a storage tier (see
 * storage.h). */
#include "storage.h"
#include "layout.h"

#include <math.h>
#include <string.h>

#include "transformer.h"

SC_ENUM_DEFINE(storage_kind_name, enum storage_kind, storage_kind_names, STORAGE_KIND_LIST)

enum sc_status storage_kind_of(const struct storage_spec *tier, enum storage_kind *out,
			       struct sc_error *err)
{
	int i = sc_enum_parse(storage_kind_names, tier->kind);

	if (i < 0)
		return sc_error_set(err, SC_EINVAL, NULL, NULL,
				    "storage tier \"%s\" has an unknown kind \"%s\"", tier->name, tier->kind);
	*out = (enum storage_kind)i;
	return SC_OK;
}

double storage_node_network_Bps(const struct instance_spec *inst)
{
	return inst->efa_nics * inst->efa_nic_Gbps * 1e9 / 8.0;
}

static enum sc_status missing(struct sc_error *err, const char *pointer,
			      const struct storage_spec *tier, const char *what)
{
	return sc_error_set(err, SC_EINVAL, NULL, pointer,
			    "storage tier \"%s\" (%s) gives no %s", tier->name, tier->kind, what);
}

/* Why: FSx for Lustre's throughput is its capacity times the per-unit
 * throughput of its deployment tier (FSx for Lustre User Guide, "Managing
 * provisioned throughput capacity"); S3 scales per partitioned prefix in
 * requests per second (AWS S3 performance guide), so bytes/s = prefixes x
 * requests/s x bytes per request; local NVMe is drives x per-drive speed on
 * every node.  A node reaches a remote tier through its network and the
 * tier's per-client cap, whichever is lower. */
enum sc_status storage_bandwidth(const struct storage_spec *tier,
				 const struct instance_spec *inst, int nodes,
				 double provisioned_TiB, int s3_prefixes,
				 struct storage_bw *out, struct sc_error *err)
{
	enum sc_status st;
	double node_cap;

	memset(out, 0, sizeof(*out));
	if ((st = storage_kind_of(tier, &out->kind, err)) != SC_OK)
		return st;
	out->latency_s = tier->latency_s;
	out->node_net_Bps = storage_node_network_Bps(inst);
	node_cap = out->node_net_Bps;
	if (tier->per_client_GBps > 0 && tier->per_client_GBps * 1e9 < node_cap)
		node_cap = tier->per_client_GBps * 1e9;
	if (nodes < 1)
		nodes = 1;
	switch (out->kind) {
	case STORAGE_NVME:
		if (inst->nvme_drives < 1)
			return sc_error_set(err, SC_EINVAL, NULL, "/cluster/instance/nvme_drives",
					    "instance \"%s\" has no local NVMe drives for tier \"%s\"",
					    inst->name, tier->name);
		if (!(tier->per_drive_read_GBps > 0) || !(tier->per_drive_write_GBps > 0))
			return missing(err, NULL, tier, "per_drive_read_GBps and per_drive_write_GBps");
		out->node_read_Bps = inst->nvme_drives * tier->per_drive_read_GBps * 1e9;
		out->node_write_Bps = inst->nvme_drives * tier->per_drive_write_GBps * 1e9;
		out->read_Bps = nodes * out->node_read_Bps;
		out->write_Bps = nodes * out->node_write_Bps;
		break;
	case STORAGE_FSX:
		out->provisioned_TiB = provisioned_TiB > 0 ? provisioned_TiB : tier->default_provisioned_TiB;
		if (!(out->provisioned_TiB > 0))
			return missing(err, NULL, tier, "default_provisioned_TiB (and the scenario no provisioned_TiB)");
		if (!(tier->read_MBps_per_TiB > 0) || !(tier->write_MBps_per_TiB > 0))
			return missing(err, NULL, tier, "read_MBps_per_TiB and write_MBps_per_TiB");
		out->read_Bps = out->provisioned_TiB * tier->read_MBps_per_TiB * 1e6;
		out->write_Bps = out->provisioned_TiB * tier->write_MBps_per_TiB * 1e6;
		out->node_read_Bps = node_cap;
		out->node_write_Bps = node_cap;
		break;
	case STORAGE_S3:
		if (!(tier->requests_per_s_per_prefix > 0) || !(tier->put_requests_per_s_per_prefix > 0) ||
		    !(tier->request_bytes > 0))
			return missing(err, NULL, tier,
				       "requests_per_s_per_prefix, put_requests_per_s_per_prefix and request_bytes");
		if (s3_prefixes < 1)
			s3_prefixes = 1;
		out->read_Bps = s3_prefixes * tier->requests_per_s_per_prefix * tier->request_bytes;
		out->write_Bps = s3_prefixes * tier->put_requests_per_s_per_prefix * tier->request_bytes;
		out->node_read_Bps = node_cap;
		out->node_write_Bps = node_cap;
		break;
	}
	return SC_OK;
}

/* Megatron-LM megatron/core/datasets/indexed_dataset.py, DType.optimal_dtype:
 * numpy.uint16 if the cardinality is below 65500, else numpy.int32. */
double storage_default_bytes_per_token(int vocab)
{
	return vocab > 0 && vocab < 65500 ? 2.0 : 4.0;
}

/* Nodes holding ranks [first, first + n) in Megatron order (TP innermost,
 * PP outermost: pipeline stage s is ranks [s S, (s + 1) S) with S = tp cp dp). */
static void node_range(long long first, long long n, int gpn, long long *lo, long long *hi)
{
	*lo = first / gpn;
	*hi = (first + n - 1) / gpn;
}

void storage_data_readers(const struct scenario *sc, double *copies, int *reading_nodes)
{
	const struct layout *l = &sc->layout;
	int gpn = sc->cluster.instance.gpus_per_node > 0 ? sc->cluster.instance.gpus_per_node : 1;
	struct layout_info li;
	long long stage, a0, a1, b0, b1, n;

	if (layout_derive(sc, NULL, &li, NULL) != SC_OK) {
		*copies = 1;
		*reading_nodes = sc->cluster.nodes > 0 ? sc->cluster.nodes : 1;
		return;
	}
	stage = li.stage_gpus;

	*copies = (double)l->cp * (l->pp > 1 ? 2.0 : 1.0);
	node_range(0, stage, gpn, &a0, &a1);
	n = a1 - a0 + 1;
	if (l->pp > 1) {
		node_range((long long)(l->pp - 1) * stage, stage, gpn, &b0, &b1);
		n += b1 - b0 + 1;
		if (b0 <= a1)       /* first and last stage share nodes */
			n -= a1 - b0 + 1;
	}
	if (n > sc->cluster.nodes)
		n = sc->cluster.nodes;
	*reading_nodes = n > 0 ? (int)n : 1;
}

void storage_data_load(const struct storage_bw *bw, const struct data_load_in *in,
		       struct data_load_out *out)
{
	int readers = in->reading_nodes > 0 ? in->reading_nodes : 1;
	double t_agg, t_node;

	memset(out, 0, sizeof(*out));
	out->bytes_per_step = in->tokens_per_step * in->bytes_per_token * in->copies;
	out->node_bytes_per_step = out->bytes_per_step / readers;
	if (out->bytes_per_step <= 0)
		return;
	out->demand_Bps = in->compute_step_s > 0 ? out->bytes_per_step / in->compute_step_s : INFINITY;
	t_agg = bw->read_Bps > 0 ? out->bytes_per_step / bw->read_Bps : INFINITY;
	t_node = bw->node_read_Bps > 0 ? out->node_bytes_per_step / bw->node_read_Bps : INFINITY;
	out->node_bound = t_node > t_agg;
	out->fetch_s = fmax(t_agg, t_node);
	out->supply_Bps = out->bytes_per_step / out->fetch_s;
	/* Why: a loader with k batches in flight overlaps reading with the
	 * step; the reads share the bandwidth, so the throughput bound stays
	 * fetch per batch, while the k outstanding requests hide their latency
	 * k-fold (PyTorch DataLoader's prefetch_factor, default 2 per worker). */
	if (in->prefetch_batches <= 0)
		out->stall_s = bw->latency_s + out->fetch_s;
	else
		out->stall_s = fmax(0.0, out->fetch_s + bw->latency_s / in->prefetch_batches -
				    in->compute_step_s);
}

void storage_ckpt_size(const struct scenario *sc, enum ckpt_moments moments,
		       struct ckpt_size *out)
{
	const struct model_arch *m = &sc->model;
	struct tf_params p;
	double moment_bytes = moments == MOMENTS_BF16 ? 2.0 : 4.0;
	double n_moments = sc->training.optimizer == OPT_SGD ? 1.0 : 2.0;
	double state_bpp = 4.0 + n_moments * moment_bytes;   /* master + moments */
	double p_exp, p_dense, dense_local, exp_local, w_local, o_local;
	struct layout_info li;
	int tp, pp, zero, gpus;
	bool hybrid;
	double ds, es;

	memset(out, 0, sizeof(*out));
	/* the layout's derived quantities have one owner (models/layout) */
	if (layout_derive(sc, NULL, &li, NULL) != SC_OK)
		return;
	tp = li.tp;
	pp = li.pp;
	zero = li.zero;
	gpus = (int)li.gpus;
	hybrid = li.g[LG_REPLICA].ranks > 1;
	ds = li.dense_shard;
	es = li.edp;
	tf_params(m, &p);
	out->params = p.total + p.mtp;
	p_exp = p.moe_layers * p.moe_layer_expert +
		(model_is_moe(m) ? m->mtp_layers * p.moe_layer_expert : 0.0);
	p_dense = out->params - p_exp;
	out->weights_bytes = 2.0 * out->params;
	out->master_bytes = 4.0 * out->params;
	out->moments_bytes = n_moments * moment_bytes * out->params;
	out->total_bytes = out->weights_bytes + out->master_bytes + out->moments_bytes;
	out->gpu_write_bytes = gpus > 0 ? out->total_bytes / gpus : out->total_bytes;
	out->node_write_bytes = out->total_bytes / (sc->cluster.nodes > 0 ? sc->cluster.nodes : 1);

	/* what one GPU holds: its TP/PP slice of the dense parameters and its
	 * ETP/EP/PP slice of the experts, with ZeRO sharding over the dense
	 * data-parallel group (dp cp, or the FSDP group) and the expert one */
	dense_local = p_dense / ((double)tp * pp);
	exp_local = p_exp / ((double)li.etp * li.ep * pp);
	w_local = 2.0 * (zero >= 3 ? dense_local / ds + exp_local / es : dense_local + exp_local);
	o_local = state_bpp * (zero >= 1 ? dense_local / ds + exp_local / es : dense_local + exp_local);
	out->gpu_params = dense_local + exp_local;
	out->gpu_sharded_params = dense_local / ds + exp_local / es;
	out->shard_group = ds;
	out->gpu_held_bytes = w_local + o_local;
	if (zero >= 3) {
		/* hybrid sharding replicates the sharded state across groups */
		out->gpu_replicated_bytes = hybrid ? out->gpu_held_bytes : 0.0;
		out->replica_group = hybrid ? li.g[LG_REPLICA].ranks : 1;
		out->replica_stride = li.g[LG_REPLICA].stride;
	} else {
		out->gpu_replicated_bytes = w_local + (zero == 0 ? o_local : 0.0);
		out->replica_group = li.dp * li.cp;
		out->replica_stride = tp;
	}
}

void storage_ckpt_io(const struct storage_bw *bw, const struct ckpt_size *sz,
		     double d2h_Bps, int gpus_per_node, struct ckpt_io *out)
{
	double nb = sz->node_write_bytes;

	memset(out, 0, sizeof(*out));
	out->snapshot_s = d2h_Bps > 0 ? sz->gpu_write_bytes / d2h_Bps : 0.0;
	out->host_bytes_per_node = sz->gpu_write_bytes * (gpus_per_node > 0 ? gpus_per_node : 1);
	if (bw->kind == STORAGE_NVME) {
		/* Why: local drives alone lose a failed node's shard, so each node
		 * also keeps one peer's (as in-memory checkpointing does with peer
		 * CPU memory: Wang et al. 2023, Gemini, SOSP): it writes two
		 * shares to its drives while sending its own to the peer. */
		out->write_s = fmax(2.0 * nb / bw->node_write_Bps, nb / bw->node_net_Bps);
		out->read_s = nb / fmin(bw->node_read_Bps, bw->node_net_Bps);
		out->write_node_bound = true;
		out->read_node_bound = true;
	} else {
		/* every node writes its share at once: the job-wide limit or the
		 * node's own ceiling binds, whichever is slower */
		double ta = sz->total_bytes / bw->write_Bps, tn = nb / bw->node_write_Bps;
		double ra = sz->total_bytes / bw->read_Bps, rn = nb / bw->node_read_Bps;

		out->write_s = fmax(ta, tn);
		out->write_node_bound = tn > ta;
		out->read_s = fmax(ra, rn);
		out->read_node_bound = rn > ra;
	}
	/* Megatron-LM async save: the state is copied to host memory while the
	 * step waits, then written by a background process (--async-save) */
	out->sync_stall_s = fmax(out->snapshot_s, out->write_s) + bw->latency_s;
	out->async_stall_s = out->snapshot_s;
	out->drain_s = out->write_s + bw->latency_s;
	out->read_s += bw->latency_s;
}
