/* test_des_storage.c: storage traffic inside the simulated step (des_io.c),
 * with the contention computed by hand.
 *
 * The job: llama3-8b on 2 p5 nodes (tp 8, dp 2; one simulated GPU per
 * node), its scenario's FSx for Lustre tier (250 MB/s per TiB x 4.6875
 * TiB: W = 1.172 GB/s read and write for the whole file system).
 *   Data, no prefetch: each step waits for its own batch, latency + bytes
 *   per step / read bandwidth (goodput's rule, storage_data_load); the DES
 *   reads it as flows from the storage host: the same to rounding.
 *   Checkpoint step, synchronous: every GPU writes total / GPUs; the file
 *   system binds (total / W, ~96 s, against a node's 400 GB/s), and the step
 *   grows by max(snapshot, write) + latency (storage_ckpt_io); the DES
 *   writes it as flows to the storage host: the same.
 *   Two such jobs checkpointing at once on one file system (packed: no
 *   link of the fabric is shared): max-min fairness gives each W/2, so
 *   each job's write and its step grow by exactly total / W.  On two
 *   file systems of their own: nothing is shared, together = alone. */
#include "../../models/placement.h"
#include "../../sim/analytic/goodput.h"
#include "../../sim/config/scenario_load.h"
#include "../../sim/des/des_internal.h"
#include "../unit/sc_catalog.h"
#include "../unit/sc_test.h"

#include <string.h>

static struct scenario job;

static void load_job(void)
{
	CHECK(sc_test_load_dp_pair("scenarios/llama3-8b-32gpu-fsx.json", &job));
	job.storage.async_checkpoint = false;
	CHECK(job.storage.enabled && job.storage.has_data_tier);
}

static void test_data_reads(void)
{
	struct scenario s = job;
	struct goodput_result g;
	struct step_result a;
	struct des_result d;
	struct sc_error err;

	/* a fat record (1 MB per token, e.g. raw video frames) so that the
	 * read is seconds, not microseconds */
	s.storage.bytes_per_token = 1e6;
	s.storage.prefetch_batches = 0;
	CHECK(sim_step_predict(&s, &a, &err) == SC_OK);
	CHECK(sim_goodput(&s, &a, &g, &err) == SC_OK);
	CHECK(g.data_stall_s > 1.0);
	CHECK(des_predict(&s, NULL, &d, &err) == SC_OK);
	CHECK(d.storage.data && d.storage.readers == 2);
	CHECK_REL(d.storage.read_s, g.data.fetch_s + g.data_bw.latency_s, 1e-6);
	CHECK_REL(d.step.part_s[PART_DATA_STALL], a.part_s[PART_DATA_STALL], 1e-6);
	CHECK_REL(d.step.step_time_s, d.analytic.step_time_s, 0.02);
	fprintf(stderr, "data: stall des %.4f s, analytic %.4f s\n", d.step.part_s[PART_DATA_STALL],
		a.part_s[PART_DATA_STALL]);
	des_result_free(&d);
}

/* Job k of two on 4 nodes (packed), both writing a checkpoint this step. */
static void together(const struct scenario *a, const struct scenario *b, struct des_result *out)
{
	static struct placement whole, slice[2];
	static struct scenario s[2];
	const struct scenario *sp[2] = { &s[0], &s[1] };
	struct des_options o;
	struct cluster fabric;
	struct sc_error err;

	memset(&o, 0, sizeof(o));
	o.checkpoint_jobs = 3;
	CHECK(placement_generate(&whole, PLACEMENT_GEN_PACKED, 4, 0, 2, 1, &err) == SC_OK);
	s[0] = *a;
	s[1] = *b;
	for (int k = 0; k < 2; k++) {
		int idx[2] = { 2 * k, 2 * k + 1 };

		CHECK(placement_subset(&whole, idx, 2, "slice", &slice[k], &err) == SC_OK);
		s[k].cluster.placement = &slice[k];
	}
	fabric = s[0].cluster;
	fabric.nodes = 4;
	fabric.placement = &whole;
	CHECK(des_predict_together(sp, 2, &fabric, &o, out, &err) == SC_OK);
	placement_free(&whole);
	placement_free(&slice[0]);
	placement_free(&slice[1]);
}

static void test_checkpoint_storm(void)
{
	struct scenario other = job;
	struct des_options o;
	struct goodput_result g;
	struct step_result a;
	struct des_result plain, alone, both[2];
	struct sc_error err;
	double alone_ckpt, extra;

	memset(&o, 0, sizeof(o));
	o.checkpoint_step = true;
	CHECK(sim_step_predict(&job, &a, &err) == SC_OK);
	CHECK(sim_goodput(&job, &a, &g, &err) == SC_OK);
	CHECK(!g.io.write_node_bound && g.io.write_s > 10 * g.io.snapshot_s);
	CHECK(des_predict(&job, NULL, &plain, &err) == SC_OK);
	CHECK(des_predict(&job, &o, &alone, &err) == SC_OK);
	CHECK(alone.storage.checkpoint && alone.storage.writers == 2);
	/* alone: the analytical write, and the step grows by the sync stall
	 * (the plain step carries the amortised share instead) */
	CHECK_REL(alone.storage.write_s, g.io.write_s, 1e-6);
	alone_ckpt = alone.step.step_time_s - (plain.step.step_time_s - a.part_s[PART_CHECKPOINT]);
	CHECK_REL(alone_ckpt, g.io.sync_stall_s, 1e-6);
	CHECK_REL(alone.step.part_s[PART_CHECKPOINT], g.io.sync_stall_s, 1e-6);

	/* two jobs, one file system: each write takes twice as long */
	together(&job, &job, both);
	extra = g.ckpt.total_bytes / g.ckpt_bw.write_Bps;
	for (int k = 0; k < 2; k++) {
		CHECK_REL(both[k].storage.write_s, 2 * g.io.write_s, 1e-6);
		CHECK_REL(both[k].step.step_time_s - alone.step.step_time_s, extra, 1e-6);
	}
	fprintf(stderr, "checkpoint storm: alone %.3f s (write %.3f s), together %.3f s (write %.3f s), total/W %.3f s, slowdown %.3fx\n",
		alone.step.step_time_s, alone.storage.write_s, both[0].step.step_time_s, both[0].storage.write_s,
		extra, both[0].step.step_time_s / alone.step.step_time_s);

	/* two file systems: nothing shared */
	snprintf(other.storage.checkpoint_tier.name, sizeof(other.storage.checkpoint_tier.name), "%s-b",
		 job.storage.checkpoint_tier.name);
	snprintf(other.storage.data_tier.name, sizeof(other.storage.data_tier.name), "%s-b",
		 job.storage.data_tier.name);
	together(&job, &other, both);
	for (int k = 0; k < 2; k++)
		CHECK(both[k].step.step_time_s == alone.step.step_time_s);
	des_result_free(&plain);
	des_result_free(&alone);
}

static void test_needs_storage(void)
{
	struct scenario s = job;
	struct des_options o;
	struct des_result d;
	struct sc_error err;

	memset(&o, 0, sizeof(o));
	o.checkpoint_step = true;
	s.storage.enabled = false;
	CHECK(des_predict(&s, &o, &d, &err) == SC_EINVAL);
	CHECK(strstr(err.message, "storage") != NULL);
}

int main(void)
{
	load_job();
	RUN(test_data_reads);
	RUN(test_checkpoint_storm);
	RUN(test_needs_storage);
	return sc_test_summary();
}
