/* des_trace.c: a simulated step's timeline as Chrome trace-event JSON (see
 * des.h), the format ui.perfetto.dev and chrome://tracing load: an object
 * with "traceEvents", complete events ("ph":"X", "ts" and "dur" in
 * microseconds) and metadata events naming processes and threads
 * (https://docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU).
 * One process per simulated GPU (sorted by rank), one thread per stream:
 * compute (forward, backward, bubble, exposed communication, optimizer),
 * DP, PP and CP/EP communication.
 */
#include "des_internal.h"

#include <math.h>
#include <stdio.h>

static const char *const track_name[4] = { "compute", "dp stream", "pp stream", "cp/ep flows" };

static const char *category(enum des_ev_kind k)
{
	switch (k) {
	case DES_EV_FORWARD: case DES_EV_BACKWARD: case DES_EV_OPTIMIZER: case DES_EV_INTERFERENCE:
		return "compute";
	case DES_EV_BUBBLE:
		return "idle";
	case DES_EV_OVERHEAD:
		return "overhead";
	default:
		return "communication";
	}
}

bool des_trace_write(FILE *out, const struct scenario *sc, const struct des_result *r)
{
	struct layout_info li;
	int stage_size = layout_derive(sc, NULL, &li, NULL) == SC_OK ? li.stage_gpus
			 : sc->layout.tp * sc->layout.cp * sc->layout.dp;
	int gpn = sc->cluster.instance.gpus_per_node > 0 ? sc->cluster.instance.gpus_per_node : 1;
	int fold = r->stats.fold > 0 ? r->stats.fold : 1;
	bool first = true;

	fprintf(out, "{\"displayTimeUnit\":\"ms\",\"otherData\":{\"engine\":\"stepcast des (SimGrid 3.32)\","
		"\"step_time_s\":%.9g,\"simulated_gpus\":%d,\"gpus\":%d},\"traceEvents\":[\n",
		r->step.step_time_s, r->stats.simulated_gpus, r->stats.gpus);
	for (int i = 0; i < r->stats.simulated_gpus; i++) {
		int rank = i * fold;

		fprintf(out, "%s{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":"
			"\"gpu %d (node %d, pp stage %d)%s\"}}\n",
			first ? "" : ",", rank, rank, rank / gpn, stage_size > 0 ? rank / stage_size : 0,
			fold > 1 ? " for its tp group" : "");
		first = false;
		fprintf(out, ",{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"sort_index\":%d}}\n",
			rank, rank);
		for (int t = 0; t < 4; t++)
			fprintf(out, ",{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"%s\"}}\n",
				rank, t, track_name[t]);
	}
	for (long long k = 0; k < r->n_events; k++) {
		const struct des_event *e = &r->events[k];
		enum des_ev_kind kind = (enum des_ev_kind)e->kind;
		long long t0_ns, dur_ns;
		char name[64];

		if (kind == DES_EV_FORWARD || kind == DES_EV_BACKWARD)
			snprintf(name, sizeof(name), "%c mb%d chunk%d", kind == DES_EV_FORWARD ? 'F' : 'B',
				 e->mb, e->chunk);
		else if (kind == DES_EV_DP_JOB)
			snprintf(name, sizeof(name), "dp collective %d (chunk %d)", e->mb, e->chunk);
		else if (e->mb >= 0)
			snprintf(name, sizeof(name), "%s mb%d chunk%d", des_ev_kind_name(kind), e->mb, e->chunk);
		else
			snprintf(name, sizeof(name), "%s", des_ev_kind_name(kind));
		/* whole nanoseconds, so that consecutive slices of a thread
		 * meet exactly and nest as the format requires */
		t0_ns = llround(e->t0_s * 1e9);
		dur_ns = llround(e->t1_s * 1e9) - t0_ns;
		fprintf(out, "%s{\"name\":\"%s\",\"cat\":\"%s\",\"ph\":\"X\",\"ts\":%lld.%03lld,"
			"\"dur\":%lld.%03lld,\"pid\":%d,\"tid\":%d}\n",
			first ? "" : ",", name, category(kind), t0_ns / 1000, t0_ns % 1000,
			dur_ns / 1000, dur_ns % 1000, e->rank, e->track);
		first = false;
	}
	fprintf(out, "]}\n");
	return !ferror(out);
}
