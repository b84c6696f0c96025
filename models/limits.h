/* limits.h: the largest count each input may give, one place for all.
 *
 * Every count a scenario, a serving scenario or a command-line option gives
 * (GPUs, nodes, sequences, tokens, requests, replicas) is bounded here, and the
 * field tables (sim/config, sim/serve), the JSON Schemas (configs/schema/), the
 * CLI options and docs/limits.md's table use these numbers.  Why these
 * numbers: each is well above the largest real system of its kind, and small
 * enough that any product of two counts fits in 64 bits and every rank,
 * group size and per-GPU count fits in an int (test_schema compares the
 * schemas with the tables; tests/bad/ holds one case past each limit).
 * Header only: no allocation.
 */
#ifndef SC_LIMITS_H
#define SC_LIMITS_H

/* GPUs of one cluster: 2^20 = 1,048,576, about 5x the largest announced
 * training clusters (xAI Colossus, 200k GPUs, 2025); so nodes x GPUs per node,
 * and every group product (tp x pp x cp x dp, ep x etp), stays below 2^31. */
#define SC_MAX_GPUS (1 << 20)
/* Nodes (instances) of one cluster: at least one GPU each. */
#define SC_MAX_NODES SC_MAX_GPUS
/* GPUs per instance and per NVLink domain: NVL576 (Rubin Ultra, 2027) is the
 * largest announced domain; 4,096 leaves room. */
#define SC_MAX_GPUS_PER_NODE 4096
/* Tokens per sequence: 2^24 = 16.8 M, above the longest context trained in
 * public (10 M, Llama 4 Scout, 2025). */
#define SC_MAX_SEQ_LEN (1 << 24)
/* Sequences per optimizer step (and per micro-batch): 2^24; Llama 3 405B's
 * largest batch was 16M tokens = 2,048 sequences of 8k.  Tokens per step
 * (seq_len x global_batch_seqs) stay below 2^48. */
#define SC_MAX_BATCH_SEQS (1 << 24)
/* Decoder layers, heads, experts of a model: 2^16 each (the largest public
 * models have 126 layers, 128 heads, 256 routed experts). */
#define SC_MAX_MODEL_COUNT (1 << 16)
/* Widths (hidden, FFN, vocabulary): 2^24 (Llama 3 405B: hidden 16,384, FFN
 * 53,248; vocabularies reach 262,144). */
#define SC_MAX_MODEL_WIDTH (1 << 24)

/* Serving: replicas of one deployment (a fleet of 4,096 replicas of 8 GPUs is
 * 32k GPUs); the event simulation costs per replica and per request, so these
 * bound its time and memory too (docs/limits.md). */
#define SC_MAX_REPLICAS 4096
/* Requests simulated by one serving run (and closed-loop clients): 10^6
 * takes about 6 s and 230 MB here (docs/limits.md); published serving
 * benchmarks run 10^3 to 10^4. */
#define SC_MAX_REQUESTS 1000000
/* Draft tokens per speculative step: EAGLE-3 and Medusa draft 4-8, trees up
 * to ~64; 256 leaves room and keeps one step's work bounded. */
#define SC_MAX_DRAFT_TOKENS 256
/* Running sequences and tokens per iteration of one replica (vLLM defaults:
 * 256 sequences, 8,192 tokens; a 1M-token budget is far above any). */
#define SC_MAX_ENGINE_SEQS 65536
#define SC_MAX_ENGINE_TOKENS (1 << 20)
/* A stated KV pool of one replica (engine kv_cache_tokens): the largest
 * pools hold a few million tokens (8 x B300 of an 8B model: ~2 x 10^7);
 * 2^28 is far above any. */
#define SC_MAX_KV_CACHE_TOKENS (1 << 28)

/* Jobs sharing one fabric in a cluster file (stepcast cluster): each is a
 * set of DES actors with up to two storage tiers of its own, and the DES
 * keeps per-fabric arrays of this size; 8 covers a training job beside its
 * serving, checkpointing and data-loading neighbours. */
#define SC_MAX_CLUSTER_JOBS 8
/* KV transfers simulated per serving job in a cluster run: each is one DES
 * communication, so this bounds the run's memory and time.  A horizon that
 * needs more carries KV traffic over its first part only, and the report
 * says how long (kv_transfers_span_s). */
#define SC_MAX_CLUSTER_KV_TRANSFERS 200000

#endif
