/* test_des_program.c: the DES's per-stage programs (sim/des/des_program.c),
 * without running SimGrid: every stage runs every block once in an order
 * that cannot deadlock, the blocks' costs add up to the analytical
 * engine's stage time, CP and EP flows last their analytical time when
 * nothing contends, coarsening keeps the estimate within the budget, and
 * the cases the DES does not cover fail with a clear error. */
#include "../../sim/config/scenario_load.h"
#include "../../sim/des/des_internal.h"
#include "../unit/sc_catalog.h"
#include "../unit/sc_test.h"

#include <stdlib.h>
#include <string.h>

/* Run the stages' op lists against each other, every pipeline message
 * arriving at once: all blocks must complete (no cycle). */
static bool schedule_completes(const struct des_program *p)
{
	int pp = p->pp, pv = p->pp * p->v, m = p->mb;
	char *done = calloc((size_t)2 * m * pv, 1);
	int *pos = calloc((size_t)pp, sizeof(int));
	bool progress = true, ok = true;

	while (progress) {
		progress = false;
		for (int s = 0; s < pp; s++) {
			const struct des_stage *st = &p->stages[s];

			while (pos[s] < st->n_ops) {
				const struct des_op *o = &st->ops[pos[s]];
				int j = o->chunk * pp + s, need = -1;

				if (o->dir == 0 && j > 0)
					need = (0 * m + o->mb) * pv + j - 1;
				else if (o->dir == 1)
					need = j == pv - 1 ? (0 * m + o->mb) * pv + j : (1 * m + o->mb) * pv + j + 1;
				if (need >= 0 && !done[need])
					break;
				done[(o->dir * m + o->mb) * pv + j] = 1;
				pos[s]++;
				progress = true;
			}
		}
	}
	for (int s = 0; s < pp; s++)
		ok &= pos[s] == p->stages[s].n_ops;
	for (int i = 0; i < 2 * m * pv; i++)
		ok &= done[i] == 1;
	free(done);
	free(pos);
	return ok;
}

/* The contention-free time of a block: its GPU work and its CP/EP flows
 * at their analytical duration under the overlap rule. */
static double block_cf(const struct des_program *p, const struct des_cost *c)
{
	const struct calibration *cal = &p->sc->calibration;
	double h_cp = des_hide(cal->cp_overlap, c->cp_s, c->cp_win_s);
	double h_ep = p->sc->layout.ep_comm_overlap
		      ? des_hide(cal->ep_overlap, c->ep_s, c->ep_win_s - h_cp * c->ep_cp_share) : 0;

	return c->busy_s + c->cp_s - h_cp + c->ep_s - h_ep +
	       cal->comm_interference * (h_cp + h_ep);
}

static void check_program(const char *path, bool ci_zero)
{
	static struct scenario sc;
	struct des_program p;
	struct sc_error err;
	double worst = 0;

	if (!sc_test_load(path, &sc)) {
		CHECK(0);
		return;
	}
	if (ci_zero)
		sc.calibration.comm_interference = 0;
	CHECK(des_program_build(&sc, NULL, &p, &err) == SC_OK);
	CHECK(schedule_completes(&p));
	for (int s = 0; s < p.pp; s++) {
		const struct des_stage *st = &p.stages[s];
		double per_mb = 0;
		int sends = 0, recvs = 0;

		CHECK(st->n_ops == 2 * p.mb * p.v);
		for (int i = 0; i < st->n_ops; i++) {
			sends += st->ops[i].send;
			recvs += st->ops[i].recv;
		}
		CHECK(sends == st->n_sends);
		/* every block but the first forward and the last backward
		 * of the whole pipeline has a message in and one out */
		CHECK(sends == recvs);
		for (int c = 0; c < p.v; c++)
			for (int d = 0; d < 2; d++) {
				const struct des_cost *k = &st->cost[2 * c + d];

				per_mb += block_cf(&p, k);
				/* the flows, alone on their links, last their
				 * analytical time */
				if (k->cp_bytes > 0)
					CHECK_REL(k->cp_lat_s + k->cp_bytes / p.topo.nic_link_Bps, k->cp_s, 1e-9);
			}
		if (per_mb > worst)
			worst = per_mb;
		/* DP jobs are launched by pieces of the last micro-batch's
		 * backward, in piece order */
		for (int i = 0; i < st->n_ops; i++) {
			const struct des_op *o = &st->ops[i];

			for (int k = 1; k < o->job_count; k++)
				CHECK(st->jobs[o->job_first + k].piece >= st->jobs[o->job_first + k - 1].piece);
		}
	}
	/* the slowest stage's micro-batch, m times, is the analytical compute
	 * and exposed TP/CP/EP plus kernel launches (interference of hidden DP
	 * off to compare exactly) */
	if (ci_zero) {
		const struct step_result *a = &p.analytic;
		double want = a->part_s[PART_COMPUTE] + a->part_s[PART_TP_COMM] + a->part_s[PART_CP_COMM] +
			      a->part_s[PART_EP_COMM] + a->part_s[PART_OVERHEAD] -
			      sc.calibration.step_overhead_s;

		CHECK_REL(p.mb * worst, want, 1e-9);
	}
	des_program_free(&p);
}

static void test_programs(void)
{
	static const char *const paths[] = {
		"scenarios/quickstart.json", "scenarios/llama3-8b-p5-1node.json",
		"scenarios/llama3-70b-p5en-64.json", "scenarios/mixtral-8x22b-p6-b200.json",
		"scenarios/deepseek-v3-p6-b300.json", "scenarios/llama3-405b-p5-2048.json",
		"tests/des/data/agree-gpipe-32.json", "tests/des/data/agree-fsdp-32.json",
		"tests/des/data/agree-cp-64.json", "tests/des/data/agree-moe-ep-128.json",
	};

	for (size_t i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		check_program(paths[i], true);
		check_program(paths[i], false);
	}
}

static void test_fold_and_budget(void)
{
	static struct scenario sc;
	struct des_program p;
	struct des_options o;
	struct sc_error err;

	memset(&o, 0, sizeof(o));
	if (!sc_test_load("scenarios/llama3-405b-p5-2048.json", &sc)) {
		CHECK(0);
		return;
	}
	/* one NIC link per GPU: a TP group's 8 ranks run as one */
	o.fidelity = 1e6;
	CHECK(des_program_build(&sc, &o, &p, &err) == SC_OK);
	CHECK(p.fold == 8 && p.nsim == 2048);
	CHECK(p.messages_exact > 10 * p.budget);
	CHECK(p.messages_estimate <= p.budget);
	CHECK(p.max_steps > 0 || p.merge > 1);
	des_program_free(&p);
	/* exact: nothing merged */
	o.fidelity = -1;
	CHECK(des_program_build(&sc, &o, &p, &err) == SC_OK);
	CHECK(p.max_steps == 0 && p.merge == 1 && p.messages_estimate == p.messages_exact);
	des_program_free(&p);
	/* no folding when asked */
	o.fidelity = 0;
	o.no_fold = true;
	sc.cluster.nodes = 16;
	sc.layout.dp = 1;
	sc.training.global_batch_seqs = 16;
	CHECK(des_program_build(&sc, &o, &p, &err) == SC_OK);
	CHECK(p.fold == 1 && p.nsim == 128);
	des_program_free(&p);
	/* two GPUs behind one NIC (p4d): replicas share it, no folding */
	CHECK(sc_test_load("tests/fuzz/corpus/scenario_basic.json", &sc));
	strcpy(sc.cluster.instance.name, "p4d-like");
	sc.cluster.instance.efa_nics = 4;
	CHECK(des_program_build(&sc, NULL, &p, &err) == SC_OK);
	if (sc.layout.tp > 1)
		CHECK(p.fold == 1);
	des_program_free(&p);
}

static void test_unsupported(void)
{
	static struct scenario sc;
	struct des_program p;
	struct sc_error err;

	if (!sc_test_load("scenarios/llama3-70b-p5en-64.json", &sc)) {
		CHECK(0);
		return;
	}
	/* interleaving needs micro-batches in multiples of pp (Megatron):
	 * a layout rule (models/layout), so invalid input to both engines */
	sc.training.global_batch_seqs = 16 * 6; /* 6 micro-batches, pp 4 */
	CHECK(des_program_build(&sc, NULL, &p, &err) == SC_EINVAL);
	CHECK(strstr(err.message, "multiple of pp") != NULL);
	CHECK_STR(err.pointer, "/training/global_batch_seqs");
	/* the analytical engine's own errors come through */
	sc.training.global_batch_seqs = 512;
	sc.layout.dp = 3;
	CHECK(des_program_build(&sc, NULL, &p, &err) == SC_EINVAL);
}

int main(void)
{
	if (!sc_test_catalog())
		return 1;
	RUN(test_programs);
	RUN(test_fold_and_budget);
	RUN(test_unsupported);
	sc_test_catalog_free();
	return sc_test_summary();
}
