/* des_io.c: the storage traffic of a simulated step (see des_io_build in
 * des_internal.h).  Pure C, no SimGrid: the program side.
 *
 * What moves, and how much, is the goodput model's (sim/analytic/goodput.h
 * over models/storage.h, their one owner): the data tier's bytes per step
 * and readers (Megatron's loader: TP rank 0 of every CP and DP rank on the
 * first and the last pipeline stage), the checkpoint's bytes per GPU (a
 * fully parallel save: total / GPUs), the tiers' aggregate and per-node
 * ceilings, the loader's prefetch depth, the GPU-to-host snapshot.  The DES
 * only turns them into flows between the GPUs' hosts and the fabric's
 * storage hosts (one per tier, behind a read link of the tier's aggregate
 * read bandwidth and a write link of its aggregate write bandwidth), so
 * that they share the NICs, the leaf uplinks and the storage links with
 * the step's collectives and with other jobs' traffic.  Alone and without
 * contention a read takes the analytical fetch and a write the analytical
 * write time: test_des_storage checks both, and the contention by hand.
 *
 * Folding: a simulated GPU stands for `fold` TP replicas, and every GPU
 * writes its checkpoint share, so the write link of a tier is 1/fold of the
 * aggregate (as the leaf uplinks are, des_platform_spec_of); only TP rank 0
 * reads, and every reader is simulated, so the read link is the whole
 * aggregate (a read crossing a folded uplink is charged fold times: data
 * batches are megabytes against gigabytes of collectives, said in the
 * README).  NVMe data stays in the node (its stall is the analytical one,
 * left in the step's tail); an NVMe checkpoint sends each GPU's share to
 * the same GPU of the next node (the peer copy, storage_ckpt_io) and
 * cannot end before its drive time. */
#include "des_internal.h"

#include <math.h>
#include <string.h>

#include "../analytic/goodput.h"

bool des_io_reader(const struct des_program *p, int rank)
{
	int stage = rank / p->li.stage_gpus;

	return p->io.data && rank % p->tp == 0 && (stage == 0 || stage == p->pp - 1);
}

enum sc_status des_io_build(struct des_program *p, const struct des_options *opt, struct sc_error *err)
{
	const struct scenario *sc = p->sc;
	struct des_io *io = &p->io;
	struct goodput_result g;
	enum sc_status rc;
	int gpn = sc->cluster.instance.gpus_per_node > 0 ? sc->cluster.instance.gpus_per_node : 1;
	bool want_ckpt = opt && opt->checkpoint_step;

	memset(io, 0, sizeof(*io));
	if (!sc->storage.enabled) {
		if (want_ckpt)
			return sc_error_set(err, SC_EINVAL, NULL, "/storage",
					    "des: a checkpoint step needs the scenario's \"storage\" object (its checkpoint tier)");
		return SC_OK;
	}
	rc = sim_goodput(sc, &p->analytic, &g, err);
	if (rc != SC_OK)
		return rc;
	if (g.has_data && g.data_bw.kind != STORAGE_NVME && g.data.bytes_per_step > 0) {
		int readers = (p->li.stage_gpus / p->tp) * (p->pp > 1 ? 2 : 1);
		int k = sc->storage.prefetch_batches;

		io->data = true;
		snprintf(io->data_tier, sizeof(io->data_tier), "%s", sc->storage.data_tier.name);
		io->readers = readers;
		io->read_bytes = g.data.bytes_per_step / readers;
		io->prefetch = k;
		io->read_lat_s = k > 0 ? g.data_bw.latency_s / k : g.data_bw.latency_s;
		io->read_Bps = g.data_bw.read_Bps;
		io->analytic_read_s = g.data.fetch_s + io->read_lat_s;
		p->tail_s -= p->analytic.part_s[PART_DATA_STALL];
	}
	if (want_ckpt) {
		if (!(g.ckpt_bw.write_Bps > 0) || !sc->storage.checkpoint_tier.name[0])
			return sc_error_set(err, SC_EINVAL, NULL, "/storage/checkpoint_tier",
					    "des: a checkpoint step needs a checkpoint tier in the scenario's \"storage\" object");
		io->ckpt = true;
		io->ckpt_async = sc->storage.async_checkpoint;
		io->ckpt_nvme = g.ckpt_bw.kind == STORAGE_NVME;
		snprintf(io->ckpt_tier, sizeof(io->ckpt_tier), "%s", sc->storage.checkpoint_tier.name);
		io->writers = p->nsim;
		io->write_bytes = g.ckpt.gpu_write_bytes;
		io->write_Bps = g.ckpt_bw.write_Bps;
		io->gpu_write_Bps = g.ckpt_bw.node_write_Bps / gpn;
		io->drive_s = io->ckpt_nvme && g.ckpt_bw.node_write_Bps > 0
			      ? 2.0 * g.ckpt.node_write_bytes / g.ckpt_bw.node_write_Bps : 0;
		io->snapshot_s = g.io.snapshot_s;
		io->write_lat_s = g.ckpt_bw.latency_s;
		io->analytic_write_s = io->ckpt_async ? g.io.drain_s : g.io.write_s;
		/* the step's checkpoint is simulated, not its amortised share */
		p->tail_s -= p->analytic.part_s[PART_CHECKPOINT];
	}
	if (p->tail_s < 0)
		p->tail_s = 0;
	return SC_OK;
}
