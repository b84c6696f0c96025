/* platform.h: the SimGrid platform of a GPU cluster, built by the only
 * C++ file of the project (platform.cpp, SimGrid's s4u zone API: the C
 * API cannot create hosts, links or zones).  Plain C types only, so that the
 * C++ side includes nothing else of the project.
 *
 * The platform (all link latencies 0: the engine charges each message the
 * analytical alpha of its algorithm, so SimGrid only shares bandwidth):
 *   root "fabric", a star zone (the spine): leaf zones, or NVLink-domain
 *     zones directly when there is one leaf, and a zone "storage" of storage
 *     hosts, each behind its own split-duplex link (or a read and a write
 *     link: a tier's aggregate read and write bandwidth);
 *   leaf zone "leafK", a star: its domains (consecutive blocks of
 *     leaf_domains, or those leaf_of_domain() puts under it); its route to the spine is the
 *     leaf's uplink (split-duplex, shared) when the fabric is
 *     oversubscribed, else empty (non-blocking);
 *   domain zone "dK", a full-routing zone: one host "gI" per built GPU, a
 *     split-duplex NVLink link per GPU to the NVSwitch (GPU a -> b:
 *     [a up, b down]), one split-duplex link per NIC link of each node
 *     (GPU -> gateway: [its NIC link up]), and the gateway router.
 * Ownership: the caller owns spec and the arrays it points to; the built
 * platform belongs to SimGrid's engine.
 */
#ifndef SC_DES_PLATFORM_H
#define SC_DES_PLATFORM_H

#include <stddef.h>

struct des_platform_spec {
	int gpus_per_node;
	int nodes_per_domain;
	int leaf_domains;         /* domains per leaf */
	int leaves;
	int nic_links;            /* per node */
	int gpus_per_nic_link;
	double nvlink_Bps;        /* per GPU per direction */
	double nic_link_Bps;
	double uplink_Bps;        /* per leaf per direction; 0 = non-blocking (no link) */
	double gpu_flops;         /* host speed */
	const int *gpus;          /* global GPU indices to build, increasing */
	int n_gpus;
	int n_storage;
	double storage_Bps;       /* link of each storage host to the spine */
	/* when set: storage host k has a read link (host -> spine) of
	 * storage_read_Bps[k] and a write link (spine -> host) of
	 * storage_write_Bps[k] instead of one split-duplex storage_Bps */
	const double *storage_read_Bps;
	const double *storage_write_Bps;
	/* the leaf of NVLink domain d: leaf_of_domain(leaf_ctx, d) when set
	 * (a placement, models/placement.h), else d / leaf_domains */
	int (*leaf_of_domain)(const void *leaf_ctx, int domain);
	const void *leaf_ctx;
};

#ifdef __cplusplus
extern "C" {
#endif
/* Build the platform into the running SimGrid engine (after simgrid_init and
 * the network configuration, before simgrid_run).  hosts[i] receives the
 * sg_host_t of gpus[i], storage[k] that of storage host k.  Returns 0, or
 * -1 with a message in errbuf. */
int des_platform_build(const struct des_platform_spec *spec, void **hosts, void **storage,
		       char *errbuf, size_t errlen);
#ifdef __cplusplus
}
#endif

#endif
