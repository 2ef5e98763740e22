/* test_comm.c -- collective closed forms, per-strategy volumes, FLOP counts, overlap limits. */
#include <math.h>
#include <string.h>

#include "core/collective.h"
#include "core/finetune.h"
#include "core/framework.h"
#include "core/nccl.h"
#include "core/sim.h"
#include "core/strategy.h"
#include "core/tpoverlap.h"
#include "core/hwvariant.h"
#include "fixture_hw.h"
#include "test.h"
#include "analysis/uncertainty.h"
#include "io/catalog.h"
#include "io/hardware_json.h"
#include "io/model_json.h"

/* Thakur, Rabenseifner & Gropp 2005 closed forms at small n. */
static void closed_forms(void)
{
    coll_link l = {.alpha = 2e-6, .bandwidth = 100e9};
    double big = 1e9, small = 1e3;
    /* ring all-reduce, n = 4: 2(n-1) alpha + 2 (n-1)/n S / B */
    CHECK_NEAR(coll_allreduce.flat_time(big, 4, l), 6 * 2e-6 + 1.5 * big / 100e9, 1e-12);
    /* tiny messages take the tree: 2 log2(n) alpha + 2 S / B */
    CHECK_NEAR(coll_allreduce.flat_time(small, 64, l), 2 * 6 * 2e-6 + 2 * small / 100e9, 1e-12);
    /* reduce-scatter and all-gather, n = 8: (n-1) alpha + (n-1)/n S / B */
    CHECK_NEAR(coll_reducescatter.flat_time(big, 8, l), 7 * 2e-6 + 7.0 / 8 * big / 100e9, 1e-12);
    CHECK_NEAR(coll_allgather.flat_time(big, 8, l), 7 * 2e-6 + 7.0 / 8 * big / 100e9, 1e-12);
    /* pipelined broadcast: (n-1) alpha + S / B; p2p: alpha + S / B */
    CHECK_NEAR(coll_broadcast.flat_time(big, 8, l), 7 * 2e-6 + big / 100e9, 1e-12);
    CHECK_NEAR(coll_p2p.flat_time(big, 2, l), 2e-6 + big / 100e9, 1e-12);
    /* nccl-tests doc/PERFORMANCE.md bus bandwidth factors */
    CHECK_NEAR(coll_allreduce.busbw_factor(8), 2.0 * 7 / 8, 1e-15);
    CHECK_NEAR(coll_allgather.busbw_factor(8), 7.0 / 8, 1e-15);
    CHECK_NEAR(coll_reducescatter.busbw_factor(8), 7.0 / 8, 1e-15);
    CHECK_NEAR(coll_alltoall.busbw_factor(8), 7.0 / 8, 1e-15);
    CHECK_NEAR(coll_broadcast.busbw_factor(8), 1, 1e-15);
}

static void hierarchical(void)
{
    coll_link links[LEVEL_COUNT] = {
        {.alpha = 3e-6, .bandwidth = 300e9}, {.alpha = 14e-6, .bandwidth = 25e9}, {.bandwidth = 25e9}};
    coll_cost c;
    double s = 8e9;
    /* 2 nodes x 4 GPUs: RS + AG inside (2 x 3/4 S on NVLink), AR of S/4 across 2 nodes. */
    coll_cost_of(COLL_ALL_REDUCE, s, (coll_group){8, 4}, links, &c);
    CHECK_NEAR(c.bytes[LEVEL_INTRA], 2 * 0.75 * s, 1e-12);
    CHECK_NEAR(c.bytes[LEVEL_INTER], 2 * 0.5 * s / 4, 1e-12);
    /* one rank per node: everything on the network; inside one node: everything on NVLink */
    coll_cost_of(COLL_ALL_GATHER, s, (coll_group){4, 1}, links, &c);
    CHECK_NEAR(c.bytes[LEVEL_INTER], 0.75 * s, 1e-12);
    CHECK_EQ_INT(c.bytes[LEVEL_INTRA], 0);
    coll_cost_of(COLL_ALL_GATHER, s, (coll_group){8, 8}, links, &c);
    CHECK_NEAR(c.bytes[LEVEL_INTRA], 7.0 / 8 * s, 1e-12);
    /* a group of one costs nothing */
    coll_cost_of(COLL_ALL_REDUCE, s, (coll_group){1, 1}, links, &c);
    CHECK_EQ_INT(c.seconds, 0);
}

static hardware node_hw(void) { return fixture_hw(FIXTURE_A100_NODE); }

/* ZeRO paper section 7: per GPU, DDP and ZeRO-1/2 move 2P elements, ZeRO-3 3P, each times
 * (n-1)/n, at gradient accumulation 1. 16-bit elements: 2 bytes. */
static void strategy_volumes(void)
{
    model m;
    param_counts pc;
    double P = 1e9;
    model_from_params(&m, &pc, P, 1e7);
    hardware hw = node_hw();
    training t;
    training_init(&t);
    t.gpus = 8;
    sim_input in;
    zs_error e = {0};
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    const double want[4] = {2 * P * 2 * 7 / 8, 2 * P * 2 * 7 / 8, 2 * P * 2 * 7 / 8, 3 * P * 2 * 7 / 8};
    for (int s = 0; s < 4; s++) {
        result r;
        sim_run(&in, strategies[s], 0, &r);
        test_current = strategies[s]->name;
        CHECK_NEAR(r.comm.bytes_total, want[s], 1e-9);
        CHECK_NEAR(r.comm.ideal_bytes, want[s], 1e-9);
        CHECK_NEAR(r.comm.bytes_level[LEVEL_INTRA], want[s], 1e-9);
    }
    /* Gradient accumulation 4: ZeRO-2 reduce-scatters every micro-batch, ZeRO-3 gathers every
     * micro-batch, DDP (no_sync) and ZeRO-1 still communicate once per step. */
    t.grad_accum = 4;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    const double acc[4] = {2 * P * 2 * 7 / 8, 2 * P * 2 * 7 / 8, 5 * P * 2 * 7 / 8, 12 * P * 2 * 7 / 8};
    for (int s = 0; s < 4; s++) {
        result r;
        sim_run(&in, strategies[s], 0, &r);
        test_current = strategies[s]->name;
        CHECK_NEAR(r.comm.bytes_total, acc[s], 1e-9);
    }
    /* Full recompute: ZeRO-3 gathers a third time per micro-batch (4P). */
    t.grad_accum = 1;
    t.checkpointing = CKPT_FULL;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    result r;
    sim_run(&in, &strat_zero3, 0, &r);
    CHECK_NEAR(r.comm.bytes_total, 4 * P * 2 * 7 / 8, 1e-9);
}

/* Narayanan et al. 2021 (arXiv 2104.04473) eq. 3: a GPT step with full recompute executes
 * 96 B s l h^2 (1 + s/(6h) + V/(16 l h)) FLOPs; without recompute 72 B s l h^2 (1 + s/(6h) +
 * V/(12 l h)). Biases add under 1e-3 here. */
static void narayanan_flops(void)
{
    model m = {0};
    snprintf(m.model_type, sizeof m.model_type, "transformer");
    m.hidden_size = 4096; m.num_layers = 32; m.num_heads = 32; m.num_kv_heads = 32;
    m.head_dim = 128; m.intermediate_size = 4 * 4096; m.vocab_size = 51200; m.max_positions = 2048;
    m.norm = NORM_LAYERNORM; m.norm_bias = true; m.pos = POS_LEARNED; m.tied_embeddings = true;
    m.fused_qkv = true; m.qkv_bias = m.out_bias = m.mlp_bias = true;
    param_counts pc;
    zs_error e = {0};
    CHECK(model_count(&m, 0, &pc, &e) == 0);
    training t;
    training_init(&t);
    t.micro_batch = 4;
    t.flash_attention = false;
    double B = 4, s = 2048, l = 32, h = 4096, V = 51200;
    flops f;
    compute_flops(&m, &pc, &t, &f);
    CHECK_NEAR(f.model_step, 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h)), 1e-3);
    t.checkpointing = CKPT_FULL;
    compute_flops(&m, &pc, &t, &f);
    CHECK_NEAR(f.hw_step, 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h)), 1e-3);
}

/* TE userbuffers' chunked overlap (tpoverlap.c): a collective of c seconds split into n chunks
 * under a GEMM of g >> c seconds exposes only its first or last chunk, c / n. Per block under
 * TP 8: 2 forward all-gathers ring-exchanged in 8 chunks and 2 backward ones, so 1/8 of each
 * shows; 2 forward reduce-scatters pipelined in 4 chunks (1/4 each) and 2 backward ones bulk
 * under the wgrad GEMMs (none): (2/4) / 4 calls = 1/8 shows. A full recompute repeats the
 * forward pair: reduce-scatters expose 4/4 of 6 calls. A collective far longer than its GEMM
 * hides only the GEMM's time: c - (n-1)/n g per pipelined pair, c - g in bulk. */
static void tp_comm_overlap(void)
{
    model m = {0};
    snprintf(m.model_type, sizeof m.model_type, "transformer");
    m.hidden_size = 8192; m.num_layers = 8; m.num_heads = 64; m.num_kv_heads = 64;
    m.head_dim = 128; m.intermediate_size = 4 * 8192; m.vocab_size = 32000; m.max_positions = 4096;
    m.norm = NORM_LAYERNORM; m.pos = POS_ROTARY;
    param_counts pc;
    zs_error e = {0};
    CHECK(model_count(&m, 0, &pc, &e) == 0);
    hardware hw = node_hw();
    training t;
    training_init(&t);
    t.gpus = 8; t.tp = 8; t.sequence_parallel = true; t.seq_len = 4096;
    sim_input in;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    tp_hidden h = tpoverlap_hidden(&in, 1e-9, 1e-9);
    CHECK_NEAR(h.ag, 0, 1e-12); /* off: the generic framework's default */
    t.tp_comm_overlap = 1;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    h = tpoverlap_hidden(&in, 1e-9, 1e-9);
    CHECK_EQ_INT(h.ring_splits, 8);
    CHECK_NEAR(h.ag, 1 - 1.0 / 8, 1e-6);
    CHECK_NEAR(h.rs, 1 - 1.0 / 8, 1e-6);
    t.checkpointing = CKPT_FULL;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    h = tpoverlap_hidden(&in, 1e-9, 1e-9);
    CHECK_NEAR(h.ag, 1 - 1.0 / 8, 1e-6);
    CHECK_NEAR(h.rs, 1 - 1.0 / 6, 1e-6);
    /* Comm far longer than any GEMM: the hidden seconds are the GEMMs' (each forward GEMM
     * once per pairing, weighted (n-1)/n in chunked pairs), so hidden x calls x c is their sum. */
    t.checkpointing = CKPT_NONE;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    double rate = in.peak * in.gemm_efficiency, tok = 4096, hd = 8192, q = 8192, w = 4 * 8192;
    double per = 2 * tok / 8 / rate;
    double qkv = per * hd * 3 * q, proj = per * q * hd, up = per * hd * w, down = per * w * hd;
    double c = 1e3;
    h = tpoverlap_hidden(&in, c, c);
    CHECK_NEAR(h.ag * 4 * c, 7.0 / 8 * (qkv + up + proj + down), 1e-6);
    CHECK_NEAR(h.rs * 4 * c, 3.0 / 4 * (proj + down) + qkv + up, 1e-6);
    /* Megatron-LM refuses it without sequence parallelism. */
    t.sequence_parallel = false;
    e.quiet = true;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == ZS_ERR_USAGE);
}

/* Cluster variants on the DGX H100 profile (8 x ConnectX-7 NDR 400 Gb/s, 700 W TDP, the DGX
 * H100 User Guide): 3.2 Tb/s per node is the same 50e9 B/s per NIC; 800 Gb/s over 8 NICs is
 * 12.5e9; 4 NICs of the same rate halve the node's. A 350 W cap on the 700 W part gives the
 * DVFS cube-root clock, 0.5^(1/3), on the achieved GEMM fraction; above the TDP is refused. */
static void cluster_variants(void)
{
    char path[4096];
    zs_error e = {0};
    hardware hw, base;
    CHECK(catalog_resolve("hardware", "h100-80gb", path, sizeof path, &e) == 0);
    CHECK(hardware_load(path, &base, &e) == 0);
    hw_variant v = {0};
    hw = base;
    CHECK(hwvariant_set(&v, "network-bandwidth", "3.2Tb/s", &e) == 0);
    CHECK_NEAR(v.network_bits, 3.2e12, 1e-12);
    CHECK(hwvariant_apply(&hw, &v, &e) == 0);
    CHECK_NEAR(hw.inter.bandwidth, 50e9, 1e-12);
    hw = base;
    CHECK(hwvariant_set(&v, "network-bandwidth", "800Gb/s", &e) == 0);
    CHECK(hwvariant_apply(&hw, &v, &e) == 0);
    CHECK_NEAR(hw.inter.bandwidth, 12.5e9, 1e-12);
    hw = base;
    v = (hw_variant){0};
    CHECK(hwvariant_set(&v, "nics-per-node", "4", &e) == 0);
    CHECK(hwvariant_apply(&hw, &v, &e) == 0);
    CHECK_EQ_INT(hw.nics_per_node, 4);
    CHECK_NEAR(hw.inter.bandwidth, 50e9, 1e-12);
    hw = base;
    v = (hw_variant){0};
    CHECK(hwvariant_set(&v, "power-cap", "350W", &e) == 0);
    CHECK(hwvariant_apply(&hw, &v, &e) == 0);
    CHECK_NEAR(hw.matmul_max_fraction, base.matmul_max_fraction * 0.7937005259840998, 1e-12);
    CHECK_NEAR(hw.peak_bf16, base.peak_bf16, 1e-15); /* nameplate kept: MFU stays against it */
    CHECK_NEAR(hw.hbm_bandwidth, base.hbm_bandwidth, 1e-15);
    CHECK_NEAR(hw.tdp_watts, 350, 1e-15);
    e.quiet = true;
    hw = base;
    v.power_cap = 800;
    CHECK(hwvariant_apply(&hw, &v, &e) == ZS_ERR_USAGE);
    CHECK(hwvariant_set(&v, "network-bandwidth", "100GB/s", &e) == ZS_ERR_USAGE);
}

/* More bandwidth never slows a step; the step is never shorter than its compute; with
 * near-infinite bandwidth and zero latency nothing is exposed, with a trickle it all is. */
static void monotone_and_limits(void)
{
    model m;
    param_counts pc;
    model_from_params(&m, &pc, 7e9, 1e8);
    training t;
    training_init(&t);
    zs_error e = {0};
    for (int g = 8; g <= 512; g *= 4) {
        t.gpus = g;
        for (int s = 0; s < 4; s++) {
            double prev = 1e300;
            for (double bw = 1e9; bw <= 1e13; bw *= 10) {
                hardware hw = node_hw();
                hw.intra.bandwidth = 12 * bw;
                hw.inter.bandwidth = bw;
                sim_input in;
                result r;
                CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
                sim_run(&in, strategies[s], 0, &r);
                CHECK(r.step.total <= prev * (1 + 1e-12));
                CHECK(r.step.total >= r.step.compute);
                prev = r.step.total;
            }
        }
    }
    hardware hw = node_hw();
    hw.intra.bandwidth = hw.inter.bandwidth = 1e18;
    hw.intra.latency = hw.inter.latency = 0;
    t.gpus = 64;
    sim_input in;
    result r;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    sim_run(&in, &strat_ddp, 0, &r);
    CHECK(r.step.comm_exposed < 1e-6);
    hw = node_hw();
    hw.intra.bandwidth = hw.inter.bandwidth = 1e3; /* 1 kB/s: nothing hides */
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    sim_run(&in, &strat_ddp, 0, &r);
    CHECK(r.step.comm_exposed > 0.99 * r.comm.seconds_total);
}

/* Calibrated profiles carry standard errors: the interval contains the point estimate, is
 * reproducible (fixed seed), and widens with the errors; without errors there is none. */
static void intervals(void)
{
    model m;
    param_counts pc;
    model_from_params(&m, &pc, 7e9, 1e8);
    hardware hw = node_hw();
    training t;
    training_init(&t);
    t.gpus = 64;
    sim_input in;
    zs_error e = {0};
    double lo, hi, lo2, hi2, point;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    CHECK(!uncertainty_interval(&in, &strat_zero1, 0.9, &lo, &hi));
    CHECK(lo == hi);
    hw.inter.bandwidth_stderr = 1e9;
    hw.inter.latency_stderr = 2e-6;
    hw.matmul_max_stderr = 0.02;
    hw.matmul_max_fraction = 0.6;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    result r;
    sim_run(&in, &strat_zero1, 0, &r);
    point = r.step.total;
    CHECK(uncertainty_interval(&in, &strat_zero1, 0.9, &lo, &hi));
    CHECK(lo < point && point < hi);
    CHECK(uncertainty_interval(&in, &strat_zero1, 0.9, &lo2, &hi2));
    CHECK(lo2 == lo && hi2 == hi);
    hw.inter.bandwidth_stderr = 4e9;
    hw.matmul_max_stderr = 0.08;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    CHECK(uncertainty_interval(&in, &strat_zero1, 0.9, &lo2, &hi2));
    CHECK(hi2 - lo2 > hi - lo);
}

/* An NVLink domain larger than a node: on GB200 NVL72 (nodes of 4, domain 72) DP 16 and TP 16
 * run on NVLink across 4 trays; on DGX B200 (domain = node = 8) the same groups cross the
 * network. The all-reduce of S bytes over 16 GPUs is costed from each profile's own numbers. */
static void nvlink_domain(void)
{
    hardware nvl = fixture_catalog_hw("gb200-nvl72"), dgx = fixture_catalog_hw("b200-180gb");
    CHECK_EQ_INT(nvl.gpus_per_node, 4);
    CHECK_EQ_INT(nvl.domain_gpus, 72);
    CHECK_EQ_INT(dgx.domain_gpus, 0); /* absent: the node */
    model m;
    param_counts pc;
    model_from_params(&m, &pc, 1e9, 1e7);
    training t;
    training_init(&t);
    t.gpus = 16;
    sim_input in;
    zs_error e = {0};
    double S = 4e9;
    coll_cost c;
    /* NVL72: DP 16 fits in the domain: flat on NVLink, nothing on the network. */
    CHECK(sim_prepare(&in, &m, &pc, &nvl, &t, &e) == 0);
    CHECK_EQ_INT(in.nodes, 4);
    CHECK_EQ_INT(in.groups[GROUP_DP].n, 16);
    CHECK_EQ_INT(in.groups[GROUP_DP].n_local, 16);
    coll_cost_of(COLL_ALL_REDUCE, S, in.groups[GROUP_DP], in.links, &c);
    double nv_bw = nvl.intra.bandwidth * nvl.intra.efficiency;
    /* NCCL 2.23.4 (the profile's) on one NVLink domain: ring/Simple, baseLat 8.4 us + 2(n-1)
     * steps of the profile's Simple step latency (tuning.cc @ 68b54236; tree and LL128 lose
     * at 4 GB on bandwidth). */
    CHECK_EQ_INT(nvl.nccl_version, 22304);
    CHECK_NEAR(c.seconds, 8.4e-6 + 30 * nvl.intra.latency + 2.0 * 15 / 16 * S / nv_bw, 1e-9);
    CHECK_NEAR(c.bytes[LEVEL_INTRA], 2.0 * 15 / 16 * S, 1e-12);
    CHECK_EQ_INT(c.bytes[LEVEL_INTER], 0);
    result r;
    sim_run(&in, &strat_ddp, 0, &r);
    CHECK_EQ_INT(r.comm.bytes_level[LEVEL_INTER], 0);
    CHECK(r.comm.bytes_level[LEVEL_INTRA] > 0);
    /* DGX B200: 2 nodes of 8; RS + AG inside on NVLink, AR of S/8 across 2 nodes on each
     * GPU's NIC share (nics x rate / 8 GPUs). */
    CHECK(sim_prepare(&in, &m, &pc, &dgx, &t, &e) == 0);
    CHECK_EQ_INT(in.groups[GROUP_DP].n_local, 8);
    coll_cost_of(COLL_ALL_REDUCE, S, in.groups[GROUP_DP], in.links, &c);
    double b_nv = dgx.intra.bandwidth * dgx.intra.efficiency;
    double b_net = (double)dgx.nics_per_node * dgx.inter.bandwidth / 8 * dgx.inter.efficiency;
    /* NCCL 2.23.4: one ring through the 16 ranks: baseLat 8.4 us + (2(n-1) - 2 nNodes) intra
     * steps (at least the 3 us x 1 us host net overhead of Simple) + 2 nNodes network steps,
     * x1.4 for the ring plateau on compCap >= 80; bandwidth the slower of NVLink and the
     * node's NICs (pipelined), not their sum. */
    double lat = 1.4 * (8.4e-6 + 26 * fmax(dgx.intra.latency, 3e-6) + 4 * dgx.inter.latency);
    double want = lat + 2.0 * 15 / 16 * S / fmin(b_nv, 8 * b_net);
    CHECK_NEAR(c.seconds, want, 1e-9);
    CHECK_NEAR(c.bytes[LEVEL_INTER], S / 8, 1e-12);
    sim_run(&in, &strat_ddp, 0, &r);
    CHECK(r.comm.bytes_level[LEVEL_INTER] > 0);
    /* TP 16: one NVLink group on NVL72, 2 nodes on the DGX. */
    t.tp = 16;
    CHECK(sim_prepare(&in, &m, &pc, &nvl, &t, &e) == 0);
    CHECK_EQ_INT(in.groups[GROUP_TP].n_local, 16);
    CHECK(sim_prepare(&in, &m, &pc, &dgx, &t, &e) == 0);
    CHECK_EQ_INT(in.groups[GROUP_TP].n_local, 8);
    /* Beyond the domain (144 GPUs, DP 144): 72 per domain on NVLink, 2 domains on the network. */
    t.tp = 1;
    t.gpus = 144;
    CHECK(sim_prepare(&in, &m, &pc, &nvl, &t, &e) == 0);
    CHECK_EQ_INT(in.groups[GROUP_DP].n_local, 72);
    /* A PCIe-only profile: its intra link is PCIe, at the PCIe line rate. */
    hardware pci = fixture_catalog_hw("rtx4090-24gb");
    CHECK_NEAR(pci.intra.bandwidth, 31.5e9, 1e-12); /* PCIe 4.0 x16: 16 GT/s x 16 x 128/130 / 8 */
    CHECK_NEAR(pci.intra.latency, 5.7e-6, 1e-12);   /* NCCL tuning.cc PCI Ring Simple */
    CHECK(strstr(pci.intra.kind, "pcie") != NULL);
}

/* Links with NCCL's own Simple ring step latencies (scale 1) and round bandwidths. */
static void nccl_links(coll_link l[LEVEL_COUNT], int version, double in_lat, double net_lat, int channels)
{
    memset(l, 0, sizeof(coll_link) * LEVEL_COUNT);
    l[LEVEL_INTRA] = (coll_link){.alpha = in_lat, .bandwidth = 234e9};
    l[LEVEL_INTER] = (coll_link){.alpha = net_lat, .bandwidth = 24e9};
    l[LEVEL_HOST] = (coll_link){.bandwidth = 25e9};
    for (int i = 0; i < LEVEL_COUNT; i++) {
        l[i].nccl_version = version;
        l[i].nccl_channels = channels;
        l[i].nccl_arch = 1; /* Ampere */
    }
}

/* A thread's kept call shapes never change an answer: nccl_cost_kept equals nccl_cost (the
 * same shape prepared afresh) bit for bit over shapes that repeat, collide in the store and
 * come back on other machines (every release, arch, PCIe, channels, NVLS), and sizes across
 * the protocols' crossovers: the store's keys and machine check are what this can catch. */
static void nccl_kept_is_nccl_cost(void)
{
    uint64_t x = 88172645463325252u;
    int differ = 0, cases = 0;
    for (int i = 0; i < 20000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        static const int versions[] = {20804, 21212, 21803, 22304};
        static const int64_t ranks[] = {2, 4, 8, 16, 64, 128, 1024, 3072};
        nccl_env e = {versions[x % 4], (int)(x >> 8) % 3 * 12, (int)(x >> 12) % 3, (x >> 14) % 5 == 0,
            ((x >> 16) % 2 ? 234e9 : 360e9), ((x >> 17) % 2 ? 24e9 : 48e9), 3.4e-6, 9.6e-6,
            (x >> 18) % 2 ? 480e9 : 0};
        nccl_fn fn = (nccl_fn)((x >> 20) % 3);
        int64_t n = ranks[(x >> 22) % 8], n_local = (x >> 25) % 2 ? 8 : 1;
        double size = pow(2, (double)((x >> 27) % 34));
        nccl_choice a = nccl_cost(fn, size, n, n_local, &e), b = nccl_cost_kept(fn, size, n, n_local, &e);
        differ += a.seconds != b.seconds || a.latency != b.latency || a.busbw != b.busbw || a.algo != b.algo ||
            a.proto != b.proto;
        cases++;
    }
    CHECK_EQ_INT(differ, 0);
    CHECK_EQ_INT(cases, 20000);
}

/* NCCL's latency at scale, by hand from NVIDIA/nccl v2.8.4-1 (911d61f2) src/graph/tuning.cc:
 * ring latency = baseLat + (nsteps - nInterSteps) intraLat + nInterSteps interLat, with
 * baseLat Ring {LL 3.6, LL128 10.0, Simple 8.4} us, hwLat NVLink Ring {.47, 1.9, 3.4}, NET
 * Ring {2.7, 4.0, 9.6}, and the LL intra latency x1.8 across nodes. */
static void nccl_latency_at_scale(void)
{
    coll_link l[LEVEL_COUNT];
    nccl_links(l, 20804, 3.4e-6, 9.6e-6, 24);
    /* 1536 ranks on 192 nodes: a 64-byte all-gather runs LL: 3.6 + 1344 x .47 x 1.8 + 191 x
     * 2.7 us = 1656.324 us (Simple would be 8.4 + 1344 x 3.4 + 191 x 9.6 = 6411.6 us; the
     * two-level schedule charged 7 NVLink + 191 network steps) */
    nccl_choice c = coll_nccl_choice(COLL_ALL_GATHER, 64, (coll_group){1536, 8}, l);
    CHECK_EQ_INT(c.algo, NCCL_ALGO_RING);
    CHECK_EQ_INT(c.proto, NCCL_PROTO_LL);
    CHECK_NEAR(c.latency, 1656.324e-6, 1e-9);
    /* LL bus bandwidth across >2 nodes: min(llMaxBw Intel-N4 20.4 GB/s, busBw / 4) */
    CHECK_NEAR(c.busbw, fmin(20.4e9, 192e9 / 4), 1e-9);
    coll_cost cost;
    coll_cost_of(COLL_ALL_GATHER, 64, (coll_group){1536, 8}, l, &cost);
    CHECK_NEAR(cost.seconds, 1656.324e-6 + 64 * 1535.0 / 1536 / 20.4e9, 1e-9);
    /* Latency grows with ranks, not just with the node's NVLink steps: 2x the ranks, more. */
    nccl_choice c2 = coll_nccl_choice(COLL_ALL_GATHER, 64, (coll_group){3072, 8}, l);
    CHECK(c2.latency > 1.9 * c.latency);
    /* 1 GiB on 16 nodes x 8: Simple, 8.4 + 112 x 3.4 + 15 x 9.6 = 533.2 us, at the slower of
     * NVLink (234 GB/s) and the node's 8 NICs (8 x 24 = 192 GB/s); LL128 (282.8 us, 0.92 x 192
     * GB/s) loses on bandwidth. */
    double G = 1073741824.0;
    c = coll_nccl_choice(COLL_REDUCE_SCATTER, G, (coll_group){128, 8}, l);
    CHECK_EQ_INT(c.proto, NCCL_PROTO_SIMPLE);
    CHECK_NEAR(c.seconds, 533.2e-6 + G * 127 / 128 / 192e9, 1e-9);
    /* One node: no network steps, no 1.8 factor: LL 3.6 + 7 x .47 = 6.89 us for 8 ranks. */
    c = coll_nccl_choice(COLL_ALL_GATHER, 64, (coll_group){8, 8}, l);
    CHECK_EQ_INT(c.proto, NCCL_PROTO_LL);
    CHECK_NEAR(c.latency, 6.89e-6, 1e-9);
    /* The profile's measured step latency scales the table: twice NCCL's NVLink Simple step
     * doubles every NVLink term (LL: 3.6 + 7 x .94 us). */
    nccl_links(l, 20804, 6.8e-6, 9.6e-6, 24);
    c = coll_nccl_choice(COLL_ALL_GATHER, 64, (coll_group){8, 8}, l);
    CHECK_NEAR(c.latency, (3.6 + 7 * 0.94) * 1e-6, 1e-9);
    /* Without a version, the plain alpha-beta ring (and no NCCL choice). */
    nccl_links(l, 0, 3.4e-6, 9.6e-6, 24);
    CHECK_EQ_INT(coll_nccl_choice(COLL_ALL_GATHER, 64, (coll_group){8, 8}, l).seconds, 0);
    coll_cost_of(COLL_ALL_GATHER, 1e9, (coll_group){8, 8}, l, &cost);
    CHECK_NEAR(cost.seconds, coll_half_ring_time(1e9, 8, l[LEVEL_INTRA]), 1e-12);
}

/* Versions, all-reduce algorithms and PAT from later tuning.cc tables: v2.18.3-1 (ea383122)
 * and v2.23.4-1 (68b54236). */
static void nccl_versions(void)
{
    CHECK_EQ_INT(nccl_table_version(0), 20804);
    CHECK_EQ_INT(nccl_table_version(21003), 20804);
    CHECK_EQ_INT(nccl_table_version(21805), 21803);
    CHECK_EQ_INT(nccl_table_version(22807), 22304);
    coll_link l[LEVEL_COUNT];
    /* 2.18.3, one node of 8, tiny all-reduce: ring LL 6.6 + 14 x .6 = 15.0 us beats tree LL
     * (6.8 + 2 x 7 x .6 = 15.2 us); no network, so no host net overhead. */
    nccl_links(l, 21803, 3.4e-6, 14e-6, 24);
    nccl_choice c = coll_nccl_choice(COLL_ALL_REDUCE, 64, (coll_group){8, 8}, l);
    CHECK_EQ_INT(c.algo, NCCL_ALGO_RING);
    CHECK_EQ_INT(c.proto, NCCL_PROTO_LL);
    CHECK_NEAR(c.latency, 15.0e-6, 1e-9);
    /* 2.18.3, 64 nodes x 8, tiny all-reduce: the tree's log2 network depth wins: tree LL 6.8 +
     * 2 (7 x .6 + 6 x 5.0) = 75.2 us; ring LL would pay 2 x 64 network steps. */
    c = coll_nccl_choice(COLL_ALL_REDUCE, 64, (coll_group){512, 8}, l);
    CHECK_EQ_INT(c.algo, NCCL_ALGO_TREE);
    CHECK_EQ_INT(c.proto, NCCL_PROTO_LL);
    CHECK_NEAR(c.latency, 75.2e-6, 1e-9);
    /* 2.23.4, 64 nodes x 1 rank, 1 MB all-gather: PAT, 8 + log2(64) x 14 / 3.5 + 64 x 2.8 =
     * 211.2 us at 0.85 of the NIC, beats ring LL (6.6 + 63 x 2.7 = 176.7 us at 24/4 GB/s). */
    nccl_links(l, 22304, 3.4e-6, 14e-6, 24);
    c = coll_nccl_choice(COLL_ALL_GATHER, 1e6, (coll_group){64, 1}, l);
    CHECK_EQ_INT(c.algo, NCCL_ALGO_PAT);
    CHECK_NEAR(c.seconds, 211.2e-6 + 1e6 * 63 / 64 / (0.85 * 24e9), 1e-9);
    /* PAT needs one rank per node, and 2.18.3 has none. */
    CHECK(coll_nccl_choice(COLL_ALL_GATHER, 1e6, (coll_group){128, 2}, l).algo != NCCL_ALGO_PAT);
    nccl_links(l, 21803, 3.4e-6, 14e-6, 24);
    CHECK(coll_nccl_choice(COLL_ALL_GATHER, 1e6, (coll_group){64, 1}, l).algo != NCCL_ALGO_PAT);
}

/* nccl-tests' published multi-node number: "On an Nvidia DGX-A100 system we have 8x200Gbit/s
 * IB cards and we measure 192GB/s AllReduce BusBW" (AddyLaddy, NVIDIA/nccl#812). The
 * a100-80gb profile's model over 4 nodes at 8 GB comes within 3%. */
static void nccl_tests_busbw(void)
{
    hardware hw = fixture_catalog_hw("a100-80gb");
    coll_link l[LEVEL_COUNT];
    coll_links(&hw, 8, l);
    CHECK_EQ_INT(l[LEVEL_INTRA].nccl_version, 20804);
    coll_cost c;
    double S = 8e9;
    coll_cost_of(COLL_ALL_REDUCE, S, (coll_group){32, 8}, l, &c);
    double busbw = S / c.seconds * 2 * 31 / 32;
    CHECK(fabs(busbw / 192e9 - 1) < 0.03);
}

/* NVLink SHARP (2.18.3: baseLat NVLS Simple 23 us, all-reduce in one node only) at the h100-80gb
 * profile's measured NVLS bus bandwidth: 478.9 GB/s on 8x H100 (Azure ND H100 v5 nccl-tests). */
static void nccl_nvls(void)
{
    hardware hw = fixture_catalog_hw("h100-80gb");
    coll_link l[LEVEL_COUNT];
    coll_links(&hw, 8, l);
    double S = 8e9;
    nccl_choice c = coll_nccl_choice(COLL_ALL_REDUCE, S, (coll_group){8, 8}, l);
    CHECK_EQ_INT(c.algo, NCCL_ALGO_NVLS);
    CHECK_NEAR(c.seconds, 23e-6 + S * 2 * 7 / 8 / (450e9 * 1.064), 1e-9);
    CHECK(fabs(S * 2 * 7 / 8 / c.seconds / 478.9e9 - 1) < 0.01);
    /* tiny: ring LL (6.6 + 14 x .6 = 15 us) beats NVLS's 23 us; across nodes: no NVLS */
    CHECK(coll_nccl_choice(COLL_ALL_REDUCE, 64, (coll_group){8, 8}, l).algo != NCCL_ALGO_NVLS);
    CHECK(coll_nccl_choice(COLL_ALL_REDUCE, S, (coll_group){16, 8}, l).algo != NCCL_ALGO_NVLS);
    /* reduce-scatter and all-gather: ring in 2.18.3 */
    CHECK(coll_nccl_choice(COLL_ALL_GATHER, S, (coll_group){8, 8}, l).algo == NCCL_ALGO_RING);
}

/* Compute beside collectives: 24 NCCL channels of 108 SMs on the a100-80gb profile leave
 * 84/108 of the GPU, so compute that runs under a collective takes 108/84 as long. A 1B model
 * on 512 GPUs with ZeRO-3 is communication-bound: the gathers fill every forward and backward
 * window, so all compute is slowed: contention = compute x 24/84. */
static void sm_contention(void)
{
    hardware hw = fixture_catalog_hw("a100-80gb");
    CHECK_EQ_INT(hw.nccl_channels, 24);
    CHECK_EQ_INT(hw.sm_count, 108);
    model m;
    param_counts pc;
    model_from_params(&m, &pc, 1e9, 1e7);
    training t;
    training_init(&t);
    t.gpus = 512;
    t.seq_len = 512;
    sim_input in;
    zs_error e = {0};
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    result r;
    sim_run(&in, &strat_zero3, 0, &r);
    CHECK(r.step.comm_exposed > 0); /* the windows are full */
    CHECK_NEAR(r.step.contention, (r.step.compute - r.step.contention) * 24.0 / 84, 1e-9);
    /* The fixture profile gives no channels: no contention. */
    hardware fx = node_hw();
    t.gpus = 8;
    CHECK(sim_prepare(&in, &m, &pc, &fx, &t, &e) == 0);
    sim_run(&in, &strat_zero3, 0, &r);
    CHECK_EQ_INT(r.step.contention, 0);
}

/* Framework versions: name@version finds the version whose string starts with it at a dot,
 * else the one whose releases (fw_deepspeed.c first..last, read from DeepSpeed's tags) hold it. */
static void framework_versions(void)
{
    const framework *v03 = framework_find("deepspeed@0.3");
    CHECK(v03 != NULL);
    CHECK(v03 && v03->sync_fetch);
    CHECK(v03 && strcmp(v03->version, "0.3.13") == 0);
    CHECK(v03 && strcmp(v03->name, "deepspeed") == 0);
    CHECK(framework_find("deepspeed@0.3.13") == v03);
    CHECK(framework_find("deepspeed@0.19.5") == framework_find("deepspeed")); /* the newest */
    CHECK(framework_find("deepspeed@0.31") == NULL);
    CHECK(framework_find("deepspeed@9") == NULL);
    CHECK(framework_find("fsdp@0.3") == NULL);
    /* 0.9.0-0.14.0: v0.9.0's PR #3097 disabled CPU Adam's fused copy; v0.14.1's #5301 pinned it. */
    const framework *v014 = framework_find("deepspeed@0.12.6");
    CHECK(v014 && strcmp(v014->version, "0.14.0") == 0);
    CHECK(v014 && v014->offload_copy[0] == OFFLOAD_COPY_PAGEABLE);
    CHECK(framework_find("deepspeed@0.9.2") == v014 && framework_find("deepspeed@0.14.0") == v014);
    /* 0.9.0-0.9.1: #2970's fp32 communication dtype under bf16 (#3370 in v0.9.2 undid it). */
    const framework *v091 = framework_find("deepspeed@0.9");
    CHECK(v091 && strcmp(v091->version, "0.9.1") == 0 && v091->bf16_reduce_fp32 && v014 && !v014->bf16_reduce_fp32);
    CHECK(framework_find("deepspeed@0.9.0") == v091 && v091 && v091->offload_copy[0] == OFFLOAD_COPY_PAGEABLE);
    const framework *v016 = framework_find("deepspeed@0.16");
    CHECK(v016 && strcmp(v016->version, "0.16.0") == 0 && v016->offload_copy[0] == OFFLOAD_COPY_PINNED32);
    CHECK(framework_find("deepspeed@0.15.4") == v016 && framework_find("deepspeed@0.16.9") == v016);
    /* 0.14.1-0.15.3: ZeRO-1/2 as 0.16, ZeRO-3's boundary gradient still the blocking 16-bit
     * copy_ (#6670 in v0.15.4 made it fp32); from 0.6.0 the host accumulation buffer. */
    const framework *v015 = framework_find("deepspeed@0.14.1");
    CHECK(v015 && strcmp(v015->version, "0.15.3") == 0 && v015->offload_copy[0] == OFFLOAD_COPY_PINNED32);
    CHECK(v015 && v015->z3_grads_host_accum && !v015->z3_boundary_fp32 && v016 && v016->z3_boundary_fp32);
    CHECK(framework_find("deepspeed@0.5.10") && !framework_find("deepspeed@0.5.10")->z3_grads_host_accum);
    CHECK(framework_find("deepspeed@0.6.0") && framework_find("deepspeed@0.6.0")->z3_grads_host_accum);
    CHECK(v03 && v03->no_bf16 && framework_find("deepspeed@0.5.4")->no_bf16);
    CHECK(!framework_find("deepspeed@0.5.5")->no_bf16 && !framework_find("deepspeed")->no_bf16);
    CHECK(framework_find("deepspeed@0.3.14") == v03 && v03 && v03->offload_copy[0] == OFFLOAD_COPY_FUSED);
    /* 0.3.15-0.5.4: v0.3.15's norm of each fetched parameter (0d4a54a0); 0.5.5-0.5.10: #1188's
     * per-parameter _all_gather_base; 0.6.0-0.8.x: #1453's prefetched coalesced fetch, CPU Adam's
     * fused copy still on (v0.9.0's #3097 turned it off). */
    const framework *v04 = framework_find("deepspeed@0.3.16"), *v05 = framework_find("deepspeed@0.5.5");
    const framework *v08 = framework_find("deepspeed@0.7.3");
    CHECK(v04 && strcmp(v04->version, "0.4.0") == 0 && v04->sync_fetch && v04->fetch_hbm_passes == 3);
    CHECK(framework_find("deepspeed@0.5.4") == v04 && framework_find("deepspeed@0.4") == v04);
    CHECK(v05 && strcmp(v05->version, "0.5.10") == 0 && v05->sync_fetch && v05->gather_per_rank == 0);
    CHECK(v08 && strcmp(v08->version, "0.8.3") == 0 && !v08->sync_fetch && v08->offload_copy[0] == OFFLOAD_COPY_FUSED);
    CHECK(framework_find("deepspeed@0.6.2") == v08 && framework_find("deepspeed@0.8.9") == v08);
    /* 0.6.0-0.6.1: v0.8.3's ZeRO before BF16_Optimizer (new in v0.6.2). */
    const framework *v061 = framework_find("deepspeed@0.6");
    CHECK(v061 && strcmp(v061->version, "0.6.1") == 0 && !v061->bf16_optimizer && v061->z3_grads_host_accum);
    CHECK(framework_find("deepspeed@0.6.0") == v061 && v061 && v061->bf16_stage0 == BF16_STAGE0_PURE);
    /* 0.17.0-0.17.5: the current code but bf16 without ZeRO still BF16_Optimizer (#7515, v0.17.6). */
    const framework *v0175 = framework_find("deepspeed@0.17.0"); /* #7309: a pinned 16-bit buffer */
    CHECK(v0175 && v0175 != framework_find("deepspeed") && v0175->offload_copy[0] == OFFLOAD_COPY_PINNED16);
    CHECK(v0175 && v0175->bf16_stage0 == BF16_STAGE0_OPTIMIZER && framework_find("deepspeed@0.17.5") == v0175);
    const framework *v019 = framework_find("deepspeed@0.17.6");
    CHECK(v019 == framework_find("deepspeed") && v019 && v019->bf16_stage0 == BF16_STAGE0_PIPE_OPT);
    CHECK(framework_find("deepspeed@0.2.9") == NULL); /* before the oldest read */
    CHECK(framework_find("deepspeed@0.20") == NULL); /* after the newest series read */
    CHECK(framework_find("deepspeed@0.14.x") == NULL && framework_find("deepspeed@0..3") == NULL);
    CHECK(framework_find("deepspeed@0.12.6000000") == NULL && framework_find("deepspeed@0.12.") == NULL);
    CHECK(framework_find("deepspeed")->offload_copy[1] == OFFLOAD_COPY_PAGEABLE);
    CHECK(!framework_find("deepspeed")->sync_fetch);
}

/* The catalog model at path, counted with the default persistence threshold; false where it
 * does not load. */
static bool load_counted(const char *path, model *m, param_counts *pc)
{
    zs_error e = {0};
    return model_load(path, m, &e) == 0 && model_count(m, 1e5, pc, &e) == 0;
}

/* ZeRO-3's collectives for training t (its framework set) of m on hw into p; false where the
 * configuration does not prepare. */
static bool zero3_plan(
    const model *m, const param_counts *pc, const hardware *hw, const training *t, comm_plan *p)
{
    sim_input in;
    zs_error e = {.quiet = true};
    *p = (comm_plan){0};
    if (!t->framework || sim_prepare(&in, m, pc, hw, t, &e)) return false;
    strat_zero3.comm(&strat_zero3, &in, p);
    return true;
}

/* ZeRO-3's host work around each fetch and reduce-scatter, by DeepSpeed version, from the code
 * (fw_deepspeed.c; an eager op taken at 3.4 us): Llama-2-7B (no biases: one parameter a module)
 * on 64 GPUs. From v0.6.0 to now a coalesced fetch builds 64 views of its buffer and splits it
 * back with a view and a record_stream per rank: 64 x 3 x 3.4 us = 652.8 us a call; a bias
 * doubles the split (GPT-2: 64 x 5 x 3.4 us); the reduce-scatter slices each gradient 64 ways
 * (64 x 3.4 us a gradient, one per module gathered), and the wait's torch.cat copies the
 * gathered bytes (2 passes at the HBM rate). v0.3.13: 4 ops a call and 2 a rank, the list form's
 * copies 2 passes; v0.4.0 adds the printed norm (2 ops, 1 pass); v0.5.10's _all_gather_base has
 * no per-rank part and no copy, the norm's pass only. */
static void deepspeed_fetch_host_work(void)
{
    static const struct {
        const char *fw, *model;
        double call, passes;
        bool sync;
    } c[] = {
        {"deepspeed", "models/llama-2-7b.json", 64 * 3 * 3.4e-6, 2, false},
        {"deepspeed@0.7", "models/llama-2-7b.json", 64 * 3 * 3.4e-6, 2, false},
        {"deepspeed", "models/gpt2-xl.json", 64 * 5 * 3.4e-6, 2, false},
        {"deepspeed@0.3", "models/llama-2-7b.json", 4 * 3.4e-6 + 64 * 2 * 3.4e-6, 2, true},
        {"deepspeed@0.4", "models/llama-2-7b.json", 6 * 3.4e-6 + 64 * 2 * 3.4e-6, 3, true},
        {"deepspeed@0.5.5", "models/llama-2-7b.json", 6 * 3.4e-6, 1, true},
    };
    hardware hw = fixture_catalog_hw("a100-80gb");
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        model m;
        param_counts pc;
        zs_error e = {0};
        CHECK(model_load(c[k].model, &m, &e) == 0 && model_count(&m, 1e5, &pc, &e) == 0);
        training t;
        training_init(&t);
        t.gpus = 64;
        t.seq_len = 1024;
        t.precision = PREC_FP16; /* DeepSpeed before v0.5.5 has no bf16 (the same bytes) */
        t.framework = framework_find(c[k].fw);
        comm_plan p;
        CHECK(zero3_plan(&m, &pc, &hw, &t, &p));
        const comm_op *ag = NULL, *rs = NULL;
        for (int i = 0; i < p.n; i++) {
            if (p.op[i].kind == COLL_ALL_GATHER && !ag) ag = &p.op[i];
            if (p.op[i].kind == COLL_REDUCE_SCATTER) rs = &p.op[i];
        }
        CHECK(ag && rs);
        if (!ag || !rs) continue;
        double hbm = hw.hbm_bandwidth * hw.hbm_fraction;
        CHECK_NEAR(ag->overhead, c[k].call + c[k].passes * ag->size / hbm, 1e-9);
        CHECK_EQ_INT(ag->overlap == OVERLAP_NONE, c[k].sync);
        if (!c[k].sync) /* a gradient per parameter gathered forward */
            CHECK_NEAR(rs->overhead * rs->calls, 64 * 3.4e-6 * ag->calls * (m.mlp_bias ? 2 : 1), 1e-9);
    }
    /* ZeRO++ hpZ: the backward gathers the node's secondary partition, so its per-rank loops
     * run over the 8 ranks of that group (wait()'s world_size is the handle's group). */
    model m;
    param_counts pc;
    CHECK(load_counted("models/llama-2-7b.json", &m, &pc));
    training t;
    training_init(&t);
    t.gpus = 64;
    t.hpz_group = 8;
    t.framework = framework_find("deepspeed");
    comm_plan p;
    CHECK(zero3_plan(&m, &pc, &hw, &t, &p));
    int gathers = 0;
    for (int i = 0; i < p.n; i++) {
        if (p.op[i].kind != COLL_ALL_GATHER) continue;
        double copy = 2 * p.op[i].size / (hw.hbm_bandwidth * hw.hbm_fraction);
        CHECK_NEAR(p.op[i].overhead, (p.op[i].group == GROUP_HPZ ? 8 : 64) * 3 * 3.4e-6 + copy, 1e-12);
        gathers++;
    }
    CHECK_EQ_INT(gathers, 2);
}

/* FSDP2's copy-out (fw_fsdp2.c: foreach_all_gather_copy_out on the compute stream after each
 * unshard): a read and a write of every gathered byte, forward and backward, per micro-batch,
 * at the HBM rate, in compute; FSDP1 gathers into its flat parameter and copies nothing.
 * Llama-2-7B on 8 A100s, accumulation 2. */
static void fsdp2_copy_out(void)
{
    model m;
    param_counts pc;
    zs_error e = {0};
    CHECK(load_counted("models/llama-2-7b.json", &m, &pc));
    hardware hw = fixture_catalog_hw("a100-80gb");
    const char *fws[] = {"fsdp2", "fsdp"};
    double compute[2] = {0};
    for (int k = 0; k < 2; k++) {
        training t;
        training_init(&t);
        t.gpus = 8;
        t.grad_accum = 2;
        t.framework = framework_find(fws[k]);
        sim_input in;
        CHECK(t.framework && sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
        result r;
        sim_run(&in, &strat_zero3, 0, &r);
        double sharded = in.local_params - in.local_small - in.local_expert;
        double want = k == 0 ? 2 * 2 * 2 * 2.0 * sharded / (hw.hbm_bandwidth * hw.hbm_fraction) : 0;
        CHECK_NEAR(r.plan.compute_copies, want, 1e-12);
        compute[k] = r.step.compute - r.step.contention - r.plan.compute_copies;
    }
    CHECK(compute[0] > 0 && fabs(compute[0] / compute[1] - 1) < 0.05); /* the rest as FSDP's */
    /* Under full recompute torchtitan's checkpoint sits inside fully_shard (fw_fsdp2.c), and
     * Composer's and accelerate's inside the FSDP unit (fw_fsdp.c): the backward gathers once
     * per unit, as the forward. DeepSpeed's module hooks fetch again for the recompute, as
     * does a checkpoint around the unit (Hugging Face's gradient_checkpointing: "a redundant
     * AllGather operation in backward pass", transformers#30404: 2 -> 3 gathers a block). */
    const char *fw3[] = {"fsdp2", "deepspeed", "fsdp", "fsdp", "fsdp2", "generic", "generic"};
    const int place[] = {-1, -1, -1, 0, 0, -1, 1};
    const double ratio[] = {1, 2, 1, 2, 2, 2, 1};
    for (int k = 0; k < 7; k++) {
        training t;
        training_init(&t);
        t.gpus = 8;
        t.checkpointing = CKPT_FULL;
        t.ckpt_in_unit = place[k];
        t.framework = framework_find(fw3[k]);
        comm_plan p;
        CHECK(zero3_plan(&m, &pc, &hw, &t, &p));
        double fwd = 0, bwd = 0;
        for (int i = 0; i < p.n; i++) {
            if (p.op[i].kind != COLL_ALL_GATHER) continue;
            if (p.op[i].overlap == OVERLAP_FORWARD) fwd += p.op[i].calls;
            if (p.op[i].overlap == OVERLAP_BACKWARD) bwd += p.op[i].calls;
        }
        CHECK(fwd > 0);
        CHECK_NEAR(bwd / fwd, ratio[k], 1e-12);
    }
}

/* The routed experts' TP traffic under sequence parallelism, as Megatron-Core's all-to-all
 * dispatcher moves it (token_dispatcher.py: all-gather of the routed tokens over the expert-TP
 * group after the EP all-to-all, reduce-scatter before it back): Mixtral-8x7B (32 MoE blocks,
 * top-2, h 4096) at seq 2048, TP 8 = ETP 8, bf16: each gather's output is ETP x s b k h e / TP =
 * 8 x 2048 x 2 x 4096 x 2 / 8 = 33,554,432 bytes, once forward and once backward per block (64
 * calls), and the blocks' dense TP pairs are the attention's alone (32 x 2 = 64 calls, not 128).
 * Whole experts (ETP 1) gather nothing. */
static void expert_tp_group(void)
{
    model m;
    param_counts pc;
    zs_error e = {0};
    CHECK(load_counted("models/mixtral-8x7b.json", &m, &pc));
    hardware hw = fixture_catalog_hw("h100-80gb");
    training t;
    training_init(&t);
    t.gpus = 64; t.tp = 8; t.ep = 8; t.etp = 8; t.sequence_parallel = true; t.seq_len = 2048;
    for (int etp = 8; etp >= 1; etp /= 8) {
        t.etp = etp;
        sim_input in;
        CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
        comm_plan p = {0};
        comm_add_common(&in, &strat_zero1, &p);
        double etp_calls = 0, etp_size = 0, tp_calls = 0;
        for (int i = 0; i < p.n; i++) {
            if (p.op[i].group == GROUP_ETP && p.op[i].kind == COLL_ALL_GATHER) {
                etp_calls = p.op[i].calls;
                etp_size = p.op[i].size;
            }
            if (p.op[i].group == GROUP_TP && p.op[i].kind == COLL_ALL_GATHER) tp_calls = p.op[i].calls;
        }
        CHECK_NEAR(tp_calls, 64, 1e-12);
        CHECK_NEAR(etp_calls, etp > 1 ? 64 : 0, 1e-12);
        CHECK_NEAR(etp_size, etp > 1 ? 33554432.0 : 0, 1e-12);
        CHECK_EQ_INT(in.groups[GROUP_ETP].n, etp);
    }
}

/* Autocast over fp32 parameters (--param-dtype fp32: FSDP without MixedPrecision.param_dtype,
 * Composer's DEFAULT): the fp32 tensor is parameter and master, so states stay 16 B a parameter
 * but split 4 + 4 + 8; the gathers move 4 bytes (twice the 16-bit gather), the reduce-scatter
 * reduce_dtype's 2 (4 with --reduce-dtype fp32), and every forward casts each weight (read 4,
 * write 2) and every backward casts its gradient back (read 2, write 4): Llama-2-7B (6,738,415,616
 * parameters) at accumulation 2 moves 6 x P x (2 forwards + 2 backwards) bytes at the HBM rate. */
static void autocast_params(void)
{
    model m;
    param_counts pc;
    zs_error e = {0};
    CHECK(load_counted("models/llama-2-7b.json", &m, &pc));
    CHECK_NEAR(pc.total, 6738415616.0, 0.5);
    hardware hw = fixture_catalog_hw("a100-80gb");
    double ag[2] = {0}, rs[2] = {0}, states[2] = {0}, gathered[2] = {0}, copies[2] = {0};
    for (int k = 0; k < 2; k++) {
        training t;
        training_init(&t);
        t.gpus = 8;
        t.grad_accum = 2;
        t.framework = framework_find("fsdp");
        t.param_bytes = k ? 4 : 0;
        byte_table bt = training_bytes(&t);
        CHECK_NEAR(bt.param, k ? 4 : 2, 0);
        CHECK_NEAR(bt.master, k ? 0 : 4, 0);
        CHECK_NEAR(bt.grad, k ? 4 : 2, 0);
        CHECK_NEAR(bt.reduce, 2, 0);
        sim_input in;
        CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
        result r;
        sim_run(&in, &strat_zero3, 0, &r);
        for (int i = 0; i < r.plan.n; i++) {
            if (r.plan.op[i].kind == COLL_ALL_GATHER && r.plan.op[i].overlap == OVERLAP_FORWARD)
                ag[k] = r.plan.op[i].size;
            if (r.plan.op[i].kind == COLL_REDUCE_SCATTER) rs[k] = r.plan.op[i].size;
        }
        states[k] = r.mem.model_states;
        gathered[k] = r.mem.gathered_params;
        copies[k] = r.plan.compute_copies;
        t.reduce_bytes = 4;
        CHECK_NEAR(training_bytes(&t).reduce, 4, 0);
        CHECK_NEAR(training_bytes(&t).grad, k ? 4 : 2, 0);
    }
    CHECK(ag[0] > 0 && rs[0] > 0);
    CHECK_NEAR(ag[1] / ag[0], 2, 1e-12);
    CHECK_NEAR(rs[1] / rs[0], 1, 1e-12);
    /* Equal: FSDP's fp32 flat parameter is the master either way (fsdp_flat_params). */
    CHECK_NEAR(states[1], states[0], 0);
    CHECK_NEAR(gathered[1] / gathered[0], 2, 1e-12);
    CHECK_NEAR(copies[0], 0, 0);
    CHECK_NEAR(copies[1], 6 * 6738415616.0 * 4 / (hw.hbm_bandwidth * hw.hbm_fraction), 1e-9);
    /* DeepSpeed and Megatron cast the model to 16 bits themselves; autocast needs mixed precision. */
    const char *own[] = {"deepspeed", "megatron"};
    for (int k = 0; k < 2; k++) {
        training t;
        training_init(&t);
        t.gpus = 8;
        t.param_bytes = 4;
        t.framework = framework_find(own[k]);
        sim_input in;
        zs_error q = {.quiet = true};
        CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &q) == ZS_ERR_USAGE);
    }
    training t;
    training_init(&t);
    t.param_bytes = 4;
    t.precision = PREC_FP32;
    zs_error q = {.quiet = true};
    CHECK(training_validate(&t, &q) == ZS_ERR_USAGE);
}

/* FSDP's storage under mixed precision (pytorch/pytorch@3ade90a6 torch/distributed/fsdp/
 * _runtime_utils.py _cast_grad_to_param_dtype; @010ae4a8 _fully_shard/_fsdp_collectives.py
 * foreach_reduce): the flat parameter keeps the model's fp32, the optimizer steps it (no separate
 * master, no 16-bit shard), and the reduced gradient is cast back to fp32. With Adam, Llama-2-7B
 * (P = 6,738,415,616) on 8 GPUs: FULL_SHARD 4P/8 + 4P/8 + 8P/8; SHARD_GRAD_OP the same shards plus
 * the 16-bit unsharded copy 2P; NO_SHARD 4P + 4P + 8P plus a 16-bit copy of the two units in flight
 * (one block: 202,383,360 parameters; FSDP2's DDP, replicate(), has none). DeepSpeed keeps the
 * ZeRO paper's table: 2 + 2 + 12. The gathers move 16 bits either way. */
static void fsdp_flat_params(void)
{
    model m;
    param_counts pc;
    zs_error e = {0};
    CHECK(load_counted("models/llama-2-7b.json", &m, &pc));
    const double P = 6738415616.0, unit = 202383360.0;
    CHECK_NEAR(pc.total, P, 0.5);
    CHECK_NEAR(pc.per_layer, unit, 0.5);
    hardware hw = fixture_catalog_hw("a100-80gb");
    const char *fws[] = {"fsdp", "fsdp2", "deepspeed"};
    const strategy *ss[] = {&strat_ddp, &strat_zero2, &strat_zero3};
    for (int f = 0; f < 3; f++) {
        training t;
        training_init(&t);
        t.gpus = 8;
        t.framework = framework_find(fws[f]);
        sim_input in;
        CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
        CHECK(in.flat_params == (f < 2));
        for (int k = 0; k < 3; k++) {
            result r;
            sim_run(&in, ss[k], 0, &r);
            double n = k ? 8 : 1;
            if (f < 2) {
                /* FSDP2's DDP is replicate(): no NO_SHARD unit copies. */
                double whole = k == 1 ? 2 * P : 0, copies = k == 1 || (k == 0 && f == 1) ? 0 : 2 * 2 * unit;
                CHECK_NEAR(r.mem.parameters, 4 * P / n + whole, 1);
                CHECK_NEAR(r.mem.gradients, 4 * P / n, 1);
                CHECK_NEAR(r.mem.optimizer_states, 8 * P / n, 1);
                CHECK_NEAR(r.mem.gathered_params, copies, 1);
            } else if (k == 1) {
                CHECK_NEAR(r.mem.parameters, 2 * P, 1);
                CHECK_NEAR(r.mem.gradients, 2 * P / 8, 1);
                CHECK_NEAR(r.mem.optimizer_states, 12 * P / 8, 1);
            }
            if (k == 2) { /* FULL_SHARD: 16 bytes a parameter over 8 ranks either way */
                CHECK_NEAR(r.mem.model_states, 16 * P / 8, f < 2 ? 1 : 1e6);
                double ag = 0;
                for (int i = 0; i < r.plan.n; i++)
                    if (r.plan.op[i].kind == COLL_ALL_GATHER && r.plan.op[i].overlap == OVERLAP_FORWARD)
                        ag += r.plan.op[i].size * r.plan.op[i].calls;
                if (f < 2) CHECK_NEAR(ag, 2 * P, 1);
            }
        }
    }
    /* CPUOffload keeps the same fp32 shards on the host (16 P / 8 a GPU) and moves them in fp32:
     * the gradient shard down after its cast, the parameter shard up for each unshard (fw_fsdp.c). */
    training t;
    training_init(&t);
    t.gpus = 8;
    t.framework = framework_find("fsdp");
    t.offload_optimizer = t.offload_params = OFFLOAD_CPU;
    sim_input in;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    result r;
    sim_run(&in, &strat_zero3, 0, &r);
    CHECK_NEAR(r.mem.host_per_gpu, 16 * P / 8, 1);
    CHECK_NEAR(r.mem.parameters + r.mem.gradients + r.mem.optimizer_states, 0, 1);
    double down = 0, up = 0;
    for (int i = 0; i < r.plan.n; i++) {
        if (r.plan.op[i].group != GROUP_HOST) continue;
        if (strstr(r.plan.op[i].what, "gradients to host")) down += r.plan.op[i].size * r.plan.op[i].calls;
        if (strstr(r.plan.op[i].what, "parameters for")) up += r.plan.op[i].size * r.plan.op[i].calls;
    }
    CHECK_NEAR(down, 4 * P / 8, 1);
    CHECK_NEAR(up, 2 * 4 * P / 8, 1);
    /* LoRA's frozen base keeps the table as it was. */
    t.offload_optimizer = t.offload_params = OFFLOAD_NONE;
    t.finetune = FT_LORA;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    CHECK(!in.flat_params && in.bt.param == 2);
}

/* torchtitan's DDP (pytorch/torchtitan@73a0e697): replicate() is refused beside TP, PP or CP
 * ("DDP has not supported > 1D parallelism", models/llama3/infra/parallelize.py), TP or PP
 * without data parallelism run outside FSDP with mixed precision disabled
 * (distributed/utils.py maybe_enable_amp), and plain DDP runs autocast over the fp32
 * parameters: each forward and backward casts every weight, 6 bytes a parameter at the HBM rate
 * (Llama-2-7B, 6,738,415,616 parameters, one micro-batch: 2 passes). FSDP1's NO_SHARD casts
 * per unit and runs no autocast. */
static void torchtitan_ddp(void)
{
    model m;
    param_counts pc;
    zs_error e = {0};
    CHECK(load_counted("models/llama-2-7b.json", &m, &pc));
    hardware hw = fixture_catalog_hw("h100-80gb");
    struct {
        const char *fw;
        int64_t gpus, tp, pp;
        int precision;
        bool runs;
        const char *why;
    } cases[] = {{"fsdp2", 16, 2, 1, PREC_BF16, false, "DDP has not supported > 1D parallelism"},
        {"fsdp2", 16, 1, 2, PREC_BF16, false, "DDP has not supported > 1D parallelism"},
        {"fsdp2", 8, 8, 1, PREC_BF16, false, "mixed precision off"},
        {"fsdp2", 8, 8, 1, PREC_BF16_PURE, true, ""}, {"fsdp2", 8, 1, 1, PREC_BF16, true, ""},
        {"fsdp", 8, 1, 1, PREC_BF16, true, ""}, {"generic", 16, 2, 1, PREC_BF16, true, ""}};
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        training t;
        training_init(&t);
        t.gpus = cases[k].gpus;
        t.tp = cases[k].tp;
        t.pp = cases[k].pp;
        t.precision = cases[k].precision;
        t.framework = framework_find(cases[k].fw);
        sim_input in;
        CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
        result r;
        sim_run(&in, &strat_ddp, 0, &r);
        CHECK(r.applicable == cases[k].runs);
        CHECK(strstr(r.why, cases[k].why) != NULL);
        if (!r.applicable || t.tp > 1) continue;
        bool autocast = !strcmp(cases[k].fw, "fsdp2");
        CHECK_NEAR(r.plan.compute_copies, autocast ? 6 * 6738415616.0 * 2 / in.hbm_rate : 0, 1e-12);
    }
}

/* DeepSpeed's BF16_Optimizer (deepspeed/runtime/bf16_optimizer.py, v0.7.0 and v0.19.5): each
 * micro-batch's update_hp_grads runs hp_grad.add_(lp.grad.to(fp32)) on the compute stream, 18
 * bytes a parameter (read 2, write 4; read 4 + 4, write 4); at the step the fp32 buffer is
 * all-reduced in bf16 once, in 500M-element buckets: Llama-2-7B (6,738,415,616) at accumulation
 * 4 on 8 GPUs, 14 all-reduce calls of 2 P / 14 bytes, never a reduce-scatter. Only ZeRO-1 runs it. */
static void bf16_optimizer(void)
{
    model m;
    param_counts pc;
    zs_error e = {0};
    CHECK(load_counted("models/llama-2-7b.json", &m, &pc));
    hardware hw = fixture_catalog_hw("a100-80gb");
    const double P = 6738415616.0;
    training t;
    training_init(&t);
    t.gpus = 8;
    t.grad_accum = 4;
    t.framework = framework_find("deepspeed");
    t.bf16_optimizer = true;
    sim_input in;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    CHECK_NEAR(in.bt.grad, 4, 0);
    CHECK_NEAR(in.bt.reduce, 2, 0);
    result r;
    sim_run(&in, &strat_zero1, 0, &r);
    CHECK(r.applicable);
    CHECK_NEAR(r.plan.compute_copies, 18 * P * 4 / in.hbm_rate, 1e-9);
    double ar = 0, calls = 0, rs = 0;
    for (int i = 0; i < r.plan.n; i++) {
        if (r.plan.op[i].kind == COLL_REDUCE_SCATTER) rs += r.plan.op[i].calls;
        if (r.plan.op[i].kind == COLL_ALL_REDUCE && r.plan.op[i].group == GROUP_SHARD) {
            ar += r.plan.op[i].size * r.plan.op[i].calls;
            calls += r.plan.op[i].calls;
        }
    }
    CHECK_NEAR(ar, 2 * P, 1);
    CHECK_NEAR(calls, 14, 0);
    CHECK_NEAR(rs, 0, 0);
    CHECK_NEAR(r.mem.gradients, 6 * P, 1);
    sim_run(&in, &strat_zero2, 0, &r);
    CHECK(!r.applicable);
    zs_error q = {.quiet = true};
    t.framework = framework_find("deepspeed@0.5");
    CHECK(t.framework != NULL);
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &q) == ZS_ERR_USAGE);
    t.framework = framework_find("deepspeed");
    t.precision = PREC_FP16;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &q) == ZS_ERR_USAGE);
}

/* What DeepSpeed runs for bf16 without ZeRO, by release (fw_deepspeed.c DEEPSPEED_BF16_OPTIMIZER,
 * read from the tags' engine.py): no bf16 before v0.5.5; module.bfloat16() and the client
 * optimizer in 0.5.5-0.6.1; BF16_Optimizer in 0.6.2-0.17.5 (get_data_types' fp32 accumulation);
 * from 0.17.6 (#7515) DDP_BFLOAT16, i.e. DDP, but BF16_Optimizer in the pipeline engine. fp16 is
 * FP16_Optimizer (DDP) in every release. Then v0.9.0-0.9.1's fp32 communication dtype under bf16
 * (#2970, undone by #3370 in v0.9.2): ZeRO-2's reduce-scatter moves 4 bytes a gradient, twice
 * v0.9.2's; and BF16_Optimizer accumulating in bf16 moves 2 + 2 + 2 bytes a parameter per
 * micro-batch (no cast) and keeps 2 + 2 bytes of gradients. */
static void deepspeed_bf16_releases(void)
{
    model m;
    param_counts pc;
    zs_error q = {.quiet = true};
    CHECK(load_counted("models/llama-2-7b.json", &m, &pc));
    hardware hw = fixture_catalog_hw("a100-80gb");
    const double P = 6738415616.0;
    static const struct {
        const char *fw;
        int pp;
        precision_kind prec;
        int prepares; /* 1: sim_prepare succeeds */
        int ddp;      /* 1: DDP applicable */
        const char *why;
    } c[] = {
        {"deepspeed@0.3", 1, PREC_BF16, 0, 0, ""},
        {"deepspeed@0.5.4", 1, PREC_BF16_PURE, 0, 0, ""},
        {"deepspeed@0.3", 1, PREC_FP16, 1, 1, ""},
        {"deepspeed@0.5.10", 1, PREC_BF16, 1, 0, "bf16-pure"},
        {"deepspeed@0.5.10", 1, PREC_BF16_PURE, 1, 1, ""},
        {"deepspeed@0.6.1", 1, PREC_BF16, 1, 0, "0.6.0-0.6.1 runs bf16 without ZeRO as bf16 weights"},
        {"deepspeed@0.6.2", 1, PREC_BF16, 1, 0, "0.6.2-0.8.x runs bf16 without ZeRO as BF16_Optimizer"},
        {"deepspeed@0.12.6", 1, PREC_BF16, 1, 0, "--strategy zero1 --bf16-optimizer"},
        {"deepspeed@0.12.6", 1, PREC_FP16, 1, 1, ""},
        {"deepspeed@0.17.5", 1, PREC_BF16, 1, 0, "BF16_Optimizer"},
        {"deepspeed", 1, PREC_BF16, 1, 1, ""},
        {"deepspeed", 2, PREC_BF16, 1, 0, "pipeline engine"},
        {"deepspeed", 2, PREC_FP16, 1, 1, ""},
        {"fsdp", 1, PREC_BF16, 1, 1, ""},
        {"megatron", 2, PREC_BF16, 1, 1, ""},
    };
    for (size_t k = 0; k < sizeof c / sizeof c[0]; k++) {
        training t;
        training_init(&t);
        t.gpus = 8;
        t.pp = c[k].pp;
        t.precision = c[k].prec;
        t.framework = framework_find(c[k].fw);
        CHECK(t.framework != NULL);
        sim_input in;
        zs_error e = {0};
        int rc = sim_prepare(&in, &m, &pc, &hw, &t, &e);
        CHECK_EQ_INT(rc == 0, c[k].prepares);
        if (rc) {
            CHECK(rc == ZS_ERR_USAGE && strstr(e.msg, "no bf16 mode") != NULL);
            continue;
        }
        result r;
        sim_run(&in, &strat_ddp, 0, &r);
        CHECK_EQ_INT(r.applicable, c[k].ddp);
        CHECK(strstr(r.why, c[k].why) != NULL);
    }
    /* v0.9.0's reduce-scatter against v0.9.2's: 4 bytes a gradient, not 2; fp16 stays 2. */
    double rs[3] = {0};
    const char *const fws[] = {"deepspeed@0.9.0", "deepspeed@0.9.2", "deepspeed@0.9.1"};
    for (int k = 0; k < 3; k++) {
        training t;
        training_init(&t);
        t.gpus = 16;
        t.precision = k == 2 ? PREC_FP16 : PREC_BF16;
        t.framework = framework_find(fws[k]);
        sim_input in;
        CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &q) == 0);
        CHECK_NEAR(in.bt.reduce, k == 0 ? 4 : 2, 0);
        result r;
        sim_run(&in, &strat_zero2, 0, &r);
        rs[k] = r.comm.bytes_kind[COLL_REDUCE_SCATTER];
    }
    CHECK_NEAR(rs[0], 4 * P * 15 / 16, 1e3);
    CHECK_NEAR(rs[0] / rs[1], 2, 1e-12);
    CHECK_NEAR(rs[2], rs[1], 1e-3);
    /* BF16_Optimizer in bf16 (the pipeline engine's from 0.17.6): no cast, 6 bytes a parameter a
     * micro-batch; gradients 2 (the buffer) + 2 (.grad). */
    training t;
    training_init(&t);
    t.gpus = 8;
    t.grad_accum = 4;
    t.framework = framework_find("deepspeed");
    t.bf16_optimizer = true;
    t.grad_bytes = 2;
    sim_input in;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &q) == 0);
    result r;
    sim_run(&in, &strat_zero1, 0, &r);
    CHECK(r.applicable);
    CHECK_NEAR(r.plan.compute_copies, 6 * P * 4 / in.hbm_rate, 1e-9);
    CHECK_NEAR(r.mem.gradients, 4 * P, 1);
}

/* torchtitan's FSDP2 reduces in fp32 (MixedPrecisionPolicy reduce_dtype = mixed_precision_reduce,
 * "float32" by default): its reduce-scatter moves twice FSDP1's 16-bit bytes for the same
 * gradients; --reduce-dtype 16-bit (a bfloat16 reduce) brings it back, as --grad-dtype 16-bit does.
 * The gathers are equal. */
static void fsdp2_reduce_fp32(void)
{
    model m;
    param_counts pc;
    zs_error e = {0};
    CHECK(load_counted("models/llama-2-7b.json", &m, &pc));
    hardware hw = fixture_catalog_hw("a100-80gb");
    double rs[4] = {0}, ag[4] = {0};
    for (int k = 0; k < 4; k++) {
        training t;
        training_init(&t);
        t.gpus = 8;
        t.framework = framework_find(k ? "fsdp2" : "fsdp");
        t.grad_bytes = k == 2 ? 2 : 0;
        t.reduce_bytes = k == 3 ? 2 : 0;
        comm_plan p;
        CHECK(zero3_plan(&m, &pc, &hw, &t, &p));
        for (int i = 0; i < p.n; i++) {
            if (p.op[i].kind == COLL_REDUCE_SCATTER) rs[k] = p.op[i].size * p.op[i].calls;
            if (p.op[i].kind == COLL_ALL_GATHER && p.op[i].overlap == OVERLAP_FORWARD)
                ag[k] = p.op[i].size * p.op[i].calls;
        }
    }
    CHECK(rs[0] > 0 && ag[0] > 0);
    CHECK_NEAR(rs[1] / rs[0], 2, 1e-12);
    CHECK_NEAR(rs[2] / rs[0], 1, 1e-12);
    CHECK_NEAR(rs[3] / rs[0], 1, 1e-12);
    /* Autocast over fp32 parameters under torchtitan is mixed precision too: still an fp32 reduce. */
    training t;
    training_init(&t);
    t.gpus = 8;
    t.framework = framework_find("fsdp2");
    t.param_bytes = 4;
    sim_input in;
    CHECK(sim_prepare(&in, &m, &pc, &hw, &t, &e) == 0);
    CHECK_NEAR(in.bt.reduce, 4, 0);
    CHECK_NEAR(ag[1] / ag[0], 1, 1e-12);
}

void suite_comm(void)
{
    RUN_TEST(intervals);
    RUN_TEST(closed_forms);
    RUN_TEST(hierarchical);
    RUN_TEST(strategy_volumes);
    RUN_TEST(narayanan_flops);
    RUN_TEST(monotone_and_limits);
    RUN_TEST(tp_comm_overlap);
    RUN_TEST(cluster_variants);
    RUN_TEST(nvlink_domain);
    RUN_TEST(nccl_latency_at_scale);
    RUN_TEST(nccl_kept_is_nccl_cost);
    RUN_TEST(nccl_versions);
    RUN_TEST(nccl_tests_busbw);
    RUN_TEST(nccl_nvls);
    RUN_TEST(sm_contention);
    RUN_TEST(framework_versions);
    RUN_TEST(deepspeed_fetch_host_work);
    RUN_TEST(fsdp2_copy_out);
    RUN_TEST(expert_tp_group);
    RUN_TEST(autocast_params);
    RUN_TEST(fsdp2_reduce_fp32);
    RUN_TEST(fsdp_flat_params);
    RUN_TEST(torchtitan_ddp);
    RUN_TEST(bf16_optimizer);
    RUN_TEST(deepspeed_bf16_releases);
}
