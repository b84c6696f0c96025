/* test_layout.c: the layout owner (models/layout): the frameworks' rules,
 * the derived quantities, and the layer split of every virtual stage
 * (contiguous, covering every layer once, as even as its split allows). */
#include "../../models/layout.h"
#include "sc_test.h"

#include <string.h>

static struct scenario base(int layers, int nodes)
{
	struct scenario s;

	memset(&s, 0, sizeof(s));
	strcpy(s.model.name, "test");
	s.model.layers = layers;
	s.model.hidden = 8192;
	s.model.heads = 64;
	s.model.kv_heads = 8;
	s.model.vocab = 128256;
	s.cluster.nodes = nodes;
	s.cluster.instance.gpus_per_node = 8;
	s.cluster.instance.nvlink_domain_gpus = 8;
	s.training.seq_len = 8192;
	s.training.global_batch_seqs = 512;
	s.training.micro_batch_seqs = 1;
	s.layout.tp = 8;
	s.layout.pp = 4;
	s.layout.vpp = 1;
	s.layout.cp = 1;
	s.layout.ep = 1;
	s.layout.dp = nodes * 8 / 32;
	s.layout.zero_stage = 1;
	s.layout.sequence_parallel = true;
	s.layout.schedule = SCHED_1F1B;
	return s;
}

static enum sc_status derive(const struct scenario *s, struct layout_info *li, struct sc_error *err)
{
	return layout_derive(s, "x.json", li, err);
}

static void expect(const struct scenario *s, const char *pointer, const char *words)
{
	struct layout_info li;
	struct sc_error err;

	CHECK(derive(s, &li, &err) == SC_EINVAL);
	CHECK_STR(err.pointer, pointer);
	CHECK_STR(err.file, "x.json");
	CHECK(strstr(err.message, words) != NULL);
	if (!strstr(err.message, words))
		fprintf(stderr, "  message: %s\n", err.message);
}

/* Every layer in exactly one virtual stage, in order; returns the largest
 * and smallest decoder-layer count over virtual stages. */
static void split_shape(const struct layout_info *li, int *lo, int *hi)
{
	int next = 0;

	*lo = 1 << 30;
	*hi = 0;
	for (int j = 0; j < li->virtual_stages; j++) {
		int b, e;

		layout_vstage_layers(li, j, &b, &e);
		CHECK(b == next);
		CHECK(e >= b);
		next = e;
		if (e - b < *lo)
			*lo = e - b;
		if (e - b > *hi)
			*hi = e - b;
	}
	CHECK(next == li->layers);
}

static void test_derived(void)
{
	struct scenario s = base(80, 64);   /* 512 GPUs: tp 8 pp 4 dp 16 */
	struct layout_info li;
	struct sc_error err;

	CHECK(derive(&s, &li, &err) == SC_OK);
	CHECK(li.gpus == 512);
	CHECK(li.micro_batches == 32);
	CHECK(li.stage_gpus == 128);
	CHECK(li.dense_shard == 16);
	CHECK(li.etp == 8);
	CHECK(li.edp == 1);
	CHECK(li.g[LG_TP].ranks == 8 && li.g[LG_TP].stride == 1);
	CHECK(li.g[LG_DP].ranks == 16 && li.g[LG_DP].stride == 8);
	CHECK(li.g[LG_PP].ranks == 2 && li.g[LG_PP].stride == 128);
	CHECK(li.g[LG_REPLICA].ranks == 1);
	CHECK(li.split == SPLIT_EVEN);
	/* HSDP: shard 4, replicate 4 */
	s.layout.zero_stage = 3;
	s.layout.fsdp = true;
	s.layout.fsdp_group = 4;
	CHECK(derive(&s, &li, &err) == SC_OK);
	CHECK(li.zero == 3);
	CHECK(li.dense_shard == 4);
	CHECK(li.g[LG_REPLICA].ranks == 4 && li.g[LG_REPLICA].stride == 32);
	/* fsdp_group against dp x cp, not dp (tp 2 cp 2 dp 2: group 4) */
	s = base(80, 1);
	s.layout.tp = 2;
	s.layout.pp = 1;
	s.layout.cp = 2;
	s.layout.dp = 2;
	s.training.global_batch_seqs = 64;
	s.layout.zero_stage = 3;
	s.layout.fsdp = true;
	s.layout.fsdp_group = 4;
	CHECK(derive(&s, &li, &err) == SC_OK);
	s.layout.fsdp_group = 3;
	expect(&s, "/layout/fsdp_group", "divide dp x cp");
}

static void test_rules(void)
{
	struct scenario s;

	s = base(80, 64);
	s.layout.dp = 8;
	expect(&s, "/layout/dp", "the cluster has 512 GPUs");
	s = base(80, 64);
	s.model.heads = 60;
	expect(&s, "/layout/tp", "query heads");
	s = base(80, 64);
	s.cluster.instance.nvlink_domain_gpus = 72;   /* tp 16 straddles 72-GPU domains */
	s.cluster.instance.gpus_per_node = 4;
	s.cluster.nodes = 128;
	s.layout.tp = 16;
	s.layout.dp = 8;
	expect(&s, "/layout/tp", "straddle");
	s = base(80, 64);
	s.layout.vpp = 2;                               /* schedule still 1f1b */
	expect(&s, "/layout/vpp", "interleaved-1f1b");
	s.layout.schedule = SCHED_INTERLEAVED_1F1B;
	s.training.global_batch_seqs = 16 * 6;          /* 6 micro-batches on pp 4 */
	expect(&s, "/training/global_batch_seqs", "multiple of pp \"4\"");
	s.training.global_batch_seqs = 16 * 4;          /* 4: fewer than 2 pp, still valid */
	CHECK(derive(&s, NULL, NULL) == SC_OK);
	s = base(80, 64);
	s.layout.vpp = 21;                              /* 84 > 82 */
	s.layout.schedule = SCHED_INTERLEAVED_1F1B;
	expect(&s, "/layout/vpp", "layers + 2");
	s = base(80, 64);
	s.layout.cp = 2;
	s.layout.dp = 8;
	s.training.seq_len = 8190;
	expect(&s, "/layout/cp", "2 x cp");
	s = base(80, 64);
	s.layout.tp = 1;
	s.layout.dp = 128;
	expect(&s, "/layout/sequence_parallel", "tp > 1");
	s = base(80, 64);
	s.layout.ep = 2;
	expect(&s, "/layout/ep", "MoE");
	s = base(80, 64);
	s.training.micro_batch_seqs = 0;
	expect(&s, "/training/micro_batch_seqs", "at least 1");
	/* MoE refold: etp x ep divides tp x cp x dp */
	s = base(80, 64);
	s.model.experts = 64;
	s.model.top_k = 8;
	s.model.moe_ffn_hidden = 2048;
	s.layout.ep = 64;
	s.layout.etp = 1;
	CHECK(derive(&s, NULL, NULL) == SC_OK);
	s.layout.etp = 8;                               /* 512 > 128 */
	expect(&s, "/layout/ep", "etp x ep (512)");
	s.layout.etp = 1;
	s.layout.ep = 48;
	expect(&s, "/layout/ep", "experts");
}

static void test_splits(void)
{
	struct scenario s;
	struct layout_info li;
	struct sc_error err;
	int lo, hi, b, e;

	/* even: 80 on 4 x 5 */
	s = base(80, 64);
	s.layout.vpp = 5;
	s.layout.schedule = SCHED_INTERLEAVED_1F1B;
	CHECK(derive(&s, &li, &err) == SC_OK);
	CHECK(li.split == SPLIT_EVEN);
	split_shape(&li, &lo, &hi);
	CHECK(lo == 4 && hi == 4);
	/* slots: Llama 3 405B, 126 layers on 16 x 8: the first virtual stage
	 * holds only the embedding, the last only the loss */
	s = base(126, 2048);
	s.layout.pp = 16;
	s.layout.dp = 128;
	s.layout.vpp = 8;
	s.layout.schedule = SCHED_INTERLEAVED_1F1B;
	s.training.global_batch_seqs = 2048;
	CHECK(derive(&s, &li, &err) == SC_OK);
	CHECK(li.split == SPLIT_SLOTS);
	layout_vstage_layers(&li, 0, &b, &e);
	CHECK(b == 0 && e == 0);
	layout_vstage_layers(&li, li.virtual_stages - 1, &b, &e);
	CHECK(b == 126 && e == 126);
	split_shape(&li, &lo, &hi);
	CHECK(lo == 0 && hi == 1);
	s.layout.layer_split = SPLIT_EVEN;
	expect(&s, "/layout/layer_split", "multiple of pp x vpp");
	/* balanced: 61 layers on 16 stages (DeepSeek-V3 on pp 16): 63 slots,
	 * 3 or 4 per stage, so 2..4 decoder layers */
	s = base(61, 256);
	s.model.heads = 128;
	s.model.kv_heads = 128;
	s.layout.tp = 1;
	s.layout.pp = 16;
	s.layout.dp = 128;
	s.layout.sequence_parallel = false;
	s.training.global_batch_seqs = 2048;
	CHECK(derive(&s, &li, &err) == SC_OK);
	CHECK(li.split == SPLIT_BALANCED);
	split_shape(&li, &lo, &hi);
	CHECK(lo >= 2 && hi <= 4);
	s.layout.layer_split = SPLIT_SLOTS;
	expect(&s, "/layout/layer_split", "layers + 2");
	/* uneven: 80 = 18 + 22 + 22 + 18, vpp 2: 9, 11, 11, 9 per chunk */
	s = base(80, 64);
	s.layout.vpp = 2;
	s.layout.schedule = SCHED_INTERLEAVED_1F1B;
	s.layout.first_stage_layers = 18;
	s.layout.last_stage_layers = 18;
	CHECK(derive(&s, &li, &err) == SC_OK);
	CHECK(li.split == SPLIT_UNEVEN);
	split_shape(&li, &lo, &hi);
	CHECK(lo == 9 && hi == 11);
	layout_vstage_layers(&li, 0, &b, &e);
	CHECK(b == 0 && e == 9);
	layout_vstage_layers(&li, 4, &b, &e);   /* chunk 1 of rank 0 */
	CHECK(b == 40 && e == 49);
	layout_vstage_layers(&li, 7, &b, &e);   /* chunk 1 of the last rank */
	CHECK(b == 71 && e == 80);
	s.layout.last_stage_layers = 0;         /* 62 left over 3 ranks */
	expect(&s, "/layout/first_stage_layers", "split evenly");
	s.layout.first_stage_layers = 17;
	s.layout.last_stage_layers = 17;
	expect(&s, "/layout/first_stage_layers", "multiples of vpp");
	s.layout.first_stage_layers = 20;
	s.layout.last_stage_layers = 20;
	s.layout.layer_split = SPLIT_SLOTS;
	expect(&s, "/layout/layer_split", "uneven");
}

static void test_single_rules(void)
{
	struct model_arch m;

	memset(&m, 0, sizeof(m));
	m.heads = 64;
	m.kv_heads = 8;
	CHECK(layout_tp_fits_heads(&m, 8));
	CHECK(layout_tp_fits_heads(&m, 16));   /* KV heads replicated */
	CHECK(!layout_tp_fits_heads(&m, 3));
	m.kv_heads = 6;
	m.heads = 48;
	CHECK(!layout_tp_fits_heads(&m, 4));   /* 6 and 4 do not divide one another */
	CHECK(layout_cp_fits_seq(8192, 8, 2, true));
	CHECK(!layout_cp_fits_seq(8190, 1, 2, false));
	CHECK(!layout_cp_fits_seq(8192, 3, 1, true));
	CHECK(layout_hidden_s(0.5, 2.0, 10.0) == 1.0);
	CHECK(layout_hidden_s(0.5, 2.0, 0.25) == 0.25);
	CHECK(layout_hidden_s(0.5, 2.0, -1.0) == 0.0);
}

int main(void)
{
	test_derived();
	test_rules();
	test_splits();
	test_single_rules();
	return sc_test_summary();
}
