/* bench_des_scaling.c: wall time and peak memory of one simulated step of a
 * Llama-3-405B layout (scenarios/llama3-405b-p5-2048.json: tp 8, pp 16,
 * interleaved 1F1B with its vpp, 16 micro-batches per step; pp 8 with twice
 * the vpp below 512 GPUs) on p5.48xlarge clusters of 64, 512, 4,096,
 * 16,384 and 32,768 GPUs with the discrete-event engine at its default fidelity, one simulation at a time.
 * Wall time is the parent's, fork to result; peak RSS and CPU time are the
 * simulation child's (wait4).  Not a test: prints a table.  Run from the
 * source tree's root: build/tests/bench/bench_des_scaling [GPUS...].
 *
 * Measured 2026-12-01 on the shared 2-core CI machine (load ~15): 32,768
 * GPUs (4,096 simulated hosts, tp 8 folded) 38.4 s CPU, 47.9 s wall, 189
 * MiB peak RSS; 16,384: 14.8 s CPU, 101 MiB.  Where unfolded layouts (tp 1,
 * or NICs shared by GPUs) stop scaling: SimGrid 3.32 checks every new link
 * and host name against the whole platform, recursing through every zone
 * (NetZoneImpl::get_link_by_name_or_null), so building the platform costs
 * zones x links: 8,192 hosts in 1,024 NVLink-domain zones take 30 s to
 * build, 4,096 take 3.6 s. */
#include "../../sim/config/scenario_load.h"
#include "../../sim/des/des.h"

#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	static struct catalog cat;
	static struct scenario base, sc;
	static struct des_result r;
	struct sc_error err;
	int sizes[8] = { 64, 512, 4096, 16384, 32768 }, n = 5;

	if (argc > 1) {
		n = 0;
		for (int i = 1; i < argc && n < 8; i++)
			sizes[n++] = atoi(argv[i]);
	}
	if (catalog_load(catalog_default_dir(), &cat, &err) != SC_OK ||
	    scenario_load("scenarios/llama3-405b-p5-2048.json", &cat, &base, &err) != SC_OK) {
		fprintf(stderr, "bench_des_scaling: %s %s %s\n", err.file, err.pointer, err.message);
		return 1;
	}
	catalog_free(&cat);
	printf("%7s %-22s %9s %8s %10s %10s %9s %9s %11s %11s\n", "gpus", "layout tp pp vpp dp", "simulated",
	       "actors", "flows", "wall s", "cpu s", "rss MiB", "des step s", "analytic s");
	for (int i = 0; i < n; i++) {
		int gpus = sizes[i], pp = gpus >= 512 ? 16 : 8;
		char lay[32];

		sc = base;
		sc.cluster.nodes = gpus / 8;
		sc.layout.tp = 8;
		sc.layout.pp = pp;
		sc.layout.vpp = base.layout.vpp * 16 / pp;
		sc.layout.dp = gpus / (8 * pp);
		sc.training.global_batch_seqs = 16 * sc.layout.dp;
		if (des_predict(&sc, NULL, &r, &err) != SC_OK) {
			fprintf(stderr, "bench_des_scaling: %d GPUs: %s\n", gpus, err.message);
			return 1;
		}
		snprintf(lay, sizeof(lay), "8 %d %d %d", pp, sc.layout.vpp, sc.layout.dp);
		printf("%7d %-22s %9d %8d %10lld %10.2f %9.2f %9.0f %11.4f %11.4f\n", gpus, lay,
		       r.stats.simulated_gpus, r.stats.actors, r.stats.messages, r.stats.wall_s,
		       r.stats.child_cpu_s, r.stats.child_maxrss_bytes / (1024.0 * 1024.0),
		       r.step.step_time_s, r.analytic.step_time_s);
		fflush(stdout);
		des_result_free(&r);
	}
	return 0;
}
