/* serve_sim.h: a seeded, deterministic discrete-event simulation of
 * requests served by replicas of a model.
 *
 * Why not SimGrid actors: a replica is a single server whose state changes
 * only at iteration boundaries (an iteration's duration is a closed-form
 * function of its batch, models/serving), replicas share no contended
 * resource inside an iteration (TP traffic stays in the replica's NVLink
 * domain and is already in the iteration time), and the only shared
 * resource between them, a prefill replica's KV-transfer link, is a FIFO
 * queue.  A SimGrid engine would add a per-process singleton (one fork per
 * simulation, see DESIGN.md), a context switch per actor step and nothing
 * it could model better here, while the planner runs hundreds of
 * simulations per question.  So the event loop is our own: a binary heap of
 * (time, sequence number) events -- arrivals, iteration ends, KV-transfer
 * ends -- processed in order, ties broken by insertion order, all random
 * numbers drawn up front from a seeded xoshiro256** stream.  Same scenario
 * and seed, same result, on every machine.
 *
 * The engine model per replica: continuous batching with a token budget per
 * iteration (mixed, prefill-first or static), chunked prefill, a paged KV
 * cache in blocks, admission FIFO from a waiting queue, preemption of the
 * most recently admitted request (KV freed, recomputed later) when the
 * cache is full under the on-demand policy, or admission only when prompt
 * and output fit under the reserve policy.  Disaggregated: prompts are
 * prefilled in the prefill pool, their KV cache is sent (models/collective
 * send/recv over the tier between the pools, one transfer at a time per
 * prefill replica) and decoded in the decode pool.  Pipeline parallelism is
 * modelled for memory and latency only: an iteration passes the stages one
 * after the other, without micro-batches in flight.
 */
#ifndef SC_SERVE_SIM_H
#define SC_SERVE_SIM_H

#include "../../models/status.h"
#include "serve.h"

/* Build the replica model of layout lay for scenario sc (engine memory
 * settings, precision, calibration); fails as srv_replica_init. */
enum sc_status srv_replica_for(const struct srv_scenario *sc, const struct srv_layout *lay,
			       struct srv_replica *r, struct sc_error *err);

/* Summarise a replica (memory, KV capacity, batch-1 decode step at the
 * workload's mean context). */
void srv_replica_summarize(const struct srv_replica *r, const struct srv_scenario *sc,
			   struct srv_replica_summary *out);

/* Simulate sc; fill out.  Allocates and frees its own working memory.
 * Fails with SC_EINVAL/SC_EUNSUPPORTED/SC_ERANGE from the replica model
 * (pointer into the scenario), SC_ERANGE when a request can never fit in a
 * replica's KV cache, SC_EIO/SC_EINVAL for a bad trace file, SC_ENOMEM. */
enum sc_status srv_simulate(const struct srv_scenario *sc, struct srv_result *out,
			    struct sc_error *err);

/* The sustainable request rate of sc's deployment: the steady completion
 * rate of a saturated run (every request at time 0, enough of them to keep
 * max_num_seqs or the KV cache full: SRV_CAPACITY_WAVES batches), between
 * the completions of its first and last SRV_CAPACITY_TRIM fraction (so the
 * fill and the drain do not count).  Unified: one replica, times the
 * replica count (the router spreads a saturated load evenly);
 * disaggregated: the whole deployment.  Lengths as sc's workload draws
 * them (a trace's, at time 0).  Fails as srv_simulate. */
#define SRV_CAPACITY_WAVES 4
#define SRV_CAPACITY_MAX_SAMPLE 20000   /* requests beyond the waves, at most */
#define SRV_CAPACITY_TRIM 0.1
enum sc_status srv_capacity(const struct srv_scenario *sc, double *rps, struct sc_error *err);

/* Fill r's stability verdict from sustainable_rps (srv_capacity of the same
 * deployment; <= 0: rate test skipped): open loops are stable when they
 * offer at most the sustainable rate, steady when also their measurement
 * window spans SRV_STEADY_LIFETIMES mean lifetimes; cost per token only
 * for steady runs with tokens. */
void srv_stability(const struct srv_scenario *sc, double sustainable_rps, struct srv_result *r);

/* srv_capacity, srv_simulate and srv_stability in one. */
enum sc_status srv_simulate_checked(const struct srv_scenario *sc, struct srv_result *out,
				    struct sc_error *err);

#endif
