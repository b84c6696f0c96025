/* scenario.c: names of the scenario enums (see scenario.h); these are the
 * spellings scenario files and reports use. */
#include "scenario.h"

#include <stddef.h>

SC_ENUM_DEFINE(precision_name, enum sc_precision, sc_precision_names, SC_PRECISION_LIST)
SC_ENUM_DEFINE(recompute_name, enum sc_recompute, sc_recompute_names, SC_RECOMPUTE_LIST)
SC_ENUM_DEFINE(schedule_name, enum sc_schedule, sc_schedule_names, SC_SCHEDULE_LIST)
const char *const sc_optimizer_names[] = SC_ENUM_NAMES(SC_OPTIMIZER_LIST);
SC_ENUM_DEFINE(framework_name, enum sc_framework, sc_framework_names, SC_FRAMEWORK_LIST)
SC_ENUM_DEFINE(attention_name, enum sc_attention, sc_attention_names, SC_ATTENTION_LIST)
SC_ENUM_DEFINE(attention_kernel_name, enum sc_attention_kernel,
	       sc_attention_kernel_names, SC_ATTENTION_KERNEL_LIST)
SC_ENUM_DEFINE(cuda_graphs_name, enum sc_cuda_graphs, sc_cuda_graphs_names, SC_CUDA_GRAPHS_LIST)
SC_ENUM_DEFINE(dtype_name, enum sc_dtype, sc_dtype_names, SC_DTYPE_LIST)
SC_ENUM_DEFINE(layer_split_name, enum sc_layer_split, sc_layer_split_names, SC_LAYER_SPLIT_LIST)
SC_ENUM_DEFINE(moe_dispatcher_name, enum sc_moe_dispatcher,
	       sc_moe_dispatcher_names, SC_MOE_DISPATCHER_LIST)

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
