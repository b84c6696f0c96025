/* test_storage.c: models/storage against hand-computed values: checkpoint
 * sizes of Llama-3-70B and DeepSeek-V3 under ZeRO-1 and FSDP (and BLOOM-176B
 * against its published checkpoint), tier bandwidths, checkpoint write and
 * restore times, and the data-loading stall appearing exactly when demand
 * exceeds supply.  Scenarios are read from JSON text against the real
 * catalogue (configs/), so this runs from the repository root. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "models/storage.h"
#include "sim/config/catalog_load.h"
#include "sim/config/scenario_load.h"
#include "sc_test.h"

static struct catalog cat;
static bool have_cat;

/* A scenario from JSON text; NULL (and a failed check) if it does not load. */
static const struct scenario *load(const char *json)
{
	static struct scenario sc;
	struct sc_error err;
	cJSON *root;
	enum sc_status st;

	sc_error_clear(&err);
	root = cfg_parse_buffer("test", json, strlen(json), &err);
	CHECK(root != NULL);
	if (!root) {
		fprintf(stderr, "parse: %s\n", err.message);
		return NULL;
	}
	st = scenario_read("test", root, &cat, &sc, &err);
	cJSON_Delete(root);
	CHECK(st == SC_OK);
	if (st != SC_OK) {
		fprintf(stderr, "scenario: %s: %s\n", err.pointer, err.message);
		return NULL;
	}
	return &sc;
}

#define LLAMA70B_ZERO1 \
	"{\"name\":\"t\",\"model\":\"llama3-70b\"," \
	"\"cluster\":{\"instance\":\"p5en.48xlarge\",\"nodes\":64,\"fabric\":\"ultracluster\"}," \
	"\"training\":{\"seq_len\":8192,\"global_batch_seqs\":512,\"micro_batch_seqs\":1," \
	"\"precision\":\"bf16\",\"recompute\":\"selective\"}," \
	"\"layout\":{\"tp\":8,\"pp\":4,\"vpp\":5,\"dp\":16,\"zero_stage\":1}"

#define LLAMA70B_FSDP \
	"{\"name\":\"t\",\"model\":\"llama3-70b\"," \
	"\"cluster\":{\"instance\":\"p5en.48xlarge\",\"nodes\":64,\"fabric\":\"ultracluster\"}," \
	"\"training\":{\"seq_len\":8192,\"global_batch_seqs\":512,\"micro_batch_seqs\":1," \
	"\"precision\":\"bf16\",\"recompute\":\"selective\"}," \
	"\"layout\":{\"tp\":8,\"pp\":1,\"dp\":64,\"fsdp\":true}"

#define DSV3_ZERO1 \
	"{\"name\":\"t\",\"model\":\"deepseek-v3\"," \
	"\"cluster\":{\"instance\":\"p5en.48xlarge\",\"nodes\":32,\"fabric\":\"ultracluster\"}," \
	"\"training\":{\"seq_len\":4096,\"global_batch_seqs\":512,\"micro_batch_seqs\":1," \
	"\"precision\":\"bf16\",\"recompute\":\"full\"}," \
	"\"layout\":{\"tp\":1,\"pp\":8,\"dp\":32,\"ep\":32,\"etp\":1,\"zero_stage\":1}"

#define DSV3_FSDP \
	"{\"name\":\"t\",\"model\":\"deepseek-v3\"," \
	"\"cluster\":{\"instance\":\"p5en.48xlarge\",\"nodes\":32,\"fabric\":\"ultracluster\"}," \
	"\"training\":{\"seq_len\":4096,\"global_batch_seqs\":512,\"micro_batch_seqs\":1," \
	"\"precision\":\"bf16\",\"recompute\":\"full\"}," \
	"\"layout\":{\"tp\":1,\"pp\":1,\"dp\":256,\"ep\":32,\"etp\":1,\"fsdp\":true}"

/* Llama-3-70B by hand: embedding and output 128256 x 8192 each; per layer
 * q 8192^2, k and v 8192 x 1024 each, o 8192^2, SwiGLU 3 x 8192 x 28672, two
 * norms 2 x 8192: 855,654,400; 80 layers + 2 x 1,050,673,152 + final norm
 * 8192 = 70,553,706,496 parameters.  Saved: 2 (BF16) + 4 (FP32 master) + 8
 * (Adam m, v in FP32) = 14 bytes each = 987,751,890,944 bytes. */
static const double llama70b_params = 70553706496.0;

static void test_ckpt_llama70b(void)
{
	const struct scenario *sc = load(LLAMA70B_ZERO1 "}");
	struct ckpt_size z1, fs;
	double p = llama70b_params;

	if (!sc)
		return;
	storage_ckpt_size(sc, MOMENTS_FP32, &z1);
	CHECK_REL(z1.params, p, 1e-12);
	CHECK_REL(z1.weights_bytes, 2 * p, 1e-12);
	CHECK_REL(z1.master_bytes, 4 * p, 1e-12);
	CHECK_REL(z1.moments_bytes, 8 * p, 1e-12);
	CHECK_REL(z1.total_bytes, 987751890944.0, 1e-12);
	/* fully parallel save: every one of the 512 GPUs writes 1/512 */
	CHECK_REL(z1.gpu_write_bytes, 987751890944.0 / 512, 1e-12);
	CHECK_REL(z1.node_write_bytes, 987751890944.0 / 64, 1e-12);
	/* ZeRO-1, tp 8 pp 4 dp 16: full BF16 weights of the 1/32 slice
	 * (2 x p / 32 = 4,409,606,656) plus 12 x p / 512 of optimizer state
	 * (1,653,602,496); the weights are replicated over the 16 DP ranks */
	CHECK_REL(z1.gpu_held_bytes, 6063209152.0, 1e-12);
	CHECK_REL(z1.gpu_replicated_bytes, 4409606656.0, 1e-12);
	CHECK(z1.replica_group == 16);

	sc = load(LLAMA70B_FSDP "}");
	if (!sc)
		return;
	storage_ckpt_size(sc, MOMENTS_FP32, &fs);
	/* the checkpoint does not depend on the sharding ... */
	CHECK_REL(fs.total_bytes, z1.total_bytes, 1e-12);
	CHECK_REL(fs.gpu_write_bytes, z1.gpu_write_bytes, 1e-12);
	/* ... what a GPU holds does: FSDP over tp 8 x dp 64 holds 14 p / 512
	 * = 1,929,202,912 bytes, nothing replicated */
	CHECK_REL(fs.gpu_held_bytes, 1929202912.0, 1e-12);
	CHECK(fs.gpu_replicated_bytes == 0);

	/* BF16 moments: 2 + 4 + 4 = 10 bytes per parameter */
	storage_ckpt_size(sc, MOMENTS_BF16, &fs);
	CHECK_REL(fs.total_bytes, 10 * p, 1e-12);
}

/* DeepSeek-V3 by hand (MLA, 3 dense + 58 MoE layers of 256 routed experts
 * and 1 shared, one MTP module with an MoE block):
 *   attention per layer: 7168 x 1536 + 1536 x 128 x 192 + 7168 x 576 +
 *     512 x 128 x 256 + 128 x 128 x 7168 + norms (7168 + 1536 + 512)
 *     = 187,107,328;
 *   dense layer: + 3 x 7168 x 18432 + 7168 = 583,483,392 + ... ;
 *   one routed expert 3 x 7168 x 2048 = 44,040,192, so 256 of them
 *     11,274,289,152 per MoE layer;
 *   total 671,026,404,352 (the published 671 B) + MTP 11,610,067,968
 *     = 682,636,472,320 saved, of which routed experts (58 + 1 layers)
 *     665,183,059,968 and the rest 17,453,412,352. */
static const double dsv3_params = 682636472320.0;
static const double dsv3_expert = 665183059968.0;

static void test_ckpt_deepseek(void)
{
	const struct scenario *sc = load(DSV3_ZERO1 "}");
	struct ckpt_size z1, fs;
	double dense = dsv3_params - dsv3_expert;

	if (!sc)
		return;
	storage_ckpt_size(sc, MOMENTS_FP32, &z1);
	CHECK_REL(z1.params, dsv3_params, 1e-12);
	CHECK_REL(z1.total_bytes, 14 * dsv3_params, 1e-12);   /* 9.557 TB */
	CHECK_REL(z1.gpu_write_bytes, 14 * dsv3_params / 256, 1e-12);
	/* ZeRO-1, tp 1 pp 8 dp 32 ep 32: the expert data-parallel group is
	 * tp cp dp / (etp ep) = 1, so expert state is not sharded:
	 * weights 2 (dense / 8 + experts / 256), optimizer 12 (dense / 256 +
	 * experts / 256) */
	CHECK_REL(z1.gpu_held_bytes, 2 * (dense / 8 + dsv3_expert / 256) +
				     12 * (dense / 256 + dsv3_expert / 256), 1e-12);
	CHECK_REL(z1.gpu_held_bytes, 41558680384.0, 1e-12);

	sc = load(DSV3_FSDP "}");
	if (!sc)
		return;
	storage_ckpt_size(sc, MOMENTS_FP32, &fs);
	CHECK_REL(fs.total_bytes, z1.total_bytes, 1e-12);
	/* FSDP over dp 256, experts over ep 32 x expert-dp 8: 14 p / 256 */
	CHECK_REL(fs.gpu_held_bytes, 14 * dsv3_params / 256, 1e-12);
	CHECK_REL(fs.gpu_held_bytes, 37331682080.0, 1e-12);
}

/* BLOOM-176B (70 layers, hidden 14336, 112 heads, 4h GeLU MLP, vocabulary
 * 250880, tied embeddings: 176,236,189,696 parameters here, without
 * biases): its published checkpoint is 2.3 TB of which the BF16 weights are
 * 329 GB (bigscience tr11-176B-ml README, hardware-facts
 * bloom-176b-checkpoint-save; sizes in binary units). */
static void test_ckpt_bloom(void)
{
	const struct scenario *sc = load(
		"{\"name\":\"t\",\"model\":{\"name\":\"bloom-176b\",\"layers\":70,\"hidden\":14336,"
		"\"ffn_hidden\":57344,\"heads\":112,\"kv_heads\":112,\"vocab\":250880,"
		"\"gated_mlp\":false,\"activation\":\"gelu\",\"tied_embeddings\":true,\"source\":\"test\"},"
		"\"cluster\":{\"instance\":\"p4de.24xlarge\",\"nodes\":48,\"fabric\":\"ultracluster\"},"
		"\"training\":{\"seq_len\":2048,\"global_batch_seqs\":2048,\"micro_batch_seqs\":2,"
		"\"precision\":\"bf16\",\"recompute\":\"full\"},"
		"\"layout\":{\"tp\":4,\"pp\":12,\"dp\":8}}");
	struct ckpt_size z;
	const double GiB = 1024.0 * 1024 * 1024, TiB = GiB * 1024;

	if (!sc)
		return;
	storage_ckpt_size(sc, MOMENTS_FP32, &z);
	CHECK_REL(z.params, 176236189696.0, 1e-12);
	CHECK_REL(z.weights_bytes / GiB, 329, 0.005);
	CHECK_REL(z.total_bytes / TiB, 2.3, 0.03);
}

static void test_bandwidth(void)
{
	const struct storage_spec *fsx = catalog_storage(&cat, "fsx-lustre-persistent2-250");
	const struct storage_spec *nvme = catalog_storage(&cat, "nvme-local");
	const struct storage_spec *s3 = catalog_storage(&cat, "s3");
	const struct instance_spec *p5 = catalog_instance(&cat, "p5.48xlarge");
	struct storage_bw bw;
	struct sc_error err;
	struct instance_spec bare;

	CHECK(fsx && nvme && s3 && p5);
	if (!fsx || !nvme || !s3 || !p5)
		return;
	/* FSx: 10 TiB x 250 MB/s per TiB; a p5 node reaches it over 32 x 100 Gb/s */
	CHECK(storage_bandwidth(fsx, p5, 4, 10, 1, &bw, &err) == SC_OK);
	CHECK(bw.kind == STORAGE_FSX);
	CHECK_REL(bw.write_Bps, 2.5e9, 1e-12);
	CHECK_REL(bw.read_Bps, 2.5e9, 1e-12);
	CHECK_REL(bw.node_write_Bps, 400e9, 1e-12);
	/* default capacity: the tier's 1.171875 TiB */
	CHECK(storage_bandwidth(fsx, p5, 4, 0, 1, &bw, &err) == SC_OK);
	CHECK_REL(bw.write_Bps, 1.171875 * 250e6, 1e-12);
	/* NVMe: 8 drives x 0.502 GB/s per node, on every node */
	CHECK(storage_bandwidth(nvme, p5, 4, 0, 1, &bw, &err) == SC_OK);
	CHECK_REL(bw.node_write_Bps, 8 * 0.502e9, 1e-12);
	CHECK_REL(bw.write_Bps, 4 * 8 * 0.502e9, 1e-12);
	/* S3: 3 prefixes x 3,500 PUT/s x 8 MiB; 12.5 GB/s per client */
	CHECK(storage_bandwidth(s3, p5, 4, 0, 3, &bw, &err) == SC_OK);
	CHECK_REL(bw.write_Bps, 3 * 3500.0 * 8388608, 1e-12);
	CHECK_REL(bw.read_Bps, 3 * 5500.0 * 8388608, 1e-12);
	CHECK_REL(bw.node_read_Bps, 12.5e9, 1e-12);
	/* an instance without drives cannot use NVMe */
	bare = *p5;
	bare.nvme_drives = 0;
	sc_error_clear(&err);
	CHECK(storage_bandwidth(nvme, &bare, 4, 0, 1, &bw, &err) == SC_EINVAL);
	CHECK(strstr(err.message, "no local NVMe") != NULL);
}

/* Every rank writes at once: the tier's aggregate or the node's ceiling,
 * whichever is slower; NVMe writes two shares per node and sends one. */
static void test_ckpt_io(void)
{
	struct storage_bw bw;
	struct ckpt_size sz;
	struct ckpt_io io;

	memset(&bw, 0, sizeof(bw));
	memset(&sz, 0, sizeof(sz));
	bw.kind = STORAGE_FSX;
	bw.write_Bps = 100e9;
	bw.read_Bps = 200e9;
	bw.node_write_Bps = bw.node_read_Bps = bw.node_net_Bps = 10e9;
	bw.latency_s = 1e-3;
	sz.total_bytes = 1e12;
	sz.node_write_bytes = 1e12 / 8;        /* 8 nodes of 8 GPUs */
	sz.gpu_write_bytes = 1e12 / 64;
	storage_ckpt_io(&bw, &sz, 50e9, 8, &io);
	/* 8 nodes: each node's 125 GB at 10 GB/s = 12.5 s > 1 TB / 100 GB/s */
	CHECK(io.write_node_bound);
	CHECK_REL(io.write_s, 12.5, 1e-12);
	CHECK_REL(io.snapshot_s, 1e12 / 64 / 50e9, 1e-12);
	CHECK_REL(io.sync_stall_s, 12.5 + 1e-3, 1e-12);
	CHECK_REL(io.async_stall_s, io.snapshot_s, 1e-12);
	CHECK_REL(io.drain_s, 12.5 + 1e-3, 1e-12);
	CHECK_REL(io.host_bytes_per_node, 1e12 / 8, 1e-12);
	/* 800 nodes: 1.25 GB each at 10 GB/s = 0.125 s < 10 s for the tier */
	sz.node_write_bytes = 1e12 / 800;
	storage_ckpt_io(&bw, &sz, 50e9, 8, &io);
	CHECK(!io.write_node_bound);
	CHECK_REL(io.write_s, 10.0, 1e-12);
	CHECK_REL(io.read_s, 5.0 + 1e-3, 1e-12);
	/* NVMe: 2 shares at 4 GB/s of drives vs one share at 10 GB/s */
	bw.kind = STORAGE_NVME;
	bw.node_write_Bps = 4e9;
	bw.node_read_Bps = 9e9;
	sz.node_write_bytes = 8e9;
	storage_ckpt_io(&bw, &sz, 50e9, 8, &io);
	CHECK_REL(io.write_s, 4.0, 1e-12);
	CHECK_REL(io.read_s, 8e9 / 9e9 + 1e-3, 1e-12);
}

/* The stall appears exactly when the bytes a step needs take longer to read
 * than the step computes (demand above supply). */
static void test_data_stall(void)
{
	struct storage_bw bw;
	struct data_load_in in;
	struct data_load_out out;
	double supply = 1e9;

	memset(&bw, 0, sizeof(bw));
	bw.read_Bps = supply;
	bw.node_read_Bps = 1e12;
	bw.latency_s = 0;
	in.tokens_per_step = 1e6;
	in.bytes_per_token = 4;
	in.copies = 1;
	in.reading_nodes = 4;
	in.prefetch_batches = 2;
	/* 4 MB per step: demand = supply at a 4 ms step */
	for (int i = -50; i <= 50; i++) {
		double t = 4e-3 * (1.0 + i * 0.01);

		in.compute_step_s = t;
		storage_data_load(&bw, &in, &out);
		CHECK_REL(out.demand_Bps, 4e6 / t, 1e-12);
		CHECK_REL(out.supply_Bps, supply, 1e-12);
		if (out.demand_Bps > out.supply_Bps) {
			CHECK(out.stall_s > 0);
			CHECK_REL(out.stall_s, 4e6 / supply - t, 1e-9);
		} else {
			CHECK(out.stall_s == 0);
		}
	}
	/* the reading nodes' links bind when they are slower than the tier */
	bw.node_read_Bps = 0.1e9;     /* 4 nodes x 0.1 GB/s < 1 GB/s */
	in.compute_step_s = 1.0;
	storage_data_load(&bw, &in, &out);
	CHECK(out.node_bound);
	CHECK_REL(out.fetch_s, 1e6 / 0.1e9, 1e-12);
	CHECK(out.stall_s == 0);        /* 10 ms to read, 1 s to compute */
	/* latency: hidden k-fold by prefetch, fully exposed without it */
	bw.node_read_Bps = 1e12;
	bw.latency_s = 0.05;
	in.compute_step_s = 0.01;
	storage_data_load(&bw, &in, &out);
	CHECK_REL(out.stall_s, 4e-3 + 0.05 / 2 - 0.01, 1e-9);
	in.prefetch_batches = 0;
	storage_data_load(&bw, &in, &out);
	CHECK_REL(out.stall_s, 0.05 + 4e-3, 1e-12);
	/* no data: no stall */
	in.tokens_per_step = 0;
	storage_data_load(&bw, &in, &out);
	CHECK(out.stall_s == 0);
}

/* Megatron reads on the first stage (and, with pp > 1, the last), once per
 * CP rank of each DP replica. */
static void test_data_readers(void)
{
	const struct scenario *sc = load(LLAMA70B_ZERO1 "}");
	double copies;
	int nodes;

	if (!sc)
		return;
	storage_data_readers(sc, &copies, &nodes);
	/* tp 8 dp 16: a stage is 128 ranks = 16 nodes; first and last stage */
	CHECK_REL(copies, 2.0, 0);
	CHECK(nodes == 32);
	sc = load(LLAMA70B_FSDP "}");
	if (!sc)
		return;
	storage_data_readers(sc, &copies, &nodes);
	CHECK_REL(copies, 1.0, 0);
	CHECK(nodes == 64);
	CHECK_REL(storage_default_bytes_per_token(32000), 2.0, 0);
	CHECK_REL(storage_default_bytes_per_token(128256), 4.0, 0);
}

int main(void)
{
	struct sc_error err;

	sc_error_clear(&err);
	have_cat = catalog_load("configs", &cat, &err) == SC_OK;
	CHECK(have_cat);
	if (!have_cat) {
		fprintf(stderr, "catalogue: %s: %s: %s\n", err.file, err.pointer, err.message);
		return sc_test_summary();
	}
	RUN(test_ckpt_llama70b);
	RUN(test_ckpt_deepseek);
	RUN(test_ckpt_bloom);
	RUN(test_bandwidth);
	RUN(test_ckpt_io);
	RUN(test_data_stall);
	RUN(test_data_readers);
	catalog_free(&cat);
	return sc_test_summary();
}
