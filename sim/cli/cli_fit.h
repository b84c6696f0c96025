/* cli_fit.h: what the fitting commands share on the command line
 * (validate --fit, validate --serving --fit, validate --collectives --fit):
 * the parameter list of --fit, and writing the fitted profile. */
#ifndef SC_CLI_FIT_H
#define SC_CLI_FIT_H

#include "../../models/calibration.h"

/* "a,b,c" -> indices into calib_params (at most max); a usage error of
 * `validate` (EXIT_USAGE) on an unknown name, too many or none, else
 * EXIT_OK. */
int cli_parse_fit_params(const char *list, int max, int *params, int *n);

/* Write cal as a profile to output through the one safe writer, checked
 * to load back before it replaces anything.  Returns an exit code. */
int cli_write_profile(const struct calibration *cal, const char *output);

#endif
