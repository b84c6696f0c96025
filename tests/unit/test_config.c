/* test_config.c: unit tests of the strict config reader (sim/config).
 *
 * did-you-mean, JSON pointer escaping, integer and range checks, nullable
 * fields, the 64 MiB limit, parse-error positions, duplicate keys, the
 * catalogue in configs/ and a scenario read against it.  Runs from the repo
 * root (ctest's working directory).
 */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sim/config/catalog_load.h"
#include "sim/config/cfg_json.h"
#include "sim/config/scenario_load.h"
#include "sc_test.h"

struct probe {
	int count;
	double ratio;
	double maybe;
	bool flag;
	char label[8];
	int mode;
	struct {
		int depth;
	} inner;
};

static const char *const probe_modes[] = { "fast", "slow", NULL };

static const struct cfg_field probe_inner_fields[] = {
	{ "depth", CFG_INT, CFG_REQUIRED | CFG_NONNEG, 0, 0, NULL, NULL, NULL, 0, 0, "depth", 0, 0 },
	CFG_END
};

static const struct cfg_field probe_fields[] = {
	CFG_F_INT(struct probe, count, CFG_REQUIRED | CFG_POSITIVE, "a positive integer"),
	CFG_F_NUM_RANGE(struct probe, ratio, 0, 0.0, 1.0, "a fraction"),
	CFG_F_NUM(struct probe, maybe, CFG_POSITIVE | CFG_NULLABLE, "optional, null allowed"),
	CFG_F_BOOL(struct probe, flag, 0, "a flag"),
	CFG_F_STR(struct probe, label, 0, "a short string"),
	CFG_F_ENUM(struct probe, mode, 0, probe_modes, "fast or slow"),
	CFG_F_OBJ(struct probe, inner, 0, probe_inner_fields, "nested"),
	CFG_END
};

static struct sc_error err;
static struct probe pr;

/* Parse text and read it as a probe; returns the status (err holds the
 * message).  pr is zeroed first. */
static enum sc_status read_probe(const char *text)
{
	struct cfg_reader rd = { "probe.json", &err, NULL };
	cJSON *root;
	enum sc_status st;

	memset(&pr, 0, sizeof(pr));
	sc_error_clear(&err);
	root = cfg_parse_buffer("probe.json", text, strlen(text), &err);
	if (!root)
		return err.status;
	st = cfg_read_object(&rd, root, probe_fields, &pr, "");
	cJSON_Delete(root);
	return st;
}

static void test_did_you_mean(void)
{
	static const char *const keys[] = { "tp", "pp", "vpp", "dp", "cp", "ep",
					    "zero_stage", "sequence_parallel", NULL };

	CHECK_STR(cfg_did_you_mean("tpp", keys), "tp");
	CHECK_STR(cfg_did_you_mean("zero-stage", keys), "zero_stage");
	CHECK_STR(cfg_did_you_mean("sequence_paralel", keys), "sequence_parallel");
	CHECK_STR(cfg_did_you_mean("dp", keys), "dp");
	/* Too far from everything: no suggestion. */
	CHECK(cfg_did_you_mean("banana", keys) == NULL);
	CHECK(cfg_did_you_mean("warmup_steps", keys) == NULL);
	/* Very long words do not overflow the distance table. */
	{
		char longword[300];
		memset(longword, 'x', sizeof(longword) - 1);
		longword[sizeof(longword) - 1] = '\0';
		CHECK(cfg_did_you_mean(longword, keys) == NULL);
	}
	{
		static const char *const none[] = { NULL };
		CHECK(cfg_did_you_mean("tp", none) == NULL);
	}

	CHECK(read_probe("{\"count\": 1, \"cuont\": 2}") == SC_EINVAL);
	CHECK_STR(err.pointer, "/cuont");
	CHECK_STR(err.message, "unknown key \"cuont\" (did you mean \"count\"?)");
	CHECK(read_probe("{\"count\": 1, \"inner\": {\"dpeth\": 1}}") == SC_EINVAL);
	CHECK_STR(err.pointer, "/inner/dpeth");
	CHECK_STR(err.message, "unknown key \"dpeth\" (did you mean \"depth\"?)");
	CHECK(read_probe("{\"count\": 1, \"something_else\": 2}") == SC_EINVAL);
	CHECK_STR(err.message, "unknown key \"something_else\"");
	CHECK(read_probe("{\"count\": 1, \"mode\": \"fsat\"}") == SC_EINVAL);
	CHECK_STR(err.pointer, "/mode");
	CHECK_STR(err.message, "unknown value \"fsat\" (did you mean \"fast\"?)");
	CHECK(read_probe("{\"count\": 1, \"mode\": \"medium\"}") == SC_EINVAL);
	CHECK_STR(err.message, "unknown value \"medium\"; expected one of \"fast\", \"slow\"");
}

static void test_pointer_escaping(void)
{
	char out[64];

	cfg_pointer_key(out, sizeof(out), "", "a");
	CHECK_STR(out, "/a");
	cfg_pointer_key(out, sizeof(out), "/layout", "a/b~c");
	CHECK_STR(out, "/layout/a~1b~0c");
	cfg_pointer_key(out, sizeof(out), "", "~1");
	CHECK_STR(out, "/~01");
	cfg_pointer_key(out, sizeof(out), "", "");
	CHECK_STR(out, "/");
	cfg_pointer_index(out, sizeof(out), "/gpus", 3);
	CHECK_STR(out, "/gpus/3");
	/* Truncation stays NUL-terminated inside the buffer. */
	{
		char small[6];
		memset(small, 'x', sizeof(small));
		cfg_pointer_key(small, sizeof(small), "/abc", "~~~~~~");
		CHECK(memchr(small, '\0', sizeof(small)) != NULL);
	}

	/* An unknown key's pointer is escaped too. */
	CHECK(read_probe("{\"count\": 1, \"x/y~z\": 2}") == SC_EINVAL);
	CHECK_STR(err.pointer, "/x~1y~0z");
	CHECK_STR(err.message, "unknown key \"x/y~z\"");
}

static void test_integers(void)
{
	CHECK(read_probe("{\"count\": 3}") == SC_OK);
	CHECK(pr.count == 3);
	CHECK(read_probe("{\"count\": 3.0}") == SC_OK);
	CHECK(pr.count == 3);
	CHECK(read_probe("{\"count\": 3e2}") == SC_OK);
	CHECK(pr.count == 300);
	CHECK(read_probe("{\"count\": 2147483647}") == SC_OK);
	CHECK(pr.count == INT_MAX);

	CHECK(read_probe("{\"count\": 3.5}") == SC_EINVAL);
	CHECK_STR(err.pointer, "/count");
	CHECK_STR(err.message, "expected an integer, got 3.5");
	CHECK(read_probe("{\"count\": 2147483648}") == SC_EINVAL);
	CHECK_STR(err.message, "integer 2147483648 is out of range (-2147483648 to 2147483647)");
	CHECK(read_probe("{\"count\": 1e300}") == SC_EINVAL);
	CHECK_STR(err.message, "integer 1e+300 is out of range (-2147483648 to 2147483647)");
	CHECK(read_probe("{\"count\": 0}") == SC_EINVAL);
	CHECK_STR(err.message, "expected a positive number, got 0");
	CHECK(read_probe("{\"count\": -4}") == SC_EINVAL);
	CHECK_STR(err.message, "expected a positive number, got -4");
	CHECK(read_probe("{\"count\": \"4\"}") == SC_EINVAL);
	CHECK_STR(err.message, "expected a number, got a string");
	CHECK(read_probe("{\"count\": true}") == SC_EINVAL);
	CHECK_STR(err.message, "expected a number, got a boolean");
	CHECK(read_probe("{\"count\": 1e999}") == SC_EINVAL);
	CHECK_STR(err.message, "expected a finite number, got inf");
	CHECK(read_probe("{\"count\": -1e999}") == SC_EINVAL);
	CHECK_STR(err.message, "expected a finite number, got -inf");

	/* Non-negative nested integer: 0 is fine, -1 is not. */
	CHECK(read_probe("{\"count\": 1, \"inner\": {\"depth\": 0}}") == SC_OK);
	CHECK(read_probe("{\"count\": 1, \"inner\": {\"depth\": -1}}") == SC_EINVAL);
	CHECK_STR(err.pointer, "/inner/depth");
	CHECK_STR(err.message, "expected a non-negative number, got -1");
}

static void test_ranges_and_types(void)
{
	CHECK(read_probe("{\"count\": 1, \"ratio\": 0}") == SC_OK);
	CHECK(read_probe("{\"count\": 1, \"ratio\": 1}") == SC_OK);
	CHECK(read_probe("{\"count\": 1, \"ratio\": 1.5}") == SC_EINVAL);
	CHECK_STR(err.message, "expected a number from 0 to 1, got 1.5");
	CHECK(read_probe("{\"count\": 1, \"flag\": 1}") == SC_EINVAL);
	CHECK_STR(err.message, "expected true or false, got a number");
	CHECK(read_probe("{\"count\": 1, \"label\": \"1234567\"}") == SC_OK);
	CHECK_STR(pr.label, "1234567");
	CHECK(read_probe("{\"count\": 1, \"label\": \"12345678\"}") == SC_EINVAL);
	CHECK_STR(err.message, "string too long (8 characters; at most 7)");
	CHECK(read_probe("{\"count\": 1, \"label\": 7}") == SC_EINVAL);
	CHECK_STR(err.message, "expected a string, got a number");
	CHECK(read_probe("{\"count\": 1, \"inner\": [1]}") == SC_EINVAL);
	CHECK_STR(err.pointer, "/inner");
	CHECK_STR(err.message, "expected an object, got an array");
	CHECK(read_probe("{\"count\": 1, \"mode\": 1}") == SC_EINVAL);
	CHECK_STR(err.message, "expected one of \"fast\", \"slow\", got a number");
	CHECK(read_probe("[]") == SC_EINVAL);
	CHECK_STR(err.pointer, "/");
	CHECK_STR(err.message, "expected an object, got an array");
	CHECK(read_probe("{}") == SC_EINVAL);
	CHECK_STR(err.pointer, "/");
	CHECK_STR(err.message, "missing required key \"count\"");
	CHECK(read_probe("{\"count\": 1, \"inner\": {}}") == SC_EINVAL);
	CHECK_STR(err.pointer, "/inner");
	CHECK_STR(err.message, "missing required key \"depth\"");
	CHECK(read_probe("{\"count\": 1, \"count\": 2}") == SC_EINVAL);
	CHECK_STR(err.pointer, "/count");
	CHECK_STR(err.message, "duplicate key \"count\"");
}

static void test_nullable(void)
{
	/* null on a nullable field means "not given": dst keeps its value. */
	CHECK(read_probe("{\"count\": 1, \"maybe\": null}") == SC_OK);
	CHECK(pr.maybe == 0);
	CHECK(read_probe("{\"count\": 1, \"maybe\": 2.5}") == SC_OK);
	CHECK(pr.maybe == 2.5);
	CHECK(read_probe("{\"count\": 1, \"maybe\": 0}") == SC_EINVAL);
	CHECK_STR(err.message, "expected a positive number, got 0");
	/* null elsewhere is a type error, or a missing key when required. */
	CHECK(read_probe("{\"count\": 1, \"ratio\": null}") == SC_EINVAL);
	CHECK_STR(err.pointer, "/ratio");
	CHECK_STR(err.message, "expected a number, got null");
	CHECK(read_probe("{\"count\": null}") == SC_EINVAL);
	CHECK_STR(err.message, "expected a number, got null");
	{
		static const struct cfg_field req_null[] = {
			{ "v", CFG_DOUBLE, CFG_REQUIRED | CFG_NULLABLE, 0, 0, NULL, NULL, NULL, 0, 0, "v", 0, 0 },
			CFG_END
		};
		struct cfg_reader rd = { "n.json", &err, NULL };
		double v = 7;
		cJSON *root = cJSON_Parse("{\"v\": null}");
		sc_error_clear(&err);
		CHECK(cfg_read_object(&rd, root, req_null, &v, "") == SC_EINVAL);
		CHECK_STR(err.message, "missing required key \"v\"");
		cJSON_Delete(root);
	}
	/* The catalogue's optional numbers are nullable: a GPU without FP8. */
	{
		struct cfg_reader rd = { "m.json", &err, NULL };
		struct model_arch m;
		const char *text =
			"{\"name\": \"t\", \"layers\": 2, \"hidden\": 64, \"ffn_hidden\": 128,"
			" \"heads\": 4, \"kv_heads\": 2, \"head_dim\": null, \"vocab\": 100,"
			" \"gated_mlp\": false, \"activation\": \"gelu\", \"tied_embeddings\": true,"
			" \"experts\": null, \"source\": \"test\"}";
		cJSON *root = cfg_parse_buffer("m.json", text, strlen(text), &err);
		CHECK(root != NULL);
		sc_error_clear(&err);
		CHECK(cfg_read_model(&rd, root, &m, "") == SC_OK);
		CHECK(m.head_dim == 0 && m.experts == 0);
		CHECK(model_head_dim(&m) == 16);
		cJSON_Delete(root);
	}
}

static void test_parse_errors(void)
{
	const char *text;

	sc_error_clear(&err);
	text = "{\n  \"a\": ,\n}";
	CHECK(cfg_parse_buffer("p.json", text, strlen(text), &err) == NULL);
	CHECK(err.status == SC_EINVAL);
	CHECK_STR(err.file, "p.json");
	CHECK_STR(err.message, "invalid JSON near line 2, column 8");

	sc_error_clear(&err);
	text = "{} {}";
	CHECK(cfg_parse_buffer("p.json", text, strlen(text), &err) == NULL);
	CHECK_STR(err.message, "trailing characters after the JSON value at line 1, column 4");

	/* Whitespace after the value is fine. */
	{
		cJSON *root;
		sc_error_clear(&err);
		text = "{}\n \t\r\n";
		root = cfg_parse_buffer("p.json", text, strlen(text), &err);
		CHECK(root != NULL);
		cJSON_Delete(root);
	}

	sc_error_clear(&err);
	CHECK(cfg_parse_buffer("p.json", "{\"a\":\0}", 7, &err) == NULL);
	CHECK_STR(err.message, "not a JSON text: contains a NUL byte");

	/* The buffer need not be NUL-terminated: only len bytes are read. */
	{
		char buf[4] = { '[', '1', ']', 'x' };
		cJSON *root;
		sc_error_clear(&err);
		root = cfg_parse_buffer("p.json", buf, 3, &err);
		CHECK(root != NULL && cJSON_IsArray(root));
		cJSON_Delete(root);
	}

	sc_error_clear(&err);
	CHECK(cfg_parse_file("tests/unit/no-such-file.json", &err) == NULL);
	CHECK(err.status == SC_EIO);
	CHECK_STR(err.message, "cannot read: No such file or directory");
	sc_error_clear(&err);
	CHECK(cfg_parse_file("tests/unit", &err) == NULL);
	CHECK(err.status == SC_EIO);
	CHECK_STR(err.message, "is a directory, not a file");
}

/* The limit is on the length: CFG_MAX_FILE_BYTES parses, one more does not. */
static void test_size_limit(void)
{
	size_t n = (size_t)CFG_MAX_FILE_BYTES + 1;
	char *buf = malloc(n);
	cJSON *root;
	char want[128];

	CHECK(buf != NULL);
	if (!buf)
		return;
	memset(buf, ' ', n);
	buf[0] = '{';
	buf[n - 2] = '}';
	sc_error_clear(&err);
	root = cfg_parse_buffer("big.json", buf, n - 1, &err);
	CHECK(root != NULL);
	cJSON_Delete(root);

	sc_error_clear(&err);
	CHECK(cfg_parse_buffer("big.json", buf, n, &err) == NULL);
	CHECK(err.status == SC_EINVAL);
	snprintf(want, sizeof(want), "file is %zu bytes, more than the %ld-byte limit", n,
		 CFG_MAX_FILE_BYTES);
	CHECK_STR(err.message, want);
	free(buf);
}

static void test_catalog(void)
{
	static struct catalog cat;
	const struct gpu_spec *g;
	const struct instance_spec *in;

	sc_error_clear(&err);
	CHECK(catalog_load("configs", &cat, &err) == SC_OK);
	if (err.status != SC_OK)
		fprintf(stderr, "catalog_load: %s: %s: %s\n", err.file, err.pointer, err.message);
	g = catalog_gpu(&cat, "h100-sxm");
	in = catalog_instance(&cat, "p5.48xlarge");
	CHECK(g != NULL);
	CHECK(in != NULL);
	if (g && in) {
		CHECK_STR(in->gpu, "h100-sxm");
		CHECK(in->gpus_per_node == 8);
		CHECK(g->peak_bf16_flops > 0 && g->hbm_bytes > 0);
		CHECK(catalog_calibration(&cat, g->calibration) != NULL);
	}
	CHECK(cat.n_models > 0 && cat.n_fabrics > 0 && cat.n_storage > 0 &&
	      cat.n_calibrations > 0);
	CHECK(catalog_gpu(&cat, "h100") == NULL);

	/* Unknown names: a did-you-mean when close, else where to look. */
	sc_error_clear(&err);
	CHECK(catalog_unknown(&cat, "instance", "p5.48xlarg", "s.json", "/cluster/instance",
			      &err) == SC_ENOTFOUND);
	CHECK_STR(err.message, "unknown instance \"p5.48xlarg\" (did you mean \"p5.48xlarge\"?)");
	CHECK_STR(err.pointer, "/cluster/instance");
	sc_error_clear(&err);
	catalog_unknown(&cat, "model", "zzzzzzzzzzzz", NULL, NULL, &err);
	CHECK_STR(err.message, "unknown model \"zzzzzzzzzzzz\" (see `stepcast catalog models`)");

	/* Every catalogue model survives a round trip through cfg_to_json. */
	for (int i = 0; i < cat.n_models; i++) {
		struct cfg_reader rd = { "round-trip", &err, NULL };
		static struct model_arch back;
		cJSON *obj = cfg_to_json(cfg_model_fields, &cat.models[i]);
		CHECK(obj != NULL);
		sc_error_clear(&err);
		CHECK(cfg_read_model(&rd, obj, &back, "") == SC_OK);
		CHECK(memcmp(&back, &cat.models[i], sizeof(back)) == 0);
		cJSON_Delete(obj);
	}
	catalog_free(&cat);
	CHECK(cat.gpus == NULL && cat.n_gpus == 0);

	/* A directory without the catalogue files is an I/O error. */
	sc_error_clear(&err);
	CHECK(catalog_load("tests/unit", &cat, &err) == SC_EIO);
	CHECK_STR(err.file, "tests/unit/gpus.json");
}

static void test_scenario(void)
{
	static struct catalog cat;
	static struct scenario sc;

	sc_error_clear(&err);
	CHECK(catalog_load("configs", &cat, &err) == SC_OK);
	sc_error_clear(&err);
	CHECK(scenario_load("tests/fuzz/corpus/scenario_basic.json", &cat, &sc, &err) == SC_OK);
	if (err.status != SC_OK)
		fprintf(stderr, "scenario_load: %s: %s: %s\n", err.file, err.pointer, err.message);
	CHECK_STR(sc.model.name, "llama3-70b");
	CHECK_STR(sc.cluster.instance.name, "p5.48xlarge");
	CHECK_STR(sc.cluster.gpu.name, "h100-sxm");
	CHECK(sc.layout.tp == 8 && sc.layout.pp == 4 && sc.layout.vpp == 5 && sc.layout.dp == 2);

	/* Defaults: dp from the GPU count, vpp/cp/ep 1, sequence parallel with tp. */
	{
		const char *text =
			"{\"name\": \"d\", \"model\": \"llama3-8b\","
			" \"cluster\": {\"instance\": \"p5.48xlarge\", \"nodes\": 2, \"fabric\": \"ultracluster\"},"
			" \"training\": {\"seq_len\": 4096, \"global_batch_seqs\": 64, \"micro_batch_seqs\": 1,"
			"  \"precision\": \"bf16\", \"recompute\": \"none\"},"
			" \"layout\": {\"tp\": 2, \"pp\": 2}}";
		cJSON *root = cfg_parse_buffer("d.json", text, strlen(text), &err);
		CHECK(root != NULL);
		sc_error_clear(&err);
		CHECK(scenario_read("d.json", root, &cat, &sc, &err) == SC_OK);
		CHECK(sc.layout.dp == 4 && sc.layout.vpp == 1 && sc.layout.cp == 1 && sc.layout.ep == 1);
		CHECK(sc.layout.sequence_parallel);
		CHECK(sc.layout.zero_stage == 1);
		CHECK(sc.training.grad_fp32);
		CHECK(catalog_gpu(&cat, "h100-sxm") != NULL);
		if (catalog_gpu(&cat, "h100-sxm"))
			CHECK_STR(sc.calibration.name, catalog_gpu(&cat, "h100-sxm")->calibration);
		cJSON_Delete(root);
	}
	catalog_free(&cat);
}

/* CFG_ARRAY: an array of objects is read element by element (pointer with
 * the index on error), bounded by its capacity, and written back by
 * cfg_to_json (the catalogue's UltraServer list round-trips). */
static void test_arrays(void)
{
	struct catalog cat;
	struct cfg_reader rd = { "t.json", &err, NULL };
	const struct instance_spec *gb;
	struct instance_price back;
	cJSON *j, *doc;

	if (catalog_load("configs", &cat, &err) != SC_OK) {
		CHECK(false);
		return;
	}
	gb = catalog_instance(&cat, "p6e-gb200.36xlarge");
	CHECK(gb && gb->price.sold_as == SOLD_AS_ULTRASERVER && gb->price.n_ultraservers == 2);
	if (gb) {
		j = cfg_to_json(cfg_price_fields, &gb->price);
		CHECK(j && cJSON_GetArraySize(cJSON_GetObjectItemCaseSensitive(j, "ultraservers")) == 2);
		CHECK(!cJSON_GetObjectItemCaseSensitive(j, "on_demand_usd_per_h"));
		memset(&back, 0, sizeof(back));
		sc_error_clear(&err);
		CHECK(cfg_read_object(&rd, j, cfg_price_fields, &back, "/price") == SC_OK);
		CHECK(memcmp(&back, &gb->price, sizeof(back)) == 0);
		cJSON_Delete(j);
	}
	catalog_free(&cat);

	doc = cJSON_Parse("{\"date\":\"2026-01-01\",\"region\":\"r\",\"source\":\"s\",\"sold_as\":\"ultraserver\","
			  "\"ultraservers\":[{\"name\":\"u\",\"instances\":0,\"capacity_block_usd_per_h\":1,"
			  "\"date\":\"d\",\"source\":\"s\"}]}");
	memset(&back, 0, sizeof(back));
	CHECK(cfg_read_object(&rd, doc, cfg_price_fields, &back, "/price") == SC_EINVAL);
	CHECK(strcmp(err.pointer, "/price/ultraservers/0/instances") == 0);
	cJSON_Delete(doc);
	doc = cJSON_Parse("{\"date\":\"d\",\"region\":\"r\",\"source\":\"s\",\"ultraservers\":[]}");
	CHECK(cfg_read_object(&rd, doc, cfg_price_fields, &back, "/price") == SC_EINVAL);
	CHECK(strstr(err.message, "expected 1 to 4 items, got 0") != NULL);
	cJSON_Delete(doc);
	doc = cJSON_Parse("{\"date\":\"d\",\"region\":\"r\",\"source\":\"s\",\"ultraservers\":{}}");
	CHECK(cfg_read_object(&rd, doc, cfg_price_fields, &back, "/price") == SC_EINVAL);
	CHECK(strstr(err.message, "expected an array, got an object") != NULL);
	cJSON_Delete(doc);
}

int main(void)
{
	RUN(test_did_you_mean);
	RUN(test_pointer_escaping);
	RUN(test_integers);
	RUN(test_ranges_and_types);
	RUN(test_nullable);
	RUN(test_parse_errors);
	RUN(test_size_limit);
	RUN(test_catalog);
	RUN(test_scenario);
	RUN(test_arrays);
	return sc_test_summary();
}
