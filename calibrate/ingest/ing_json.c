/* ing_json.c: the JSON inputs (see ingest.h): nccl-tests -J output, fio
 * --output-format=json, our own measurements; format detection and the
 * file-level entry points.
 *
 * nccl-tests' JSON writer (src/util.cu, JSON_FILE_VERSION 2) prints one
 * object: "version", "start_time", "args" (argv, argv[0] names the test),
 * "env", "nccl_version" (NCCL_VERSION_CODE), "config" {..., "devices": [
 * {rank, group, pid, hostname, device, device_hex, device_info}]},
 * "results": [ {size, count, type, redop, root (a padded string),
 * out_of_place: {time | cpu_time, alg_bw, bus_bw, nwrong} or null,
 * in_place: {...}, actual_iterations, experiment_name} ], "out_of_bounds",
 * "average_bus_bandwidth", "errors", "end_time".  Numbers are printed with
 * %lf, NaN as the string "nan", booleans as the strings "true"/"false".
 * Unknown keys are tolerated (the tool adds keys across versions); what we
 * use is checked strictly.
 *
 * fio (stat.c, show_run_stats json): "fio version", "global options",
 * "jobs": [ {jobname, error, "job options", read/write/trim: {io_bytes,
 * bw_bytes (or bw in KiB/s before fio 3.?), iops, runtime (ms), lat_ns {mean}
 * }} ].
 */
#include "ingest.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../../sim/config/cfg_json.h"
#include "../../models/units.h"

/* Line (1-based) of offset off in buf. */
static int line_of(const char *buf, size_t off)
{
	int line = 1;

	for (size_t i = 0; i < off; i++)
		line += buf[i] == '\n';
	return line;
}

/* Parse the JSON value at buf[start..len); when trailing is false only
 * whitespace may follow it.  Errors name the line in the whole buffer. */
static cJSON *parse_json(const char *name, const char *buf, size_t start, size_t len,
			 bool trailing, struct sc_error *err)
{
	const char *end = NULL;
	cJSON *root;

	if (memchr(buf + start, '\0', len - start)) {
		sc_error_set(err, SC_EINVAL, name, NULL, "not a JSON text: contains a NUL byte");
		return NULL;
	}
	/* strict text as for configs (sim/config/cfg_json.h); tool output may
	 * hold escaped newlines and tabs */
	if (cfg_check_text(name, buf + start, len - start, true, err) != SC_OK)
		return NULL;
	root = cJSON_ParseWithLengthOpts(buf + start, len - start, &end, false);
	if (!root) {
		size_t off = end && end >= buf + start && end <= buf + len ? (size_t)(end - buf) : len;
		char where[32];
		bool open;

		cfg_json_nesting(buf + start, len - start, &open);
		snprintf(where, sizeof(where), "line %d", line_of(buf, open ? len : off));
		sc_error_set(err, SC_EINVAL, name, where,
			     open ? "invalid JSON: the text ends inside an object or array (truncated file?)"
				  : "invalid JSON");
		return NULL;
	}
	if (!trailing && end) {
		const char *q = end;
		while (q < buf + len && isspace((unsigned char)*q))
			q++;
		if (q < buf + len) {
			char where[32];
			snprintf(where, sizeof(where), "line %d", line_of(buf, (size_t)(q - buf)));
			cJSON_Delete(root);
			sc_error_set(err, SC_EINVAL, name, where, "trailing characters after the JSON value");
			return NULL;
		}
	}
	if (!cJSON_IsObject(root)) {
		cJSON_Delete(root);
		sc_error_set(err, SC_EINVAL, name, "/", "expected a JSON object");
		return NULL;
	}
	return root;
}

/* Offset of the first line that starts with "{" (after blanks), or len. */
static size_t first_object_line(const char *buf, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t j = i;
		while (j < len && (buf[j] == ' ' || buf[j] == '\t'))
			j++;
		if (j < len && buf[j] == '{')
			return j;
		while (i < len && buf[i] != '\n')
			i++;
		i++;
	}
	return len;
}

/* A number member; "nan" strings (nccl-tests) count as absent. */
static enum sc_status get_num(const char *name, const cJSON *obj, const char *key,
			      const char *where, bool required, double *out, bool *found,
			      struct sc_error *err)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
	char w[SC_ERROR_PTR_MAX];

	if (found)
		*found = false;
	cfg_pointer_key(w, sizeof(w), where, key);
	if (!v || cJSON_IsNull(v) || (cJSON_IsString(v) && strcmp(v->valuestring, "nan") == 0)) {
		if (required)
			return sc_error_set(err, SC_EINVAL, name, v ? w : where,
					    v ? "expected a number, got %s" : "missing required key \"%s\"",
					    v ? (cJSON_IsNull(v) ? "null" : "\"nan\"") : key);
		return SC_OK;
	}
	if (!cJSON_IsNumber(v) || !isfinite(v->valuedouble))
		return sc_error_set(err, SC_EINVAL, name, w, "expected a finite number, got %s",
				    cfg_json_type_name(v));
	*out = v->valuedouble;
	if (found)
		*found = true;
	return SC_OK;
}

static enum sc_status nonneg(const char *name, const char *where, const char *key, double v,
			     struct sc_error *err)
{
	char w[SC_ERROR_PTR_MAX];

	/* finite too: a value that overflows on the way in (a bandwidth of
	 * 1e308 KiB/s times 1024) would be written as null and not read back */
	if (v >= 0 && isfinite(v))
		return SC_OK;
	cfg_pointer_key(w, sizeof(w), where, key);
	return sc_error_set(err, SC_EINVAL, name, w, "expected a finite non-negative number, got %g", v);
}

/* One "out_of_place"/"in_place" object into time, algbw, busbw, wrong. */
static enum sc_status nccl_half(const char *name, const cJSON *h, const char *where,
				double *time_s, double *alg, double *bus, double *wrong,
				struct sc_error *err)
{
	double t = 0;
	bool found;
	enum sc_status st;

	if (!cJSON_IsObject(h))
		return sc_error_set(err, SC_EINVAL, name, where, "expected an object or null, got %s",
				    cfg_json_type_name(h));
	if ((st = get_num(name, h, "time", where, false, &t, &found, err)) != SC_OK)
		return st;
	if (!found && (st = get_num(name, h, "cpu_time", where, true, &t, &found, err)) != SC_OK)
		return st;
	if ((st = nonneg(name, where, "time", t, err)) != SC_OK)
		return st;
	*time_s = t * 1e-6;
	if ((st = get_num(name, h, "alg_bw", where, false, alg, NULL, err)) != SC_OK ||
	    (st = nonneg(name, where, "alg_bw", *alg, err)) != SC_OK ||
	    (st = get_num(name, h, "bus_bw", where, false, bus, NULL, err)) != SC_OK ||
	    (st = nonneg(name, where, "bus_bw", *bus, err)) != SC_OK)
		return st;
	*wrong = -1;
	if ((st = get_num(name, h, "nwrong", where, false, wrong, &found, err)) != SC_OK)
		return st;
	if (found && *wrong < 0)
		return nonneg(name, where, "nwrong", *wrong, err);
	return SC_OK;
}

static const char *str_member(const cJSON *obj, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);

	return cJSON_IsString(v) ? v->valuestring : NULL;
}

enum sc_status cal_ingest_nccl_json(const char *name, const char *buf, size_t len,
				    const struct cal_ingest_opts *opts,
				    struct cal_measurements *out, struct sc_error *err)
{
	cJSON *root = parse_json(name, buf, 0, len, false, err);
	const cJSON *results, *cfg, *devices, *args, *r, *v;
	struct cal_curve c;
	enum sc_status st = SC_OK;
	char hosts[64][128];
	int n_hosts = 0, n_dev = 0, i = 0;

	if (!root)
		return SC_EINVAL;
	memset(&c, 0, sizeof(c));
	results = cJSON_GetObjectItemCaseSensitive(root, "results");
	if (!cJSON_IsArray(results)) {
		st = sc_error_set(err, SC_EINVAL, name, results ? "/results" : "/",
				  results ? "expected an array" : "missing required key \"results\"");
		goto out;
	}
	/* the collective: argv[0] is the test program */
	args = cJSON_GetObjectItemCaseSensitive(root, "args");
	v = cJSON_IsArray(args) ? cJSON_GetArrayItem(args, 0) : NULL;
	if (!(cJSON_IsString(v) && cal_op_normalise(v->valuestring, c.op, sizeof(c.op)))) {
		if (opts && opts->collective) {
			if (!cal_op_normalise(opts->collective, c.op, sizeof(c.op))) {
				st = sc_error_set(err, SC_EINVAL, name, NULL, "unknown collective \"%s\"",
						  opts->collective);
				goto out;
			}
		} else {
			st = sc_error_set(err, SC_EINVAL, name, "/args/0",
					  "cannot tell the collective from the program name: pass --collective");
			goto out;
		}
	}
	/* ranks and hosts: "devices" (in "config" in version 2, top level in some) */
	cfg = cJSON_GetObjectItemCaseSensitive(root, "config");
	devices = cJSON_IsObject(cfg) ? cJSON_GetObjectItemCaseSensitive(cfg, "devices") : NULL;
	if (!devices)
		devices = cJSON_GetObjectItemCaseSensitive(root, "devices");
	if (devices && !cJSON_IsArray(devices)) {
		st = sc_error_set(err, SC_EINVAL, name, "/config/devices", "expected an array");
		goto out;
	}
	cJSON_ArrayForEach(v, devices) {
		const char *h = str_member(v, "hostname"), *info = str_member(v, "device_info");
		bool seen = false;
		n_dev++;
		if (info && !c.gpu[0])
			snprintf(c.gpu, sizeof(c.gpu), "%s", info);
		if (!h)
			continue;
		for (int k = 0; k < n_hosts; k++)
			seen |= strncmp(hosts[k], h, sizeof(hosts[k]) - 1) == 0;
		if (!seen && n_hosts < 64)
			snprintf(hosts[n_hosts++], sizeof(hosts[0]), "%s", h);
	}
	c.ranks = opts && opts->ranks > 0 ? opts->ranks : n_dev;
	if (c.ranks <= 0) {
		st = sc_error_set(err, SC_EINVAL, name, "/config",
				  "no \"devices\" list to count the ranks: pass --ranks");
		goto out;
	}
	c.nodes = opts && opts->nodes > 0 ? opts->nodes : n_hosts;
	c.gpus_per_node = c.nodes > 0 && c.ranks % c.nodes == 0 ? c.ranks / c.nodes : 0;
	snprintf(c.source, sizeof(c.source), "%s", name);
	cJSON_ArrayForEach(r, results) {
		struct cal_coll_point p;
		char where[SC_ERROR_PTR_MAX], w[SC_ERROR_PTR_MAX];
		const cJSON *oop, *inp;
		const char *s;

		cfg_pointer_index(where, sizeof(where), "/results", i++);
		memset(&p, 0, sizeof(p));
		p.wrong = p.inplace_wrong = -1;
		if (!cJSON_IsObject(r)) {
			st = sc_error_set(err, SC_EINVAL, name, where, "expected an object");
			goto out;
		}
		if ((st = get_num(name, r, "size", where, true, &p.bytes, NULL, err)) != SC_OK ||
		    (st = nonneg(name, where, "size", p.bytes, err)) != SC_OK ||
		    (st = get_num(name, r, "count", where, false, &p.count, NULL, err)) != SC_OK ||
		    (st = nonneg(name, where, "count", p.count, err)) != SC_OK)
			goto out;
		if (i == 1) {
			if ((s = str_member(r, "type")))
				snprintf(c.dtype, sizeof(c.dtype), "%s", s);
			if ((s = str_member(r, "redop")))
				snprintf(c.redop, sizeof(c.redop), "%s", s);
		}
		oop = cJSON_GetObjectItemCaseSensitive(r, "out_of_place");
		inp = cJSON_GetObjectItemCaseSensitive(r, "in_place");
		if ((!oop || cJSON_IsNull(oop)) && (!inp || cJSON_IsNull(inp))) {
			st = sc_error_set(err, SC_EINVAL, name, where,
					  "neither \"out_of_place\" nor \"in_place\" results");
			goto out;
		}
		if (oop && !cJSON_IsNull(oop)) {
			cfg_pointer_key(w, sizeof(w), where, "out_of_place");
			if ((st = nccl_half(name, oop, w, &p.time_s, &p.algbw_GBps, &p.busbw_GBps,
					    &p.wrong, err)) != SC_OK)
				goto out;
		}
		if (inp && !cJSON_IsNull(inp)) {
			cfg_pointer_key(w, sizeof(w), where, "in_place");
			if ((st = nccl_half(name, inp, w, &p.inplace_time_s, &p.inplace_algbw_GBps,
					    &p.inplace_busbw_GBps, &p.inplace_wrong, err)) != SC_OK)
				goto out;
		}
		if (!(p.time_s > 0) && p.inplace_time_s > 0) {
			/* trace replay prints only in-place: use it as the main time */
			p.time_s = p.inplace_time_s;
			p.algbw_GBps = p.inplace_algbw_GBps;
			p.busbw_GBps = p.inplace_busbw_GBps;
			p.wrong = p.inplace_wrong;
		}
		if ((st = cal_curve_add_point(&c, &p, err)) != SC_OK)
			goto out;
	}
	if (c.n_points == 0) {
		st = sc_error_set(err, SC_EINVAL, name, "/results", "no results");
		goto out;
	}
	if ((st = cal_add_curve(out, &c, err)) != SC_OK)
		goto out;
	v = cJSON_GetObjectItemCaseSensitive(root, "nccl_version");
	if (cJSON_IsNumber(v) && v->valuedouble >= 20900 && v->valuedouble < 1e7 && !out->prov.nccl[0]) {
		long code = (long)v->valuedouble;
		snprintf(out->prov.nccl, sizeof(out->prov.nccl), "%ld.%ld.%ld", code / 10000,
			 code / 100 % 100, code % 100);
	}
	if (c.gpu[0] && !out->prov.gpu[0])
		snprintf(out->prov.gpu, sizeof(out->prov.gpu), "%s", c.gpu);
out:
	free(c.points);
	cJSON_Delete(root);
	return st;
}

/* fio sizes: "1M", "4k", "4096B", "128KiB", "1Mi", "4096": k = 1024 (fio's
 * default kb_base).  0 when it does not parse. */
static double fio_size(const char *s)
{
	char *end;
	double v;

	if (!s)
		return 0;
	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno || !isfinite(v) || v < 0)
		return 0;
	switch (tolower((unsigned char)*end)) {
	case '\0': case 'b': break;
	case 'k': v *= SC_KiB_BYTES; break;
	case 'm': v *= SC_MiB_BYTES; break;
	case 'g': v *= SC_GiB_BYTES; break;
	case 't': v *= SC_TiB_BYTES; break;
	default: return 0;
	}
	/* "1e308t" overflows to infinity, which JSON cannot hold: unknown
	 * (found by fuzz_ingest_fio) */
	return isfinite(v) ? v : 0;
}

/* fio writes option values as strings; look in the job's options, then the
 * global ones. */
static const char *fio_option(const cJSON *job, const cJSON *global, const char *key)
{
	const char *v = str_member(cJSON_GetObjectItemCaseSensitive(job, "job options"), key);

	return v ? v : str_member(global, key);
}

enum sc_status cal_ingest_fio(const char *name, const char *buf, size_t len,
			      struct cal_measurements *out, struct sc_error *err)
{
	size_t start = first_object_line(buf, len);
	cJSON *root;
	const cJSON *jobs, *job, *global, *ver;
	enum sc_status st = SC_OK;
	int i = 0, added = 0;

	if (start >= len)
		return sc_error_set(err, SC_EINVAL, name, NULL,
				    "no JSON object in the file (expected fio --output-format=json)");
	if (!(root = parse_json(name, buf, start, len, true, err)))
		return SC_EINVAL;
	ver = cJSON_GetObjectItemCaseSensitive(root, "fio version");
	jobs = cJSON_GetObjectItemCaseSensitive(root, "jobs");
	global = cJSON_GetObjectItemCaseSensitive(root, "global options");
	if (!cJSON_IsString(ver)) {
		st = sc_error_set(err, SC_EINVAL, name, "/", "missing \"fio version\": not fio JSON output");
		goto out;
	}
	if (!cJSON_IsArray(jobs)) {
		st = sc_error_set(err, SC_EINVAL, name, jobs ? "/jobs" : "/",
				  jobs ? "expected an array" : "missing required key \"jobs\"");
		goto out;
	}
	cJSON_ArrayForEach(job, jobs) {
		static const char *const dirs[] = { "read", "write", "trim" };
		char where[SC_ERROR_PTR_MAX], w[SC_ERROR_PTR_MAX];
		const char *jobname = str_member(job, "jobname");
		double e = 0;

		cfg_pointer_index(where, sizeof(where), "/jobs", i++);
		if (!cJSON_IsObject(job)) {
			st = sc_error_set(err, SC_EINVAL, name, where, "expected an object");
			goto out;
		}
		if (!jobname || !jobname[0]) {
			/* a measurement names its job (the profile's storage rows do) */
			st = sc_error_set(err, SC_EINVAL, name, where,
					  jobname ? "empty \"jobname\"" : "missing \"jobname\"");
			goto out;
		}
		if ((st = get_num(name, job, "error", where, false, &e, NULL, err)) != SC_OK)
			goto out;
		if (e != 0) {
			cfg_pointer_key(w, sizeof(w), where, "error");
			st = sc_error_set(err, SC_EINVAL, name, w, "fio job \"%s\" failed with error %g",
					  jobname, e);
			goto out;
		}
		for (int d = 0; d < 3; d++) {
			const cJSON *sec = cJSON_GetObjectItemCaseSensitive(job, dirs[d]), *lat;
			struct cal_storage_point p;
			double io = 0, bw = 0, kib = 0, ms = 0, mean = 0;
			bool has_bw;
			const char *o;

			if (!sec)
				continue;
			cfg_pointer_key(w, sizeof(w), where, dirs[d]);
			if (!cJSON_IsObject(sec)) {
				st = sc_error_set(err, SC_EINVAL, name, w, "expected an object");
				goto out;
			}
			if ((st = get_num(name, sec, "io_bytes", w, true, &io, NULL, err)) != SC_OK ||
			    (st = nonneg(name, w, "io_bytes", io, err)) != SC_OK)
				goto out;
			if (io <= 0)
				continue; /* this job did not do that direction */
			memset(&p, 0, sizeof(p));
			if ((st = get_num(name, sec, "bw_bytes", w, false, &bw, &has_bw, err)) != SC_OK)
				goto out;
			if (!has_bw) {
				if ((st = get_num(name, sec, "bw", w, true, &kib, NULL, err)) != SC_OK)
					goto out;
				bw = kib * 1024.0; /* KiB/s */
			}
			if ((st = nonneg(name, w, has_bw ? "bw_bytes" : "bw", bw, err)) != SC_OK ||
			    (st = get_num(name, sec, "iops", w, false, &p.iops, NULL, err)) != SC_OK ||
			    (st = nonneg(name, w, "iops", p.iops, err)) != SC_OK ||
			    (st = get_num(name, sec, "runtime", w, false, &ms, NULL, err)) != SC_OK ||
			    (st = nonneg(name, w, "runtime", ms, err)) != SC_OK)
				goto out;
			lat = cJSON_GetObjectItemCaseSensitive(sec, "lat_ns");
			if (cJSON_IsObject(lat)) {
				char lw[SC_ERROR_PTR_MAX];
				cfg_pointer_key(lw, sizeof(lw), w, "lat_ns");
				if ((st = get_num(name, lat, "mean", lw, false, &mean, NULL, err)) != SC_OK ||
				    (st = nonneg(name, lw, "mean", mean, err)) != SC_OK)
					goto out;
			}
			snprintf(p.job, sizeof(p.job), "%s", jobname);
			snprintf(p.direction, sizeof(p.direction), "%s", dirs[d]);
			if ((o = fio_option(job, global, "rw")) || (o = fio_option(job, global, "readwrite")))
				snprintf(p.rw, sizeof(p.rw), "%s", o);
			p.bs_bytes = fio_size(fio_option(job, global, "bs"));
			if ((o = fio_option(job, global, "numjobs")))
				p.numjobs = (int)fmin(fmax(strtod(o, NULL), 0), 1e6);
			if ((o = fio_option(job, global, "iodepth")))
				p.iodepth = (int)fmin(fmax(strtod(o, NULL), 0), 1e6);
			p.bw_Bps = bw;
			p.io_bytes = io;
			p.runtime_s = ms * 1e-3;
			p.lat_mean_s = mean * 1e-9;
			if ((st = cal_add_storage(out, &p, err)) != SC_OK)
				goto out;
			added++;
		}
	}
	if (added == 0)
		st = sc_error_set(err, SC_EINVAL, name, "/jobs", "no job moved any data");
out:
	cJSON_Delete(root);
	return st;
}

enum sc_status cal_ingest_bench(const char *name, const char *buf, size_t len,
				struct cal_measurements *out, struct sc_error *err)
{
	cJSON *root = parse_json(name, buf, 0, len, false, err);
	enum sc_status st;

	if (!root)
		return SC_EINVAL;
	st = cal_measurements_read(name, root, out, err);
	cJSON_Delete(root);
	return st;
}

SC_ENUM_DEFINE(cal_format_name, enum cal_format, cal_format_names, CAL_FORMAT_LIST)

bool cal_format_parse(const char *s, enum cal_format *out)
{
	for (int f = CAL_FMT_AUTO; f <= CAL_FMT_BENCH; f++)
		if (strcmp(s, cal_format_name((enum cal_format)f)) == 0) {
			*out = (enum cal_format)f;
			return true;
		}
	return false;
}

/* A key "key" (with its quotes) anywhere in buf[0..len). */
static bool has_key(const char *buf, size_t len, const char *key)
{
	size_t k = strlen(key);

	for (size_t i = 0; i + k <= len; i++)
		if (buf[i] == '"' && memcmp(buf + i, key, k) == 0)
			return true;
	return false;
}

enum cal_format cal_detect_format(const char *buf, size_t len)
{
	size_t start = first_object_line(buf, len);
	size_t i = 0;

	if (start < len) {
		const char *j = buf + start;
		size_t n = len - start;
		if (has_key(j, n, "\"fio version\""))
			return CAL_FMT_FIO;
		if (has_key(j, n, "\"stepcast-measurements\""))
			return CAL_FMT_BENCH;
		if (has_key(j, n, "\"results\"") || has_key(j, n, "\"nccl_version\""))
			return CAL_FMT_NCCL_JSON;
	}
	/* text: a "#  size  count  type" column header somewhere */
	while (i < len) {
		size_t e = i;
		while (e < len && buf[e] != '\n')
			e++;
		for (size_t q = i; q + 1 < e; q++) {
			if (buf[q] == '#') {
				size_t r = q + 1;
				while (r < e && (buf[r] == ' ' || buf[r] == '\t'))
					r++;
				if (e - r >= 4 && memcmp(buf + r, "size", 4) == 0)
					return CAL_FMT_NCCL_TEXT;
				break;
			}
		}
		i = e + 1;
	}
	return CAL_FMT_AUTO;
}

enum sc_status cal_ingest_buffer(const char *name, const char *buf, size_t len,
				 enum cal_format fmt, const struct cal_ingest_opts *opts,
				 struct cal_measurements *out, struct sc_error *err)
{
	if ((long)len > CAL_INGEST_MAX_BYTES)
		return sc_error_set(err, SC_EINVAL, name, NULL, "file is %zu bytes, more than the %ld-byte limit",
				    len, CAL_INGEST_MAX_BYTES);
	if (fmt == CAL_FMT_AUTO)
		fmt = cal_detect_format(buf, len);
	switch (fmt) {
	case CAL_FMT_NCCL_TEXT: return cal_ingest_nccl_text(name, buf, len, opts, out, err);
	case CAL_FMT_NCCL_JSON: return cal_ingest_nccl_json(name, buf, len, opts, out, err);
	case CAL_FMT_FIO: return cal_ingest_fio(name, buf, len, out, err);
	case CAL_FMT_BENCH: return cal_ingest_bench(name, buf, len, out, err);
	case CAL_FMT_AUTO: break;
	}
	{
		/* a JSON object we cannot place: a syntax error says more */
		size_t start = first_object_line(buf, len);
		cJSON *root = start < len ? parse_json(name, buf, start, len, true, err) : NULL;
		if (start < len && !root)
			return SC_EINVAL;
		cJSON_Delete(root);
	}
	return sc_error_set(err, SC_EINVAL, name, NULL,
			    "cannot tell the format (not nccl-tests text or JSON, fio JSON or "
			    "stepcast measurements): pass --format");
}

#define STREAM_PROBE_BYTES ((size_t)1 << 20)

enum sc_status cal_ingest_file(const char *path, enum cal_format fmt,
			       const struct cal_ingest_opts *opts,
			       struct cal_measurements *out, struct sc_error *err)
{
	struct stat sb;
	FILE *f;
	char *buf;
	size_t n, head_len;
	enum sc_status st;

	if (stat(path, &sb) != 0)
		return sc_error_set(err, SC_EIO, path, NULL, "cannot read: %s", strerror(errno));
	if (!S_ISREG(sb.st_mode))
		return sc_error_set(err, SC_EIO, path, NULL, "not a regular file");
	if (sb.st_size > CAL_INGEST_MAX_BYTES)
		return sc_error_set(err, SC_EINVAL, path, NULL,
				    "file is %lld bytes, more than the %ld-byte limit",
				    (long long)sb.st_size, CAL_INGEST_MAX_BYTES);
	if (!(f = fopen(path, "rb")))
		return sc_error_set(err, SC_EIO, path, NULL, "cannot read: %s", strerror(errno));
	/* A text log is parsed as it is read, so that its memory is its rows
	 * (CAL_MAX_ROWS), not its bytes: a 128 MiB log of NCCL INFO chatter
	 * costs a line buffer.  The format is told from the first
	 * STREAM_PROBE_BYTES (a log whose first table comes later, or a JSON
	 * text, is read whole as before). */
	head_len = (size_t)sb.st_size < STREAM_PROBE_BYTES ? (size_t)sb.st_size : STREAM_PROBE_BYTES;
	buf = malloc(head_len + 1);
	if (!buf) {
		fclose(f);
		return sc_error_set(err, SC_ENOMEM, path, NULL, "out of memory");
	}
	n = fread(buf, 1, head_len, f);
	if (ferror(f)) {
		free(buf);
		fclose(f);
		return sc_error_set(err, SC_EIO, path, NULL, "read error");
	}
	if ((size_t)sb.st_size > head_len &&
	    (fmt == CAL_FMT_NCCL_TEXT ||
	     (fmt == CAL_FMT_AUTO && first_object_line(buf, n) >= n &&
	      cal_detect_format(buf, n) == CAL_FMT_NCCL_TEXT))) {
		free(buf);
		rewind(f);
		st = cal_ingest_nccl_text_stream(path, f, opts, out, err);
		fclose(f);
		goto done;
	}
	if ((size_t)sb.st_size > head_len) {
		char *whole = realloc(buf, (size_t)sb.st_size + 1);

		if (!whole) {
			free(buf);
			fclose(f);
			return sc_error_set(err, SC_ENOMEM, path, NULL, "out of memory");
		}
		buf = whole;
		n += fread(buf + n, 1, (size_t)sb.st_size - n, f);
		if (ferror(f)) {
			free(buf);
			fclose(f);
			return sc_error_set(err, SC_EIO, path, NULL, "read error");
		}
	}
	fclose(f);
	st = cal_ingest_buffer(path, buf, n, fmt, opts, out, err);
	free(buf);
done:
	if (st == SC_OK) {
		size_t len = strlen(out->prov.inputs);
		if (!strstr(out->prov.inputs, path))
			snprintf(out->prov.inputs + len, sizeof(out->prov.inputs) - len, "%s%s",
				 len ? ", " : "", path);
	}
	return st;
}

enum sc_status cal_ingest_files(char *const *paths, int n, enum cal_format fmt,
				const struct cal_ingest_opts *opts, struct cal_measurements *out,
				struct sc_error *err)
{
	enum sc_status st = SC_OK;

	for (int i = 0; i < n && st == SC_OK; i++) {
		sc_error_clear(err);
		st = cal_ingest_file(paths[i], fmt, opts, out, err);
	}
	return st;
}
