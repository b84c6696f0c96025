/* purchase.h: how an instance type is sold, and what a cluster of N of them
 * costs per hour under a pricing model.  The one owner of these rules: plan,
 * compare, search, the goodput model, serving and the reports ask here.
 *
 * AWS sells most GPU instances one at a time (on demand, and in Capacity
 * Blocks for ML of 1..64 instances), but the NVL72 kinds only as whole
 * UltraServers through Capacity Blocks: u-p6e-gb200x72 is 18
 * p6e-gb200.36xlarge sharing one 72-GPU NVLink domain, u-p6e-gb200x36 is 9
 * sharing 36 (AWS "Amazon EC2 UltraServers" user guide; Capacity Blocks
 * pricing page).  A cluster of such a kind is bought in its purchase unit,
 * the UltraServer whose GPUs are the instance's NVLink domain (the domain
 * every model of the cluster assumes), so N nodes pay ceil(N / unit)
 * UltraServers.
 * Pure functions over caller-owned catalogue structs; nothing allocates.
 */
#ifndef SC_PURCHASE_H
#define SC_PURCHASE_H

#include <stdbool.h>
#include <stddef.h>

#include "catalog.h"
#include "enum_names.h"

/* The pricing models a cost can be asked under. */
#define PLAN_PRICING_LIST(X) X(PRICING_ON_DEMAND, "on-demand") X(PRICING_CAPACITY_BLOCK, "capacity-block")
enum plan_pricing { PLAN_PRICING_LIST(SC_ENUM_ID) PRICING_COUNT };

/* The UltraServer a cluster of inst is bought in (the product whose GPUs
 * equal inst's NVLink domain), or NULL when inst is sold per instance (or
 * has no such product). */
const struct ultraserver_spec *purchase_unit(const struct instance_spec *inst);

/* Instances per purchase unit: the UltraServer's, else 1. */
int purchase_unit_nodes(const struct instance_spec *inst);

/* nodes rounded up to whole purchase units (nodes >= 1). */
int purchase_round_nodes(const struct instance_spec *inst, int nodes);

/* Whether inst can be bought under pricing p. */
bool purchase_offered(const struct instance_spec *inst, enum plan_pricing p);

/* The pricing a cost means when the user names none: on-demand where the
 * instance is sold on demand, else capacity-block. */
enum plan_pricing purchase_default_pricing(const struct instance_spec *inst);

/* Price per hour of a cluster of nodes instances under p: whole purchase
 * units (an UltraServer-only kind pays ceil(nodes / unit) UltraServers);
 * 0 when not offered under p. */
double purchase_cluster_usd_per_h(const struct instance_spec *inst, int nodes, enum plan_pricing p);

/* Price per instance-hour under p (an UltraServer's price divided by its
 * instances); 0 when not offered. */
double purchase_instance_usd_per_h(const struct instance_spec *inst, enum plan_pricing p);

/* The purchase options that exist, for messages, e.g. "on-demand,
 * capacity-block" or "capacity-block (whole UltraServers: u-p6e-gb200x72 of
 * 18 instances, u-p6e-gb200x36 of 9 instances)".  Writes at most n bytes. */
void purchase_options_describe(const struct instance_spec *inst, char *out, size_t n);

#endif
