/* purchase.c: purchase units and cluster prices (see purchase.h). */
#include "purchase.h"

#include <stdio.h>
#include <string.h>

const struct ultraserver_spec *purchase_unit(const struct instance_spec *inst)
{
	if (inst->price.sold_as != SOLD_AS_ULTRASERVER)
		return NULL;
	for (int i = 0; i < inst->price.n_ultraservers && i < SC_ULTRASERVERS_MAX; i++) {
		const struct ultraserver_spec *u = &inst->price.ultraservers[i];

		if (u->instances > 0 && u->instances * inst->gpus_per_node == inst->nvlink_domain_gpus)
			return u;
	}
	return NULL;
}

int purchase_unit_nodes(const struct instance_spec *inst)
{
	const struct ultraserver_spec *u = purchase_unit(inst);

	return u ? u->instances : 1;
}

int purchase_round_nodes(const struct instance_spec *inst, int nodes)
{
	int k = purchase_unit_nodes(inst);

	return nodes < 1 ? k : (nodes + k - 1) / k * k;
}

bool purchase_offered(const struct instance_spec *inst, enum plan_pricing p)
{
	return purchase_instance_usd_per_h(inst, p) > 0;
}

enum plan_pricing purchase_default_pricing(const struct instance_spec *inst)
{
	return purchase_offered(inst, PRICING_ON_DEMAND) || !purchase_offered(inst, PRICING_CAPACITY_BLOCK)
	       ? PRICING_ON_DEMAND : PRICING_CAPACITY_BLOCK;
}

double purchase_instance_usd_per_h(const struct instance_spec *inst, enum plan_pricing p)
{
	const struct ultraserver_spec *u;

	if (inst->price.sold_as == SOLD_AS_ULTRASERVER) {
		/* UltraServers are sold through Capacity Blocks only */
		u = purchase_unit(inst);
		return p == PRICING_CAPACITY_BLOCK && u ? u->capacity_block_usd_per_h / u->instances : 0;
	}
	switch (p) {
	case PRICING_ON_DEMAND: return inst->price.on_demand_usd_per_h;
	case PRICING_CAPACITY_BLOCK: return inst->price.capacity_block_usd_per_h;
	case PRICING_COUNT: break;
	}
	return 0;
}

double purchase_cluster_usd_per_h(const struct instance_spec *inst, int nodes, enum plan_pricing p)
{
	const struct ultraserver_spec *u = purchase_unit(inst);

	if (nodes < 1 || !purchase_offered(inst, p))
		return 0;
	if (u)
		return (double)((nodes + u->instances - 1) / u->instances) * u->capacity_block_usd_per_h;
	return nodes * purchase_instance_usd_per_h(inst, p);
}

void purchase_options_describe(const struct instance_spec *inst, char *out, size_t n)
{
	size_t len;

	if (n == 0)
		return;
	out[0] = '\0';
	if (inst->price.sold_as == SOLD_AS_ULTRASERVER) {
		snprintf(out, n, "capacity-block (whole UltraServers:");
		for (int i = 0; i < inst->price.n_ultraservers && i < SC_ULTRASERVERS_MAX; i++) {
			const struct ultraserver_spec *u = &inst->price.ultraservers[i];

			len = strlen(out);
			snprintf(out + len, n - len, "%s %s of %d instances", i ? "," : "", u->name,
				 u->instances);
		}
		len = strlen(out);
		snprintf(out + len, n - len, ")");
		return;
	}
	snprintf(out, n, "%s%s%s", inst->price.on_demand_usd_per_h > 0 ? "on-demand" : "",
		 inst->price.on_demand_usd_per_h > 0 && inst->price.capacity_block_usd_per_h > 0 ? ", " : "",
		 inst->price.capacity_block_usd_per_h > 0 ? "capacity-block" : "");
	if (!out[0])
		snprintf(out, n, "none");
}
