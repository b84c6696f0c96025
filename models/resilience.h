/* resilience.h: failure rates, the optimal checkpoint interval, the
 * expected wall time of a job that fails and restarts, and stragglers.
 *
 * Failures are a Poisson process whose rate is the sum of per-cause rates,
 * each proportional to the job's GPUs or nodes, so a job's mean time between
 * failures falls as 1 / size.  The interval formulas are Young's (1974) and
 * Daly's (2006); the wall-time model is Daly's complete exponential one.
 * Pure functions over plain structs; nothing allocates except the
 * Monte-Carlo straggler estimate (a GSL generator it frees itself).
 */
#ifndef SC_RESILIENCE_H
#define SC_RESILIENCE_H

#include "resilience_types.h"
#include "scenario.h"
#include "status.h"

/* Rates of profile's causes (those of causes[0..n) whose profile matches):
 * a cause counted c times in the window has rate c / (gpus x hours) per
 * GPU-hour or c / (nodes x hours) per node-hour; planned interruptions are
 * per job-hour.  SC_ERANGE when more than SC_FAILURE_CAUSES_MAX match,
 * SC_EINVAL when none does. */
enum sc_status res_failure_rates(const struct failure_profile_spec *profile,
				 const struct failure_cause_spec *causes, int n,
				 struct failure_rates *out, struct sc_error *err);

/* Rate of cause i for a job of gpus GPUs on nodes nodes, per hour. */
double res_cause_rate_per_h(const struct failure_rates *r, int i, int gpus, int nodes);

/* Unexpected interruptions per hour for that job: the sum over causes. */
double res_job_rate_per_h(const struct failure_rates *r, int gpus, int nodes);

/* Young (1974), first order: the compute time between checkpoints that
 * minimises the expected waste for checkpoint cost delta_s and mean time
 * between failures mtbf_s: sqrt(2 delta M). */
double res_young_interval_s(double delta_s, double mtbf_s);

/* Daly (2006), "A higher order estimate of the optimum checkpoint interval
 * for restart dumps", Future Generation Computer Systems 22(3), the
 * perturbation solution: sqrt(2 delta M) (1 + sqrt(delta /
 * (2M)) / 3 + (delta / (2M)) / 9) - delta for delta < 2M, else M. */
double res_daly_interval_s(double delta_s, double mtbf_s);

/* Daly (2006), the complete model: the expected wall time to finish work_s
 * of computation in segments of tau_s, each followed by a checkpoint of delta_s, when failures
 * arrive at rate 1/mtbf_s (also during checkpoints and restarts) and each
 * costs restart_s before the last segment is redone:
 *   T = M e^(R/M) (e^((tau + delta)/M) - 1) work / tau.
 * mtbf_s = INFINITY gives work (tau + delta) / tau. */
double res_daly_wall_s(double work_s, double tau_s, double delta_s,
		       double restart_s, double mtbf_s);

/* The tau minimising res_daly_wall_s (golden-section search on [delta/1000,
 * 10 M]); checks Daly's closed form. */
double res_optimal_interval_s(double delta_s, double restart_s, double mtbf_s);

/* Whether sc's layout can hold `replicas` copies of its state on data-
 * parallel peers (checkpointless recovery): the ZeRO shard group (dp x cp,
 * or the FSDP group) must split into that many instances (Megatron's
 * num_distributed_optimizer_instances); ZeRO-0 needs dp x cp >= replicas.
 * SC_EINVAL with the reason (pointer /storage/recovery) if not. */
enum sc_status res_checkpointless_check(const struct scenario *sc, int replicas,
					struct sc_error *err);

/* Expected slowest of n GPUs' straggler factors E[max_i s_i] (>= the single
 * GPU's), for cfg's distribution: the exact order-statistic integral
 * (normal, lognormal: E[g(M_n)] with density n phi Phi^(n-1), by quadrature)
 * or harmonic numbers (exponential: E[max] of n exponentials of mean sigma
 * is sigma H_n), or with monte_carlo_steps > 0 the mean over that many
 * sampled steps from GSL's mt19937 seeded with cfg->seed (deterministic).
 * Returns SC_ENOMEM if the generator cannot be allocated. */
/* Samples (steps x GPUs) one Monte Carlo estimate may draw: 10^7 take
 * about 0.4 s here (2.6e7 samples/s); the exact order statistic (steps 0)
 * costs microseconds at any size.  Past it: SC_EINVAL at
 * /stragglers/monte_carlo_steps with the estimate and the steps that fit. */
#define RES_MAX_MC_SAMPLES 1e7

enum sc_status res_straggler_stretch(const struct straggler_cfg *cfg, int n,
				     double *stretch, struct sc_error *err);

#endif
