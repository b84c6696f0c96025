/* test_calibration_select.c: the one calibration-selection path
 * (sim/config/calibration_select.h).
 *
 * Name versus file, paths relative to the naming file, a profile file outside
 * the source tree loaded as strictly as the catalogue's, the GPU-family rule
 * for names, files and the scenario key, and the errors (unknown name,
 * unreadable file, invalid profile with its own pointer).  Runs from the repo
 * root (ctest's working directory); writes only under a mkdtemp directory.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sc_test.h"
#include "sim/config/calibration_select.h"
#include "sim/config/scenario_load.h"
#include "sim/serve/serve_config.h"

static char tmp[64];
static struct catalog cat; /* configs/ */

/* configs/calibration/hopper-default.json renamed to name, with
 * gemm_eta_max_bf16 set to eta, written to path. */
static bool write_profile(const char *path, const char *name, double eta)
{
	struct sc_error err;
	cJSON *root = cfg_parse_file("configs/calibration/hopper-default.json", &err);
	cJSON *params, *p;
	char *text;
	FILE *f;
	bool ok;

	if (!root)
		return false;
	cJSON_ReplaceItemInObjectCaseSensitive(root, "name", cJSON_CreateString(name));
	params = cJSON_GetObjectItemCaseSensitive(root, "parameters");
	p = cJSON_GetObjectItemCaseSensitive(params, "gemm_eta_max_bf16");
	cJSON_ReplaceItemInObjectCaseSensitive(p, "value", cJSON_CreateNumber(eta));
	text = cJSON_Print(root);
	cJSON_Delete(root);
	if (!text || !(f = fopen(path, "w"))) {
		free(text);
		return false;
	}
	ok = fputs(text, f) >= 0;
	ok = fclose(f) == 0 && ok;
	free(text);
	return ok;
}

static bool write_text(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	bool ok;

	if (!f)
		return false;
	ok = fputs(text, f) >= 0;
	return fclose(f) == 0 && ok;
}

static void test_name_or_path(void)
{
	struct catalog dir_only;
	char path[256];

	CHECK(!calibration_ref_is_path("hopper-default"));
	CHECK(!calibration_ref_is_path("p5-efa-nccltests"));
	CHECK(!calibration_ref_is_path("json"));
	CHECK(calibration_ref_is_path("my.json"));
	CHECK(calibration_ref_is_path("./hopper-default"));
	CHECK(calibration_ref_is_path("/abs/profile"));

	memset(&dir_only, 0, sizeof(dir_only));
	snprintf(dir_only.dir, sizeof(dir_only.dir), "configs");
	CHECK(calibration_ref_path(&dir_only, "hopper-default", "x/s.json", path, sizeof(path)));
	CHECK_STR(path, "configs/calibration/hopper-default.json");
	CHECK(calibration_ref_path(&dir_only, "p.json", "dir/sub/s.json", path, sizeof(path)));
	CHECK_STR(path, "dir/sub/p.json");
	CHECK(calibration_ref_path(&dir_only, "../p.json", "/d/s.json", path, sizeof(path)));
	CHECK_STR(path, "/d/../p.json");
	CHECK(calibration_ref_path(&dir_only, "/abs/p.json", "dir/s.json", path, sizeof(path)));
	CHECK_STR(path, "/abs/p.json");
	CHECK(calibration_ref_path(&dir_only, "p.json", "s.json", path, sizeof(path)));
	CHECK_STR(path, "p.json");
	CHECK(calibration_ref_path(&dir_only, "p.json", NULL, path, sizeof(path)));
	CHECK_STR(path, "p.json");
	CHECK(!calibration_ref_path(&dir_only, "p.json", "a/s.json", path, 4));
}

static void test_select(void)
{
	const struct gpu_spec *h100 = catalog_gpu(&cat, "h100-sxm");
	const struct gpu_spec *a100 = catalog_gpu(&cat, "a100-40gb");
	static struct calibration got;
	struct sc_error err;
	char file[128], bad[128];

	CHECK(h100 && a100);
	if (!h100 || !a100)
		return;

	/* NULL: the GPU's default */
	sc_error_clear(&err);
	CHECK(calibration_select(&cat, h100, NULL, NULL, "--calibration", NULL, &got, &err) ==
	      SC_OK);
	CHECK_STR(got.name, h100->calibration);

	/* a name, checked against the GPU's family */
	CHECK(calibration_select(&cat, a100, "p4de-efa-nccltests", NULL, "--calibration", NULL,
				 &got, &err) == SC_OK);
	CHECK_STR(got.gpu_family, "ampere");
	sc_error_clear(&err);
	CHECK(calibration_select(&cat, h100, "p4de-efa-nccltests", NULL, "--calibration", NULL,
				 &got, &err) == SC_EINVAL);
	CHECK_STR(err.file, "--calibration");
	CHECK_STR(err.pointer, "");
	CHECK_STR(err.message,
		  "profile \"p4de-efa-nccltests\" is for ampere GPUs, but h100-sxm is hopper");
	/* no GPU: no family check (validate applies it per case) */
	CHECK(calibration_select(&cat, NULL, "p4de-efa-nccltests", NULL, "--calibration", NULL,
				 &got, &err) == SC_OK);
	CHECK(calibration_fits_gpu(&got, a100) && !calibration_fits_gpu(&got, h100));

	sc_error_clear(&err);
	CHECK(calibration_select(&cat, h100, "hoper-default", NULL, "s.json", "/calibration", &got,
				 &err) == SC_ENOTFOUND);
	CHECK_STR(err.file, "s.json");
	CHECK_STR(err.pointer, "/calibration");
	CHECK(strstr(err.message, "did you mean \"hopper-default\"") != NULL);

	/* a file outside the source tree, with a name the catalogue lacks */
	snprintf(file, sizeof(file), "%s/mine.json", tmp);
	CHECK(write_profile(file, "my-h100", 0.7));
	sc_error_clear(&err);
	CHECK(calibration_select(&cat, h100, file, NULL, "--calibration", NULL, &got, &err) ==
	      SC_OK);
	if (err.status != SC_OK)
		fprintf(stderr, "  %s: %s: %s\n", err.file, err.pointer, err.message);
	CHECK_STR(got.name, "my-h100");
	CHECK_REL(got.gemm_eta_max_bf16, 0.7, 1e-12);
	CHECK(calibration_select(&cat, a100, file, NULL, "--calibration", NULL, &got, &err) ==
	      SC_EINVAL);
	{
		char want[256];

		snprintf(want, sizeof(want),
			 "profile \"my-h100\" (%s) is for hopper GPUs, but a100-40gb is ampere",
			 file);
		CHECK_STR(err.message, want);
	}

	/* unreadable: the option or key that named it, and the path */
	snprintf(bad, sizeof(bad), "%s/none.json", tmp);
	sc_error_clear(&err);
	CHECK(calibration_select(&cat, h100, bad, NULL, "--calibration", NULL, &got, &err) ==
	      SC_EIO);
	CHECK_STR(err.file, "--calibration");
	CHECK(strstr(err.message, bad) != NULL);

	/* invalid: the strict profile loader's own path and pointer */
	snprintf(bad, sizeof(bad), "%s/bad.json", tmp);
	CHECK(write_profile(bad, "bad", 1.5)); /* gemm_eta_max_bf16 is a fraction */
	sc_error_clear(&err);
	CHECK(calibration_select(&cat, h100, bad, NULL, "--calibration", NULL, &got, &err) ==
	      SC_EINVAL);
	CHECK_STR(err.file, bad);
	CHECK_STR(err.pointer, "/parameters/gemm_eta_max_bf16/value");
}

/* The scenario key: a FILE relative to the scenario's directory, the same
 * family rule, in training and serving scenarios alike. */
static void test_scenario_key(void)
{
	static struct scenario sc;
	static struct srv_scenario ss;
	struct srv_engines engines;
	struct sc_error err;
	char dir[128], path[256], prof[256], text[1024];
	static const char *const train =
	    "{\"name\": \"k\", \"model\": \"llama3-8b\","
	    " \"cluster\": {\"instance\": \"%s\", \"nodes\": 1, \"fabric\": \"ultracluster\"},"
	    " \"training\": {\"seq_len\": 4096, \"global_batch_seqs\": 64, \"micro_batch_seqs\": 1,"
	    "  \"precision\": \"bf16\", \"recompute\": \"none\"},"
	    " \"layout\": {\"tp\": 8, \"pp\": 1}, \"calibration\": \"%s\"}";

	snprintf(dir, sizeof(dir), "%s/profiles", tmp);
	CHECK(mkdir(dir, 0700) == 0);
	snprintf(prof, sizeof(prof), "%s/h.json", dir);
	CHECK(write_profile(prof, "scenario-h100", 0.72));

	snprintf(path, sizeof(path), "%s/train.json", tmp);
	snprintf(text, sizeof(text), train, "p5.48xlarge", "profiles/h.json");
	CHECK(write_text(path, text));
	sc_error_clear(&err);
	CHECK(scenario_load(path, &cat, &sc, &err) == SC_OK);
	if (err.status != SC_OK)
		fprintf(stderr, "  %s: %s: %s\n", err.file, err.pointer, err.message);
	CHECK_STR(sc.calibration.name, "scenario-h100");
	CHECK_REL(sc.calibration.gemm_eta_max_bf16, 0.72, 1e-12);

	/* the same file on an A100 cluster: the family rule, at the key */
	snprintf(text, sizeof(text), train, "p4d.24xlarge", "profiles/h.json");
	CHECK(write_text(path, text));
	sc_error_clear(&err);
	CHECK(scenario_load(path, &cat, &sc, &err) == SC_EINVAL);
	CHECK_STR(err.file, path);
	CHECK_STR(err.pointer, "/calibration");
	CHECK_STR(err.message, "profile \"scenario-h100\" (profiles/h.json) is for hopper GPUs, "
			       "but a100-40gb is ampere");

	/* a relative FILE is not taken relative to the current directory */
	snprintf(text, sizeof(text), train, "p5.48xlarge",
		 "configs/calibration/hopper-default.json");
	CHECK(write_text(path, text));
	sc_error_clear(&err);
	CHECK(scenario_load(path, &cat, &sc, &err) == SC_EIO);
	CHECK_STR(err.pointer, "/calibration");

	/* serving scenarios take the same key the same way */
	sc_error_clear(&err);
	CHECK(srv_engines_load(cat.dir, &engines, &err) == SC_OK);
	snprintf(path, sizeof(path), "%s/serve.json", tmp);
	CHECK(write_text(
	    path,
	    "{\"name\": \"s\", \"model\": \"llama3-8b\", \"instance\": \"p5.48xlarge\","
	    " \"replica\": {\"tp\": 1}, \"replicas\": 1, \"precision\": {\"weights\": \"bf16\"},"
	    " \"engine\": \"vllm\","
	    " \"workload\": {\"arrival\": \"poisson\", \"rate_rps\": 1, \"requests\": 10,"
	    "  \"input_tokens\": {\"dist\": \"fixed\", \"mean\": 100},"
	    "  \"output_tokens\": {\"dist\": \"fixed\", \"mean\": 10}},"
	    " \"calibration\": \"profiles/h.json\"}"));
	sc_error_clear(&err);
	CHECK(srv_scenario_load(path, &cat, &engines, &ss, &err) == SC_OK);
	if (err.status != SC_OK)
		fprintf(stderr, "  %s: %s: %s\n", err.file, err.pointer, err.message);
	CHECK_STR(ss.calibration.name, "scenario-h100");
	srv_engines_free(&engines);
}

int main(void)
{
	struct sc_error err;
	char cmd[128];

	snprintf(tmp, sizeof(tmp), "%s/sc-calsel.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	sc_error_clear(&err);
	if (catalog_load("configs", &cat, &err) != SC_OK) {
		fprintf(stderr, "catalog_load: %s: %s: %s\n", err.file, err.pointer, err.message);
		return 1;
	}
	RUN(test_name_or_path);
	RUN(test_select);
	RUN(test_scenario_key);
	catalog_free(&cat);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmp);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tmp);
	return sc_test_summary();
}
