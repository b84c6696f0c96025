/* calibration_select.h: the one way a calibration profile is chosen.
 *
 * Every place that takes a profile from a user (the scenario key
 * "calibration" of a training or serving scenario, --calibration of predict,
 * search, plan, serve and validate, calibrate fit --base, calibrate show)
 * resolves it here, so a name and a file are told apart, loaded and checked
 * against the GPU the same way everywhere.
 *
 * A reference is a FILE when it contains '/' or ends in ".json"; otherwise it
 * is the NAME of a catalogue profile (configs/calibration/NAME.json, whose
 * names can hold neither).  A FILE is read with the strict loader the
 * catalogue uses (calibration_load_file), so a profile outside the source
 * tree (one `calibrate fit --output` wrote, a colleague's) is checked exactly
 * as a committed one.  A relative FILE is taken relative to the directory of
 * relative_to (the scenario file, for the scenario key) or, when relative_to
 * is NULL or has no directory, the current directory (the command line).
 *
 * The caller owns every struct; nothing to free.
 */
#ifndef SC_CALIBRATION_SELECT_H
#define SC_CALIBRATION_SELECT_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog_load.h"

/* True when ref names a profile file rather than a catalogue profile. */
bool calibration_ref_is_path(const char *ref);

/* ref resolved to a file path into path[0..size): a catalogue name to
 * CAT-DIR/calibration/NAME.json, a relative FILE against relative_to's
 * directory.  Does not check that anything exists.  False if it does not
 * fit. */
bool calibration_ref_path(const struct catalog *cat, const char *ref, const char *relative_to,
			  char *path, size_t size);

/* The profile family rule: a profile calibrates the GPUs of its family only
 * (its efficiencies and fits were measured there). */
bool calibration_fits_gpu(const struct calibration *cal, const struct gpu_spec *gpu);

/* Choose the profile for gpu into *out.
 *   ref: a catalogue NAME or a profile FILE (see above); NULL: gpu's default.
 *   gpu: the GPU the profile must be for; NULL: no family check (a profile
 *        applied to several GPUs, where the caller applies the family rule
 *        per GPU with calibration_fits_gpu).  Needed when ref is NULL.
 *   relative_to: the file a relative FILE is relative to (NULL: the cwd).
 *   file, pointer: where errors point: the scenario file and "/calibration",
 *        or the option ("--calibration") and NULL.
 * Errors: SC_ENOTFOUND unknown name (with a did-you-mean); SC_EIO a FILE that
 * cannot be read (file/pointer as given, the path in the message);
 * SC_EINVAL a FILE that is not a valid profile (the profile's own path and
 * JSON pointer), or a profile for another GPU family. */
enum sc_status calibration_select(const struct catalog *cat, const struct gpu_spec *gpu,
				  const char *ref, const char *relative_to, const char *file,
				  const char *pointer, struct calibration *out,
				  struct sc_error *err);

#endif
