// coll/zip's statistics table (algo/coll_stats.h): what a call, a policy verdict and an
// observed saving count, and the summary the MPI tests and users read.
#include <cstring>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "coll_stats.h"

namespace
{

std::vector<std::string> print(const zip_coll_stats_t *t, const char *const *names, size_t n)
{
    const zip_coll_stats_header_t h{"rank 0", "fast", 16384, "auto", {2e9, 3e9, 125e6, 0}};
    std::vector<std::string> lines;
    zip_coll_stats_print(
        t, names, n, &h,
        [](void *ctx, const char *text) {
            static_cast<std::vector<std::string> *>(ctx)->push_back(text);
        },
        &lines);
    return lines;
}

std::vector<std::string> fields(const std::string &line)
{
    std::istringstream in(line);
    std::vector<std::string> out;
    for (std::string f; in >> f;)
        out.push_back(f);
    return out;
}

} // namespace

TEST(CollStats, CallsAndBytesAddUp)
{
    zip_coll_stats_t s{};
    zip_coll_stats_add(&s, 0, 1, 1000, 400, 77);
    zip_coll_stats_add(&s, 1, 0, 0, 0, 0);
    EXPECT_EQ(s.calls, 2u);
    EXPECT_EQ(s.calls_fallback, 1u);
    EXPECT_EQ(s.calls_compressed, 1u);
    EXPECT_EQ(s.bytes_in, 1000u);
    EXPECT_EQ(s.bytes_out, 400u);
    EXPECT_EQ(s.codec_ns, 77u);
}

TEST(CollStats, PolicyVerdictsAndObservedSavingsBySize)
{
    zip_coll_stats_t s{};
    zip_coll_stats_policy(&s, ZIP_VERDICT_LINK_FASTER, 0.0, 100);
    zip_coll_stats_policy(&s, ZIP_VERDICT_NEVER, 0.0, 100);
    zip_coll_stats_policy(&s, ZIP_VERDICT_INCOMPRESSIBLE, 0.0, 100);
    zip_coll_stats_policy(&s, ZIP_VERDICT_UNAGREED, 0.0, 100);
    zip_coll_stats_policy(&s, ZIP_VERDICT_COMPRESS, 0.002, 2 << 20);
    EXPECT_EQ(s.calls_link_faster, 1u);
    EXPECT_EQ(s.calls_never, 1u);
    EXPECT_EQ(s.calls_incompressible, 1u);
    EXPECT_EQ(s.calls_unagreed, 1u);
    EXPECT_EQ(s.observe_compressible, 1u);
    EXPECT_EQ(s.observe_saving_ns, 2000000u);
    EXPECT_EQ(s.observe_compressible_by_size[2], 1u); // >= 1 MiB
    EXPECT_EQ(s.observe_compressible_by_size[0] + s.observe_compressible_by_size[1], 0u);
}

// The summary: a row per collective whose columns are calls, fallback, compressed, bytes_in,
// bytes_out, ratio, codec seconds (tests/mpi/run-mpi-tests.sh reads them by position), then the
// policy rows (link_faster, never, incompressible, observe_calls, observe_saved_s, unagreed),
// then a line per size class that observe found worth compressing.
TEST(CollStats, SummaryHasARowPerCollective)
{
    zip_coll_stats_t t[2] = {};
    zip_coll_stats_add(&t[1], 0, 1, 3000, 1000, 500000);
    zip_coll_stats_policy(&t[1], ZIP_VERDICT_COMPRESS, 0.5, 100);
    zip_coll_stats_handed_on(&t[1], ZIP_VERDICT_UNAGREED, 0.0, 0);
    zip_coll_stats_handed_on(&t[1], ZIP_VERDICT_UNAGREED, 0.0, 0);
    zip_coll_stats_t shown[2];
    zip_coll_stats_snapshot(t, shown, 2);
    const char *const names[2] = {"bcast", "allgatherv"};
    const auto lines = print(shown, names, 2);
    ASSERT_EQ(lines.size(), 2u + 2u + 2u + 2u + 1u);
    const auto row = fields(lines[3]);
    ASSERT_EQ(row.size(), 9u);
    EXPECT_EQ(row[0], "coll:zip");
    EXPECT_EQ(row[1], "allgatherv");
    EXPECT_EQ(row[2], "3"); // the one zip took and the two handed on
    EXPECT_EQ(row[5], "3000");
    EXPECT_EQ(row[6], "1000");
    EXPECT_EQ(row[7], "3.000");
    EXPECT_EQ(row[8], "0.000500");
    const auto policy = fields(lines[7]);
    ASSERT_EQ(policy.size(), 8u);
    EXPECT_EQ(policy[1], "allgatherv");
    EXPECT_EQ(policy[2], "0"); // link_faster: not where calls without agreed speeds go
    EXPECT_EQ(policy[5], "1"); // observe_calls
    EXPECT_EQ(policy[7], "2"); // unagreed
    EXPECT_NE(lines[8].find("coll:zip:observe allgatherv"), std::string::npos);
}

TEST(CollStats, SnapshotCopiesEveryCounter)
{
    zip_coll_stats_t t[2], copy[2];
    std::memset(t, 0x5a, sizeof(t));
    std::memset(t[0].handed_on, 0, sizeof(t[0].handed_on));
    std::memset(t[1].handed_on, 0, sizeof(t[1].handed_on));
    zip_coll_stats_snapshot(t, copy, 2);
    EXPECT_EQ(std::memcmp(t, copy, sizeof(t)), 0);
}

// A call handed on costs one counter; readers see it as a call, a fallback and its verdict.
TEST(CollStats, HandedOnCallsReadAsFallbacksWithTheirVerdict)
{
    zip_coll_stats_t s{}, copy;
    zip_coll_stats_add(&s, 0, 1, 1000, 400, 77); // a call zip took
    zip_coll_stats_handed_on(&s, ZIP_VERDICT_LINK_FASTER, 0.0, 0);
    zip_coll_stats_handed_on(&s, ZIP_VERDICT_LINK_FASTER, 0.0, 0);
    zip_coll_stats_handed_on(&s, ZIP_VERDICT_NEVER, 0.0, 0);
    zip_coll_stats_handed_on(&s, ZIP_VERDICT_INCOMPRESSIBLE, 0.0, 0);
    zip_coll_stats_handed_on(&s, ZIP_VERDICT_TOO_SMALL, 0.0, 0);
    zip_coll_stats_handed_on(&s, ZIP_VERDICT_UNAGREED, 0.0, 0);
    zip_coll_stats_handed_on(&s, ZIP_VERDICT_COMPRESS, 0.002, 2 << 20); // observed
    zip_coll_stats_snapshot(&s, &copy, 1);
    EXPECT_EQ(copy.calls, 8u);
    EXPECT_EQ(copy.calls_fallback, 7u);
    EXPECT_EQ(copy.calls_compressed, 1u);
    EXPECT_EQ(copy.calls_link_faster, 2u);
    EXPECT_EQ(copy.calls_never, 1u);
    EXPECT_EQ(copy.calls_incompressible, 1u);
    EXPECT_EQ(copy.calls_unagreed, 1u);
    EXPECT_EQ(copy.observe_compressible, 1u);
    EXPECT_EQ(copy.observe_saving_ns, 2000000u);
    for (uint64_t h : copy.handed_on)
        EXPECT_EQ(h, 0u);
    // One counter at a time (MPI_T) reads the same.
    for (size_t k = 0; k < zip_coll_stats_counter_count; ++k) {
        const size_t at = zip_coll_stats_counters[k].offset;
        uint64_t want;
        std::memcpy(&want, reinterpret_cast<const char *>(&copy) + at, sizeof(want));
        EXPECT_EQ(zip_coll_stats_read(&s, at), want) << zip_coll_stats_counters[k].name;
    }
}
