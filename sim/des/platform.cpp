/* platform.cpp: the SimGrid platform of a GPU cluster (see platform.h).
 *
 * The project's only C++: SimGrid 3.32's C API cannot create hosts, links or
 * zones.  Routing is algorithmic above the NVLink domains (star zones: O(1)
 * routes per child) and explicit inside them (a full zone: k^2 routes for k
 * built GPUs), so memory grows with the GPUs built, not with their square.
 * Hosts are returned by pointer, never looked up by name: in 3.32 every
 * name look-up is a linear search of the platform.
 */
#include "platform.h"

#include <simgrid/s4u.hpp>

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;
using Dir = sg4::LinkInRoute::Direction;

namespace {

struct builder {
	const des_platform_spec *sp;
	sg4::NetZone *root = nullptr;
	std::vector<sg4::NetZone *> leaf;
	std::vector<NetPoint *> leaf_gw;

	sg4::NetZone *parent_of(int domain)
	{
		if (sp->leaves <= 1)
			return root;
		int k = sp->leaf_of_domain ? sp->leaf_of_domain(sp->leaf_ctx, domain) : domain / sp->leaf_domains;
		if (!leaf[k]) {
			leaf[k] = sg4::create_star_zone("leaf" + std::to_string(k));
			leaf[k]->set_parent(root);
		}
		return leaf[k];
	}

	/* GPUs gpus[first, last) all belong to NVLink domain `domain`. */
	void domain_zone(int domain, int first, int last, void **hosts)
	{
		sg4::NetZone *parent = parent_of(domain);
		std::string dn = "d" + std::to_string(domain);
		sg4::NetZone *z = sg4::create_full_zone(dn);
		int k = last - first;
		std::vector<sg4::Host *> h(k);
		std::vector<sg4::Link *> nvl(k);
		std::vector<sg4::Link *> nic_of(k, nullptr);
		std::vector<sg4::Link *> nics((size_t)sp->nodes_per_domain * (sp->nic_links > 0 ? sp->nic_links : 1),
					      nullptr);

		z->set_parent(parent);
		NetPoint *gw = z->create_router(dn + "-gw");
		for (int i = 0; i < k; i++) {
			int g = sp->gpus[first + i];
			std::string hn = "g" + std::to_string(g);

			h[i] = z->create_host(hn, sp->gpu_flops);
			nvl[i] = z->create_split_duplex_link(hn + "-nvlink", sp->nvlink_Bps)->seal();
			hosts[first + i] = h[i];
			if (sp->nic_links > 0) {
				int node = g / sp->gpus_per_node;
				int nl = (g % sp->gpus_per_node) / sp->gpus_per_nic_link;
				size_t slot = (size_t)(node - domain * sp->nodes_per_domain) * sp->nic_links + nl;

				if (!nics[slot])
					nics[slot] = z->create_split_duplex_link(
						"n" + std::to_string(node) + "-nic" + std::to_string(nl),
						sp->nic_link_Bps)->seal();
				nic_of[i] = nics[slot];
			}
		}
		for (int a = 0; a < k; a++) {
			for (int b = 0; b < k; b++) {
				if (a == b)
					continue;
				z->add_route(h[a]->get_netpoint(), h[b]->get_netpoint(), nullptr, nullptr,
					     { { nvl[a], Dir::UP }, { nvl[b], Dir::DOWN } }, false);
			}
			if (nic_of[a]) {
				z->add_route(h[a]->get_netpoint(), gw, nullptr, nullptr,
					     { { nic_of[a], Dir::UP } }, false);
				z->add_route(gw, h[a]->get_netpoint(), nullptr, nullptr,
					     { { nic_of[a], Dir::DOWN } }, false);
			}
		}
		z->seal();
		parent->add_route(z->get_netpoint(), nullptr, gw, nullptr, {}, true);
		/* a leaf's gateway to the spine is the gateway of its first
		 * domain (a router placed directly in the leaf zone would lose
		 * the NIC links of routes that start in its domains) */
		int lk = sp->leaf_of_domain ? sp->leaf_of_domain(sp->leaf_ctx, domain) : domain / sp->leaf_domains;
		if (parent != root && !leaf_gw[lk])
			leaf_gw[lk] = gw;
	}
};

} // namespace

extern "C" int des_platform_build(const struct des_platform_spec *sp, void **hosts, void **storage,
				  char *errbuf, size_t errlen)
{
	try {
		builder b;
		int gpd = sp->gpus_per_node * sp->nodes_per_domain;

		b.sp = sp;
		b.root = sg4::create_star_zone("fabric");
		b.leaf.assign(sp->leaves > 1 ? sp->leaves : 1, nullptr);
		b.leaf_gw.assign(b.leaf.size(), nullptr);
		for (int i = 0; i < sp->n_gpus;) {
			int d = sp->gpus[i] / gpd, j = i;

			while (j < sp->n_gpus && sp->gpus[j] / gpd == d)
				j++;
			b.domain_zone(d, i, j, hosts);
			i = j;
		}
		/* leaves: sealed, then their uplinks to the spine */
		for (size_t k = 0; k < b.leaf.size(); k++) {
			if (!b.leaf[k])
				continue;
			b.leaf[k]->seal();
			std::vector<sg4::LinkInRoute> up;
			if (sp->uplink_Bps > 0)
				up.emplace_back(b.root->create_split_duplex_link("leaf" + std::to_string(k) + "-uplink",
										 sp->uplink_Bps)->seal(),
						Dir::UP);
			b.root->add_route(b.leaf[k]->get_netpoint(), nullptr, b.leaf_gw[k], nullptr, up, true);
		}
		/* storage hosts hang off the spine, in a zone of their own (a
		 * netpoint placed directly in the root zone would lose the NIC
		 * links of routes from the GPUs, as for the leaf gateways) */
		if (sp->n_storage > 0) {
			sg4::NetZone *z = sg4::create_full_zone("storage");
			NetPoint *gw;

			z->set_parent(b.root);
			gw = z->create_router("storage-gw");
			for (int k = 0; k < sp->n_storage; k++) {
				std::string name = "storage" + std::to_string(k);
				sg4::Host *h = z->create_host(name, 1e9);

				if (sp->storage_read_Bps && sp->storage_write_Bps) {
					sg4::Link *rd = z->create_link(name + "-read", sp->storage_read_Bps[k])->seal();
					sg4::Link *wr = z->create_link(name + "-write", sp->storage_write_Bps[k])->seal();

					z->add_route(h->get_netpoint(), gw, nullptr, nullptr, { sg4::LinkInRoute(rd) }, false);
					z->add_route(gw, h->get_netpoint(), nullptr, nullptr, { sg4::LinkInRoute(wr) }, false);
				} else {
					sg4::Link *l = z->create_split_duplex_link(name + "-link", sp->storage_Bps)->seal();

					z->add_route(h->get_netpoint(), gw, nullptr, nullptr, { { l, Dir::UP } }, false);
					z->add_route(gw, h->get_netpoint(), nullptr, nullptr, { { l, Dir::DOWN } }, false);
				}
				storage[k] = h;
			}
			z->seal();
			b.root->add_route(z->get_netpoint(), nullptr, gw, nullptr, {}, true);
		}
		b.root->seal();
		return 0;
	} catch (const std::exception &e) {
		std::snprintf(errbuf, errlen, "des: building the platform failed: %s", e.what());
		return -1;
	} catch (...) {
		std::snprintf(errbuf, errlen, "des: building the platform failed");
		return -1;
	}
}
