/* scenario.c: names of the scenario enums (see scenario.h); these are the
 * spellings scenario files and reports use. */
#include "scenario.h"

#include <stddef.h>

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
	case MOE_DISPATCH_EFA_GDA: return "efa-gda";
	case MOE_DISPATCH_ALLGATHER: return "allgather";
	}
	return "unknown";
}

const char *framework_name(enum sc_framework f)
{
	switch (f) {
	case FW_MEGATRON_CORE: return "megatron-core";
	case FW_TORCHTITAN: return "torchtitan";
	case FW_DEEPSPEED: return "deepspeed";
	}
	return "unknown";
}

const char *attention_kernel_name(enum sc_attention_kernel k)
{
	return k == ATTN_KERNEL_PORTABLE ? "portable" : "fused";
}

const char *attention_name(enum sc_attention a)
{
	return a == ATTN_UNFUSED ? "unfused" : "flash";
}

const char *dtype_name(enum sc_dtype d)
{
	return d == DTYPE_BF16 ? "bf16" : "fp32";
}

const char *recompute_module_name(unsigned bit)
{
	switch (bit) {
	case RECOMPUTE_MOD_CORE_ATTN: return "core_attn";
	case RECOMPUTE_MOD_LAYERNORM: return "layernorm";
	case RECOMPUTE_MOD_MLA_UP_PROJ: return "mla_up_proj";
	case RECOMPUTE_MOD_MLP: return "mlp";
	case RECOMPUTE_MOD_MOE_ACT: return "moe_act";
	case RECOMPUTE_MOD_MOE: return "moe";
	case RECOMPUTE_MOD_SHARED_EXPERTS: return "shared_experts";
	}
	return NULL;
}
