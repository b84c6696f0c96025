/* scenario.c: names of the scenario enums (see scenario.h); these are the
 * spellings scenario files and reports use. */
#include "scenario.h"

#include <stddef.h>

const char *const sc_precision_names[] = SC_ENUM_NAMES(SC_PRECISION_LIST);
const char *const sc_recompute_names[] = SC_ENUM_NAMES(SC_RECOMPUTE_LIST);
const char *const sc_schedule_names[] = SC_ENUM_NAMES(SC_SCHEDULE_LIST);
const char *const sc_optimizer_names[] = SC_ENUM_NAMES(SC_OPTIMIZER_LIST);
const char *const sc_framework_names[] = SC_ENUM_NAMES(SC_FRAMEWORK_LIST);
const char *const sc_attention_names[] = SC_ENUM_NAMES(SC_ATTENTION_LIST);
const char *const sc_attention_kernel_names[] = SC_ENUM_NAMES(SC_ATTENTION_KERNEL_LIST);
const char *const sc_dtype_names[] = SC_ENUM_NAMES(SC_DTYPE_LIST);
const char *const sc_layer_split_names[] = SC_ENUM_NAMES(SC_LAYER_SPLIT_LIST);
const char *const sc_moe_dispatcher_names[] = SC_ENUM_NAMES(SC_MOE_DISPATCHER_LIST);

const char *precision_name(enum sc_precision p) { return SC_NAME_OF(sc_precision_names, p); }
const char *recompute_name(enum sc_recompute r) { return SC_NAME_OF(sc_recompute_names, r); }
const char *schedule_name(enum sc_schedule s) { return SC_NAME_OF(sc_schedule_names, s); }
const char *framework_name(enum sc_framework f) { return SC_NAME_OF(sc_framework_names, f); }
const char *dtype_name(enum sc_dtype d) { return SC_NAME_OF(sc_dtype_names, d); }
const char *attention_name(enum sc_attention a) { return SC_NAME_OF(sc_attention_names, a); }
const char *layer_split_name(enum sc_layer_split s) { return SC_NAME_OF(sc_layer_split_names, s); }

const char *attention_kernel_name(enum sc_attention_kernel k)
{
	return SC_NAME_OF(sc_attention_kernel_names, k);
}

const char *moe_dispatcher_name(enum sc_moe_dispatcher d)
{
	return SC_NAME_OF(sc_moe_dispatcher_names, d);
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
