/* placement_load.h: placements from the files operators already have.
 *
 * Formats (models/placement.h has the levels):
 *   "ec2-instance-topology": the JSON of `aws ec2 describe-instance-topology`
 *     (EC2 API DescribeInstanceTopology: {"Instances": [{"InstanceId",
 *     "NetworkNodes": [layer 1, layer 2, layer 3(, layer 4)], ...}]}; the
 *     node set is listed top-down, the last node is the one the instance
 *     connects to; AWS EC2 User Guide, "How Amazon EC2 topology works");
 *   "slurm-topology": a Slurm topology.conf (slurm.conf(5) companion
 *     topology.conf(5)): the tree plugin's "SwitchName=S Nodes=HOSTLIST" and
 *     "SwitchName=S Switches=LIST" lines, or the block plugin's "BlockName=B
 *     Nodes=HOSTLIST" (and "BlockSizes=", read and ignored); hostlists such
 *     as node[001-016,020]; keys case-insensitive, '#' starts a comment;
 *   "k8s-nodes": a `kubectl get nodes -o json` document (a v1 List of
 *     Nodes): metadata.name and metadata.labels topology.k8s.aws/
 *     network-node-layer-1..3 (the labels the EKS node agent sets from the
 *     EC2 topology; EKS User Guide).
 * The job's nodes are the first `nodes` instances of the file in its order,
 * or those `instances` lists (ids, host or node names), in that order.
 *
 * Errors are values naming the file and a JSON pointer (JSON formats) or
 * "line N" (topology.conf).  Placements that scenarios point to are kept
 * for the life of the process (placement_keep): struct scenario is copied
 * by value everywhere, so it holds a pointer it does not own.
 */
#ifndef SC_PLACEMENT_LOAD_H
#define SC_PLACEMENT_LOAD_H

#include <cjson/cJSON.h>

#include "cfg_json.h"

#include "../../models/placement.h"
#include "../../models/scenario.h"

enum placement_format { PLACEMENT_FMT_EC2, PLACEMENT_FMT_SLURM, PLACEMENT_FMT_K8S };

/* "ec2-instance-topology", "slurm-topology", "k8s-nodes"; NULL-terminated. */
extern const char *const placement_format_names[];

/* Parse buf (len bytes; name in messages) of format fmt into out: the
 * first `nodes` instances (nodes 0: all of them), or the n_instances named
 * ones.  leaf_capacity: as placement_build (0: the most under one leaf). */
enum sc_status placement_parse(enum placement_format fmt, const char *name, const char *buf,
			       size_t len, const char *const *instances, int n_instances, int nodes,
			       int leaf_capacity, struct placement *out, struct sc_error *err);

/* The same for a file (at most CFG_MAX_FILE_BYTES). */
enum sc_status placement_load_file(enum placement_format fmt, const char *path,
				   const char *const *instances, int n_instances, int nodes,
				   int leaf_capacity, struct placement *out, struct sc_error *err);

/* Keep pl for the life of the process (moved: pl is left empty) and return
 * the kept copy; NULL when out of memory. */
const struct placement *placement_keep(struct placement *pl);

/* A placement object ({file, format(, instances)} or {generate(, blocks,
 * seed)}) at JSON pointer base of file, for `nodes` nodes on leaves of npl
 * nodes (0: the most under one switch). */
enum sc_status placement_read(const char *file, const cJSON *obj, const char *base, int nodes, int npl,
			      struct placement *out, struct sc_error *err);

/* The scenario's "cluster.placement" (root: the scenario's JSON; file its
 * path, for relative files and messages): sets sc->cluster.placement, or
 * leaves it NULL when the key is absent. */
enum sc_status placement_resolve(const char *file, const cJSON *root, struct scenario *sc,
				 struct sc_error *err);

/* The scenario's cluster.placement replaced by an EC2 topology file
 * (--placement FILE): its first sc->cluster.nodes instances. */
enum sc_status placement_use_ec2_file(const char *path, struct scenario *sc, struct sc_error *err);

/* The field table of "cluster.placement" (for the schema and the scenario
 * reader; its reader accepts the object and placement_resolve reads it). */
extern const struct cfg_field cfg_placement_fields[];

#endif
