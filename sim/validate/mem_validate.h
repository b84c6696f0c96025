/* mem_validate.h: predict published per-GPU peak memory of training runs.
 *
 * The memory cases (tests/validation/data/memory-cases.json, described in
 * its README) extend the training cases: the same layout and batch fields,
 * read by the training validation's own case reader (one owner), plus the
 * framework, its optimizer settings and arguments, and the measured peak
 * with the statistic it is (max allocated, max reserved or nvidia-smi
 * used) and the rank that measured it.  Each case becomes a scenario; the
 * prediction is models/memory's number for that statistic on that rank's
 * pipeline stage.  What a case states that the model cannot honour makes
 * it not expressed, with the reason; defaults for what it leaves unstated
 * are listed per case.
 */
#ifndef SC_MEM_VALIDATE_H
#define SC_MEM_VALIDATE_H

#include "validate.h"

enum mem_statistic { MEM_STAT_ALLOCATED, MEM_STAT_RESERVED, MEM_STAT_DEVICE };

const char *mem_statistic_name(enum mem_statistic s);

struct mem_case {
	struct val_case vc;          /* id, source group, layout, scenario, reason, assumptions */
	char framework[32];          /* megatron-core, torchtitan, deepspeed or what the case says */
	enum mem_statistic statistic;
	int stage;                   /* 0: first pipeline stage, 1: last (the measuring rank's) */
	double measured_bytes;
	double predicted_bytes;      /* of the statistic */
	double device_bytes;         /* as nvidia-smi would show it: the verdict's number */
	double usable_bytes;         /* HBM less the driver's reserve */
	bool fits;
	double err_rel;
};

struct mem_val_set {
	char path[512];
	struct val_set base;         /* the file's models and the systems (no cases) */
	struct mem_case *cases;
	int n_cases;
};

const char *memval_default_path(void);

enum sc_status memval_load(const char *path, const char *systems_path, const struct catalog *cat,
			   struct mem_val_set *set, struct sc_error *err);

/* Predict every expressible case with each GPU's default profile. */
enum sc_status memval_run(struct mem_val_set *set, const struct catalog *cat,
			  struct sc_error *err);

void memval_free(struct mem_val_set *set);

#endif
