/* rpt_search.c: layout search renderers (see rpt_search.h). */
#include "rpt_search.h"

#include <stdlib.h>

#include "rpt_util.h"
#include "../sim/config/rpt_num.h" /* after cJSON: output numbers checked */
#include "../models/units.h"


static double headroom(const struct search_row *r)
{
	return r->mem_capacity_bytes > 0
	       ? (r->mem_capacity_bytes - r->mem_total_bytes) / r->mem_capacity_bytes : 0;
}

/* "0/1/2/3" style list of the bits set in mask, with names. */
static void mask_list(char *buf, size_t n, unsigned mask, const char *const *names, int count)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < count; i++)
		if (mask & (1u << i))
			len += (size_t)snprintf(buf + len, len < n ? n - len : 0, "%s%s",
						len ? "/" : "", names[i]);
}

static void space_text(const struct search_meta *m, char *buf, size_t n)
{
	static const char *const rc[] = { "none", "selective", "full" };
	static const char *const zero[] = { "0", "1", "2", "3" };
	const char *sch[SEARCH_SCHEDULES];
	char rcs[64], zs[32], ss[128];

	for (int i = 0; i < SEARCH_SCHEDULES; i++)
		sch[i] = schedule_name((enum sc_schedule)i);
	mask_list(rcs, sizeof(rcs), m->space.recompute_mask, rc, 3);
	mask_list(zs, sizeof(zs), m->space.zero_mask, zero, 4);
	mask_list(ss, sizeof(ss), m->space.schedule_mask, sch, SEARCH_SCHEDULES);
	snprintf(buf, n, "tp <= %d (NVLink domain %d), cp <= %d, pp <= %d, vpp <= %d (pp x vpp <= layers + 2), "
		 "%sep <= %d, micro-batch <= %d (dividing %d), recompute %s, zero %s (3 = FSDP), schedules %s",
		 m->space.max_tp, m->nvlink_domain_gpus, m->space.max_cp, m->space.max_pp,
		 m->space.max_vpp, m->moe ? "etp 1 or tp, " : "", m->space.max_ep,
		 m->space.max_micro_batch, m->global_batch_seqs, rcs, zs, ss);
}

static void price_text(FILE *out, const struct search_meta *m)
{
	char a[32], b[32];

	if (m->price.sold_as == SOLD_AS_ULTRASERVER) {
		/* bought only as whole UltraServers (models/purchase.h) */
		char opts[512];

		fprintf(out, "price       %s %s/h for %d nodes in whole UltraServers (%s, read %s)\n",
			plan_pricing_name(m->pricing), rpt_usd(m->usd_per_h, b, sizeof(b)), m->nodes,
			m->price.region, m->price.date);
		fputs("            ", out);
		rpt_wrap(out, 12, "            ", rpt_price_options(&m->price, opts, sizeof(opts)), 100);
		fputs("price from  ", out);
		rpt_wrap(out, 12, "            ", m->price.source, 100);
		return;
	}
	fprintf(out, "price       %s %s/h per instance, %s/h for %d (%s, read %s)\n",
		plan_pricing_name(m->pricing),
		rpt_usd(m->pricing == PRICING_ON_DEMAND ? m->price.on_demand_usd_per_h
			: m->price.capacity_block_usd_per_h, a, sizeof(a)),
		rpt_usd(m->usd_per_h, b, sizeof(b)), m->nodes, m->price.region, m->price.date);
	fprintf(out, "            on-demand $%.2f/h, capacity block %s per instance\n",
		m->price.on_demand_usd_per_h,
		m->price.capacity_block_usd_per_h > 0
		? (snprintf(a, sizeof(a), "$%.2f/h", m->price.capacity_block_usd_per_h), a)
		: "not offered");
	fputs("price from  ", out);
	rpt_wrap(out, 12, "            ", m->price.source, 100);
}

/* Rows below rank 1 marked as a tie with it (search_mark_ties). */
static int ties(const struct search_result *res)
{
	int n = 0;

	for (int i = 0; i < res->n_rows; i++)
		n += res->rows[i].tie_with_best;
	return n;
}

/* The line under the table: how many of the rows below rank 1 the one
 * decision rule cannot tell from it, at what confidence (text wraps it
 * under its label). */
static void ties_line(FILE *out, const struct search_meta *m, const struct search_result *res,
		      bool wrap)
{
	int n = ties(res), below = res->n_rows - 1;
	char line[320];

	if (below < 1)
		return;
	snprintf(line, sizeof(line), "%d of the %d row%s below rank 1 %s a tie with it at P%.4g (inside the "
		 "step-time bands, as compare, plan, explain and diff decide); the order stays by point "
		 "prediction", n, below, below == 1 ? "" : "s", n == 1 ? "is" : "are", 100 * m->confidence);
	if (wrap) {
		fputs("\nties        ", out);
		rpt_wrap(out, 12, "            ", line, 100);
	} else {
		fprintf(out, "\n%s.\n", line);
	}
}

static const char *tie_mark(const struct search_result *res, int i)
{
	return i == 0 ? "-" : res->rows[i].tie_with_best ? "tie" : "";
}

/* The ranked rows and the ties line under them: one pass for the text
 * table and the Markdown one, so both always show the same columns. */
static void rows(FILE *out, const struct search_meta *m, const struct search_result *res, bool md)
{
	char d[32], u[32];

	for (int i = 0; i < res->n_rows; i++) {
		const struct search_row *r = &res->rows[i];
		const struct layout *l = &r->layout;

		fprintf(out, md ? "| %d | %s | %d | %d | %d | %d | %d | %d | %d | %d | %s | %d | %s | %.3f | %.5g | "
			"%.1f %% | %.1f | %.1f %% | %s | %.3f |"
			: "%4d %-3s %3d %3d %3d %3d %5d %3d %3d %4d %-9s %4d %-16s %8.3f %12.5g %6.1f %8.1f %6.1f  "
			"%-15s %8.3f",
			i + 1, tie_mark(res, i), l->tp, l->cp, l->pp, l->vpp, l->dp, l->ep, l->etp > 0 ? l->etp : l->tp,
			r->micro_batch_seqs, recompute_name(r->recompute), l->fsdp ? 3 : l->zero_stage,
			schedule_name(l->schedule), r->step_time_s, r->tokens_per_s, r->mfu * 100, r->mem_total_bytes / SC_GiB_BYTES,
			headroom(r) * 100, bottleneck_name(r->bottleneck),
			r->train.tokens > 0 ? r->train.usd_per_mtoken : r->usd_per_mtoken);
		if (m->tokens > 0)
			fprintf(out, md ? " %s | %s |" : "  %13s  %13s", rpt_duration(r->train.time_s, d, sizeof(d)),
				rpt_usd(r->train.usd_total, u, sizeof(u)));
		fputc('\n', out);
	}
	ties_line(out, m, res, !md);
}

/* A line's label: "model       " in text (values from column 12), "- model: "
 * in Markdown. */
static void label(FILE *out, const char *name, bool md)
{
	if (md)
		fprintf(out, "- %s: ", name);
	else
		fprintf(out, "%-12s", name);
}

/* What was searched, the same lines in text and Markdown: the model, the
 * cluster, the training run, the calibration and the objective. */
static void head(FILE *out, const struct search_meta *m, bool md)
{
	const char *sep = md ? ", " : "  ";

	label(out, "model", md);
	fprintf(out, "%s (%d layers, hidden %d%s)\n", m->model, m->layers, m->hidden, m->moe ? ", MoE" : "");
	label(out, "cluster", md);
	fprintf(out, "%d x %s = %d x %s, fabric %s\n", m->nodes, m->instance, m->gpus, m->gpu, m->fabric);
	label(out, "training", md);
	fprintf(out, "seq %d%sglobal batch %d%s%s", m->seq_len, sep, m->global_batch_seqs, sep,
		precision_name(m->precision));
	if (m->tokens > 0)
		fprintf(out, "%sbudget %.4g tokens", sep, m->tokens);
	fputc('\n', out);
	label(out, "calibration", md);
	fprintf(out, "%s\n", m->calibration);
	label(out, "objective", md);
	fprintf(out, "%s (best %d)\n", search_objective_name(m->objective), m->top);
}

/* The layouts counted, then (false) that none fits when no row is left. */
static bool layouts(FILE *out, const struct search_result *res, bool md)
{
	label(out, "layouts", md);
	fprintf(out, "%lld valid%s %lld out of memory, %lld predicted, %lld rejected\n\n", res->stats.layouts,
		md ? "," : ":", res->stats.oom, res->stats.predicted, res->stats.rejected);
	if (res->n_rows > 0)
		return true;
	fputs(md ? "No layout fits: every valid layout runs out of GPU memory.\n"
		 : "no layout fits: every valid layout runs out of GPU memory\n", out);
	return false;
}

static void text(FILE *out, const struct search_meta *m, const struct search_result *res)
{
	char sp[512];

	fprintf(out, "scenario    %s\n", m->scenario);
	head(out, m, false);
	price_text(out, m);
	space_text(m, sp, sizeof(sp));
	fputs("space       ", out);
	rpt_wrap(out, 12, "            ", sp, 100);
	if (m->shards > 1)
		fprintf(out, "shard       %d of %d (every %d-th layout from the %d-th)\n", m->shard, m->shards,
			m->shards, m->shard);
	if (!layouts(out, res, false))
		return;
	fprintf(out, "rank tie  tp  cp  pp vpp    dp  ep etp  mbs recompute zero schedule           step s     tokens/s  "
		"MFU %%  mem GiB free %%  bottleneck       $/M tok%s\n",
		m->tokens > 0 ? "    time to train  cost to train" : "");
	rows(out, m, res, false);
}

/* Add item under key to o; false, item freed, when o is NULL or it cannot. */
static bool adopt(cJSON *o, const char *key, cJSON *item)
{
	if (o && cJSON_AddItemToObject(o, key, item))
		return true;
	cJSON_Delete(item);
	return false;
}

/* JSONL, the form a shard writes and merge reads: a head line with the
 * part version and meta, a line per row, a tail line with the stats. */
static bool json_lines(FILE *out, cJSON *meta, cJSON *stats, const struct search_result *res)
{
	cJSON *head = cJSON_CreateObject(), *tail = cJSON_CreateObject();
	bool ok = head && cJSON_AddNumberToObject(head, "stepcast_search", SEARCH_PART_VERSION);

	ok = adopt(ok ? head : NULL, "meta", meta);
	ok = adopt(ok ? tail : NULL, "stats", stats);
	if (!ok) {
		cJSON_Delete(head);
		cJSON_Delete(tail);
		return false;
	}
	ok = rpt_json_print_line(out, head);
	for (int i = 0; ok && i < res->n_rows; i++)
		ok = rpt_json_print_line(out, search_row_to_json(&res->rows[i]));
	if (!ok) {
		cJSON_Delete(tail);
		return false;
	}
	return rpt_json_print_line(out, tail);
}

/* One JSON document: meta, stats, the confidence, the rows. */
static bool json_document(FILE *out, const struct search_meta *m, cJSON *meta, cJSON *stats,
			  const struct search_result *res)
{
	cJSON *root = cJSON_CreateObject(), *rows = NULL;
	bool ok = adopt(root, "meta", meta);

	ok = adopt(ok ? root : NULL, "stats", stats) && cJSON_AddNumberToObject(root, "confidence", m->confidence) &&
	     cJSON_AddNumberToObject(root, "tied_with_best", ties(res));
	if (ok)
		rows = cJSON_AddArrayToObject(root, "rows");
	for (int i = 0; rows && i < res->n_rows; i++) {
		cJSON *row = search_row_to_json(&res->rows[i]);

		if (row && !cJSON_AddBoolToObject(row, "tie_with_best", res->rows[i].tie_with_best)) {
			cJSON_Delete(row);
			row = NULL;
		}
		if (!row || !cJSON_AddItemToArray(rows, row)) {
			cJSON_Delete(row);
			rows = NULL;
		}
	}
	if (!rows) {
		cJSON_Delete(root);
		return false;
	}
	return rpt_json_print(out, root);
}

static bool json(FILE *out, const struct search_meta *m, const struct search_result *res,
		 bool lines)
{
	cJSON *meta = search_meta_to_json(m), *stats = search_stats_to_json(&res->stats);

	return lines ? json_lines(out, meta, stats, res) : json_document(out, m, meta, stats, res);
}

static void csv(FILE *out, const struct search_meta *m, const struct search_result *res)
{
	fprintf(out, "rank,tie_with_best,index,tp,cp,pp,vpp,dp,ep,etp,micro_batch_seqs,recompute,zero_stage,fsdp,"
		"schedule,step_time_s,tokens_per_s,mfu,memory_total_bytes,memory_capacity_bytes,"
		"memory_headroom,bottleneck");
	for (int i = 0; i < PART_COUNT; i++)
		fprintf(out, ",%s_s", step_part_name((enum step_part)i));
	fprintf(out, ",usd_per_h,usd_per_mtoken,time_to_train_s,gpu_hours,usd_to_train,goodput\n");
	for (int i = 0; i < res->n_rows; i++) {
		const struct search_row *r = &res->rows[i];
		const struct layout *l = &r->layout;

		fprintf(out, "%d,%s,%lld,%d,%d,%d,%d,%d,%d,%d,%d,%s,%d,%s,%s,%.10g,%.10g,%.10g,%.10g,%.10g,%.10g,%s",
			i + 1, r->tie_with_best ? "true" : "false", r->index, l->tp, l->cp, l->pp, l->vpp, l->dp, l->ep,
			l->etp > 0 ? l->etp : l->tp, r->micro_batch_seqs, recompute_name(r->recompute),
			l->fsdp ? 3 : l->zero_stage, l->fsdp ? "true" : "false",
			schedule_name(l->schedule), r->step_time_s, r->tokens_per_s, r->mfu,
			r->mem_total_bytes, r->mem_capacity_bytes, headroom(r),
			bottleneck_name(r->bottleneck));
		for (int k = 0; k < PART_COUNT; k++)
			fprintf(out, ",%.10g", r->part_s[k]);
		fprintf(out, ",%.10g,%.10g,%.10g,%.10g,%.10g,%.10g\n", m->usd_per_h,
			r->train.tokens > 0 ? r->train.usd_per_mtoken : r->usd_per_mtoken,
			r->train.time_s, r->train.gpu_hours, r->train.usd_total, r->train.goodput);
	}
}

static void md(FILE *out, const struct search_meta *m, const struct search_result *res)
{
	char sp[512], a[32];

	fputs("# Layout search: ", out);
	rpt_md_str(out, m->scenario);
	fprintf(out, "\n\n");
	head(out, m, true);
	if (m->price.sold_as == SOLD_AS_ULTRASERVER) {
		char opts[512];

		fprintf(out, "- price: %s %s/h for %d nodes in whole UltraServers; ", plan_pricing_name(m->pricing),
			rpt_usd(m->usd_per_h, a, sizeof(a)), m->nodes);
		rpt_md_str(out, rpt_price_options(&m->price, opts, sizeof(opts)));
		fprintf(out, " (%s, read %s); source: ", m->price.region, m->price.date);
	} else {
		fprintf(out, "- price: %s %s/h per instance (%s, read %s); source: ",
			plan_pricing_name(m->pricing),
			rpt_usd(m->pricing == PRICING_ON_DEMAND ? m->price.on_demand_usd_per_h
				: m->price.capacity_block_usd_per_h, a, sizeof(a)),
			m->price.region, m->price.date);
	}
	rpt_md_str(out, m->price.source);
	space_text(m, sp, sizeof(sp));
	fprintf(out, "\n- space: %s\n", sp);
	if (m->shards > 1)
		fprintf(out, "- shard: %d of %d\n", m->shard, m->shards);
	if (!layouts(out, res, true))
		return;
	fprintf(out, "| rank | tie | tp | cp | pp | vpp | dp | ep | etp | micro-batch | recompute | zero | schedule | "
		"step (s) | tokens/s | MFU | memory (GiB) | headroom | bottleneck | $/M tokens |%s\n",
		m->tokens > 0 ? " time to train | cost to train |" : "");
	fprintf(out, "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---:|---:|---:|---:|---:|---|---:|%s\n",
		m->tokens > 0 ? "---:|---:|" : "");
	rows(out, m, res, true);
}

bool rpt_search(FILE *out, const struct search_meta *meta, const struct search_result *res,
		enum rpt_search_format fmt)
{
	switch (fmt) {
	case RPT_SEARCH_TEXT: text(out, meta, res); return true;
	case RPT_SEARCH_JSON: return json(out, meta, res, false);
	case RPT_SEARCH_JSONL: return json(out, meta, res, true);
	case RPT_SEARCH_CSV: csv(out, meta, res); return true;
	case RPT_SEARCH_MD: md(out, meta, res); return true;
	}
	return false;
}
