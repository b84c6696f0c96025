/* calibration.c: the parameter table behind calibration.h. */
#include "calibration.h"

#include <stddef.h>
#include <string.h>

const struct calib_param_info calib_params[CALIB_COUNT] = {
#define SC_CALIB_INFO(name, unit, lo, hi, desc) { #name, unit, lo, hi, desc },
	SC_CALIB_PARAMS(SC_CALIB_INFO)
#undef SC_CALIB_INFO
};

static const size_t calib_offsets[CALIB_COUNT] = {
#define SC_CALIB_OFF(name, unit, lo, hi, desc) offsetof(struct calibration, name),
	SC_CALIB_PARAMS(SC_CALIB_OFF)
#undef SC_CALIB_OFF
};

double *calib_value(struct calibration *cal, enum calib_param i)
{
	return (double *)((char *)cal + calib_offsets[i]);
}

double calib_get(const struct calibration *cal, enum calib_param i)
{
	return *(const double *)((const char *)cal + calib_offsets[i]);
}

int calib_param_index(const char *name)
{
	for (int i = 0; i < CALIB_COUNT; i++)
		if (strcmp(calib_params[i].name, name) == 0)
			return i;
	return -1;
}

const char *calib_fit_kind_name(enum calib_fit_kind k)
{
	switch (k) {
	case CALIB_FIT_CURVE: return "curve";
	case CALIB_FIT_SEGMENT: return "segment";
	case CALIB_FIT_GEMM: return "gemm";
	case CALIB_FIT_HBM: return "hbm";
	}
	return "unknown";
}

const char *calib_range_quantity_name(enum calib_range_quantity q)
{
	switch (q) {
	case CALIB_RANGE_NONE: return "none";
	case CALIB_RANGE_MESSAGE_BYTES: return "message_bytes";
	case CALIB_RANGE_GEMM_DIM: return "gemm_dim";
	case CALIB_RANGE_COPY_BYTES: return "copy_bytes";
	}
	return "unknown";
}
