/* datadir.h: where the installed data lives (the catalogue, the example
 * scenarios, the validation data, the regression baselines), found at run
 * time so that no build-machine path is compiled in.
 *
 * The data directory is, first found:
 *   1. $STEPCAST_DATADIR when set and not empty (taken as is);
 *   2. PREFIX/share/stepcast, where PREFIX is the nearest of up to five
 *      ancestors of the directory of the code's own image (the shared
 *      library, or the executable that linked the static one: dladdr(3)) that
 *      holds share/stepcast/configs/gpus.json.  An installed
 *      /usr/bin/stepcast finds /usr/share/stepcast,
 *      /usr/lib/x86_64-linux-gnu/libstepcast.so finds it too; in a build tree
 *      CMake links BUILD/share/stepcast/{configs,scenarios,validation,regress}
 *      to the source tree, so build/stepcast and build/tests/... find it.
 * Layout under it: configs/, scenarios/, validation/, regress/.
 * Per-part overrides keep their owners ($STEPCAST_CONFIG_DIR in
 * catalog_default_dir(), $STEPCAST_VALIDATION_DIR in the validators).
 */
#ifndef SC_DATADIR_H
#define SC_DATADIR_H

#include <stdbool.h>
#include <stddef.h>

/* The data directory, or NULL when none is found.  The result is computed
 * once and kept (a static buffer; the first call is not thread-safe:
 * sc_library_init() and the CLI make it before starting threads). */
const char *cfg_data_dir(void);

/* "DATADIR/part" into buf.  When no data directory is found, "part" alone
 * (relative to the working directory), so that the error a caller reports
 * names a path.  False when it does not fit. */
bool cfg_data_path(char *buf, size_t size, const char *part);

/* The validation data directory (training-cases.json, systems.json,
 * serving-cases.json, ...): $STEPCAST_VALIDATION_DIR when set and not
 * empty, else DATADIR/validation (the source tree's tests/validation/data in
 * a build tree).  The one place that rule lives: every validator's default
 * path is this directory's file. */
const char *cfg_validation_dir(void);

/* NAME in the validation data directory, into buf (n bytes); returns buf:
 * each validator's default file (its own static buffer). */
const char *cfg_validation_file(const char *name, char *buf, size_t n);

#endif
