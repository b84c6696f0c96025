/* rpt_prom.h: predictions in the Prometheus text exposition format
 * (version 0.0.4), `--format prom` of predict, serve and plan.
 *
 * Every family is a gauge in base units (seconds, bytes, ratios, bytes per
 * second), named stepcast_predicted_* (plan: stepcast_plan_*), with HELP and
 * TYPE, so `promtool check metrics` passes and the file can be dropped into
 * node_exporter's textfile collector directory.  Label names follow what the
 * cluster's own exporters use, so PromQL can put a prediction beside a
 * measurement: the NCCL Inspector's collective, nranks, algo_proto and
 * p2p_operation (its nccl_bus_bandwidth_gbs and
 * nccl_collective_exec_time_microseconds are GB/s and microseconds: the
 * recording rules of reports/prometheus/ convert them to base units), vLLM's
 * model_name, and a scenario label (the scenario file's stem) on every
 * sample for the join with a job's own series.  docs/prometheus.md has the table.
 */
#ifndef SC_RPT_PROM_H
#define SC_RPT_PROM_H

#include <stdio.h>

#include "../sim/analytic/goodput.h"
#include "../sim/analytic/step.h"
#include "../sim/plan/plan.h"
#include "../sim/serve/serve.h"

/* The scenario label of a scenario file path: its base name without
 * ".json", into buf. */
const char *rpt_prom_scenario_label(const char *path, char *buf, size_t n);

/* NCCL's name of op ("AllReduce", ... ; "AllToAll", "SendRecv"), as NCCL
 * Inspector's collective label spells it (static). */
const char *rpt_prom_nccl_collective(enum coll_op op);

/* One training step; g is the goodput result or NULL (no storage or
 * stragglers object). */
void rpt_prom_step(FILE *out, const char *label, const struct scenario *sc,
		   const struct step_result *r, const struct goodput_result *g);

/* One serving simulation. */
void rpt_prom_serve(FILE *out, const char *label, const struct srv_scenario *sc,
		    const struct srv_result *r);

/* A plan: the chosen point of entry (its instance and node count). */
void rpt_prom_plan(FILE *out, const char *label, const struct scenario *sc,
		   const struct plan_opts *o, const struct compare_entry *entry);

#endif
