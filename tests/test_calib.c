/* test_calib.c -- calibrate's inversion of NCCL's tuning model: round trips and a real log. */
#include <math.h>
#include <string.h>

#include "analysis/calib_nccl.h"
#include "analysis/calibrate.h"
#include "core/collective.h"
#include "fixture_hw.h"
#include "io/nccltests.h"
#include "test.h"

/* A set of `ranks` (per_node in a node) whose times NCCL's model gives at per-step latency
 * `alpha` on its level (intra_latency on the other), sizes 1 KiB to 1 GiB by 4x. */
static calib_set synthetic(const hardware *hw, const char *coll, coll_kind k, int ranks, int per_node,
    double alpha, double intra_latency)
{
    calib_set s;
    memset(&s, 0, sizeof s);
    snprintf(s.collective, sizeof s.collective, "%s", coll);
    s.ranks = ranks;
    s.per_node = per_node;
    s.level = per_node >= ranks ? LEVEL_INTRA : LEVEL_INTER;
    s.fit.latency = 50e-6;
    coll_link links[LEVEL_COUNT];
    coll_links(hw, hw->gpus_per_node, links);
    links[LEVEL_INTRA].alpha = s.level == LEVEL_INTRA ? alpha : intra_latency;
    links[LEVEL_INTER].alpha = alpha;
    for (double b = 1024; b <= 1073741824.0; b *= 4) {
        s.pt_bytes[s.npts] = b;
        s.pt_seconds[s.npts++] = coll_nccl_choice(k, b, (coll_group){ranks, per_node}, links).seconds;
    }
    return s;
}

/* The latency that generated a set's times comes back (the model's min over algorithms and
 * protocols has kinks, so this checks the search, not just a closed form). */
static void calib_round_trip(void)
{
    hardware hw = fixture_catalog_hw("h100-80gb");
    double a = 0, rms = 1;
    bool edge = true;
    calib_set s = synthetic(&hw, "all_gather", COLL_ALL_GATHER, 8, 8, 2.0e-6, 0);
    CHECK(calib_nccl_alpha(&s, &hw, hw.intra.latency, &a, &edge, &rms));
    CHECK_NEAR(a, 2.0e-6, 1e-3);
    CHECK(rms < 1e-3 && !edge);
    s = synthetic(&hw, "reduce_scatter", COLL_REDUCE_SCATTER, 16, 8, 20e-6, hw.intra.latency);
    CHECK(calib_nccl_alpha(&s, &hw, hw.intra.latency, &a, &edge, &rms));
    CHECK_NEAR(a, 20e-6, 1e-3);
    /* An all-reduce across nodes (tree and ring candidates, the plateau factor). */
    s = synthetic(&hw, "all_reduce", COLL_ALL_REDUCE, 32, 8, 8e-6, hw.intra.latency);
    CHECK(calib_nccl_alpha(&s, &hw, hw.intra.latency, &a, &edge, &rms));
    CHECK_NEAR(a, 8e-6, 1e-3);
    /* Nothing NCCL's model costs: all-to-all, or a profile without a release. */
    snprintf(s.collective, sizeof s.collective, "all_to_all");
    CHECK(!calib_nccl_alpha(&s, &hw, hw.intra.latency, &a, &edge, &rms));
    snprintf(s.collective, sizeof s.collective, "all_reduce");
    hw.nccl_version = 0;
    CHECK(!calib_nccl_alpha(&s, &hw, hw.intra.latency, &a, &edge, &rms));
}

/* A real 8 x H100 all-reduce log (NCCL 2.19; tests/data/nccl/README.md): inverted through
 * NCCL's model, the NVLink step latency lands near the hwLat tuning.cc tables for it
 * (NVIDIA/nccl src/graph/tuning.cc: NVLink Ring Simple 3.4 us, the h100-80gb profile's
 * source), where the alpha-beta latency over 2 (n - 1) steps gave 1.0 us, because it charged
 * NCCL's base latency (8.4 us at 2.18) and the LL protocol's smaller steps to the link. */
static void calib_real_log(void)
{
    hardware hw = fixture_catalog_hw("h100-80gb");
    coll_samples smp;
    zs_error e = {0};
    CHECK(nccltests_parse("tests/data/nccl/all_reduce_2.19_h100x8.log", NULL, &smp, &e) == 0);
    static calibration c;
    memset(&c, 0, sizeof c);
    CHECK(calibrate_add_set(&c, &smp, "h100x8", hw.gpus_per_node, 0, &e) == 0);
    coll_samples_free(&smp);
    double ab = c.sets[0].alpha;
    CHECK(ab > 0.8e-6 && ab < 1.2e-6);
    CHECK(calibrate_apply(&c, &hw, &e) == 0);
    CHECK(c.sets[0].nccl_inverted);
    test_report(fabs(hw.intra.latency / 3.4e-6 - 1) < 0.35, __FILE__, __LINE__,
        "inverted NVLink step latency %.3g s, tuning.cc's 3.4e-6", hw.intra.latency);
}

void suite_calib(void)
{
    RUN_TEST(calib_round_trip);
    RUN_TEST(calib_real_log);
}
