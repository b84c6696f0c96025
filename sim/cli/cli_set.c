/* cli_set.c: the what-if options (see cli_set.h). */
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_set.h"

struct cfg_overrides cli_overrides;

bool cli_set_option(const char *cmd, int c, const char *arg, const char *prefix)
{
	char text[CFG_OVERRIDE_TEXT_MAX];
	struct sc_error err;

	sc_error_clear(&err);
	if (c == CLI_OPT_SET)
		snprintf(text, sizeof(text), "%s", arg);
	else
		snprintf(text, sizeof(text), "%s%s=%s", prefix, c == CLI_OPT_INSTANCE ? "instance" : "nodes",
			 arg);
	if (strlen(arg) + 16 >= sizeof(text) || cfg_overrides_add(&cli_overrides, text, &err) != SC_OK) {
		cli_usage_error(cmd, "%s: %s", err.file[0] ? err.file : "--set",
				err.message[0] ? err.message : "the value is too long");
		return false;
	}
	return true;
}

cJSON *cli_parse_scenario(const char *path, struct sc_error *err)
{
	return cfg_parse_scenario_file(path, &cli_overrides, err);
}

enum sc_status cli_scenario_load(const char *path, const struct catalog *cat, struct scenario *sc,
				 struct sc_error *err)
{
	cJSON *root = cli_parse_scenario(path, err);
	enum sc_status st = root ? scenario_read(path, root, cat, sc, err) : err->status;

	cJSON_Delete(root);
	if (st != SC_OK)
		cfg_overrides_blame(&cli_overrides, err);
	return st;
}

enum sc_status cli_srv_scenario_load(const char *path, const struct catalog *cat,
				     const struct srv_engines *engines, struct srv_scenario *sc,
				     struct sc_error *err)
{
	cJSON *root = cli_parse_scenario(path, err);
	enum sc_status st = root ? srv_scenario_read(path, root, cat, engines, sc, err) : err->status;

	cJSON_Delete(root);
	if (st != SC_OK)
		cfg_overrides_blame(&cli_overrides, err);
	return st;
}

int cli_srv_load(const char *dir, const char *path, struct catalog *cat, struct srv_scenario *sc)
{
	struct srv_engines engines;
	struct sc_error err;
	int code;

	if ((code = cli_load_catalog(dir, cat)) != EXIT_OK)
		return code;
	sc_error_clear(&err);
	if (srv_engines_load(dir ? dir : catalog_default_dir(), &engines, &err) != SC_OK) {
		catalog_free(cat);
		return cli_fail(&err);
	}
	code = cli_srv_scenario_load(path, cat, &engines, sc, &err) != SC_OK ? cli_fail(&err) : EXIT_OK;
	srv_engines_free(&engines);
	if (code != EXIT_OK)
		catalog_free(cat);
	return code;
}
