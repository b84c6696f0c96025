/* scenario.c: names of the scenario enums (see scenario.h); these are the
 * spellings scenario files and reports use. */
#include "scenario.h"

const char *precision_name(enum sc_precision p)
{
	switch (p) {
	case PREC_BF16: return "bf16";
	case PREC_FP16: return "fp16";
	case PREC_FP8: return "fp8";
	case PREC_MXFP8: return "mxfp8";
	case PREC_NVFP4: return "nvfp4";
	}
	return "unknown";
}

const char *recompute_name(enum sc_recompute r)
{
	switch (r) {
	case RECOMPUTE_NONE: return "none";
	case RECOMPUTE_SELECTIVE: return "selective";
	case RECOMPUTE_FULL: return "full";
	}
	return "unknown";
}

const char *schedule_name(enum sc_schedule s)
{
	switch (s) {
	case SCHED_1F1B: return "1f1b";
	case SCHED_INTERLEAVED_1F1B: return "interleaved-1f1b";
	case SCHED_GPIPE: return "gpipe";
	case SCHED_ZB_H1: return "zb-h1";
	case SCHED_ZB_V: return "zb-v";
	case SCHED_DUALPIPE: return "dualpipe";
	}
	return "unknown";
}

const char *moe_dispatcher_name(enum sc_moe_dispatcher d)
{
	switch (d) {
	case MOE_DISPATCH_ALLTOALL: return "alltoall";
	case MOE_DISPATCH_FLEX: return "flex";
	case MOE_DISPATCH_UCCL_EP: return "uccl-ep";
	case MOE_DISPATCH_PPLX_GARDEN: return "pplx-garden";
	case MOE_DISPATCH_ALLGATHER: return "allgather";
	}
	return "unknown";
}
