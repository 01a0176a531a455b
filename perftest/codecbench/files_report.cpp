#include "files_report.hpp"

#include <algorithm>
#include <map>

namespace codecbench
{
namespace
{

constexpr const char *kBaseline = "blosc-shuffle-lz4";

// A group of messages measured with one codec.
struct Totals {
    size_t messages = 0;
    double raw = 0, compressed = 0, compress_s = 0, decompress_s = 0;

    void add(uint64_t bytes, const PointResult &r)
    {
        ++messages;
        raw += static_cast<double>(bytes);
        compressed += static_cast<double>(r.compressed_bytes);
        compress_s += static_cast<double>(bytes) / (r.compress_gbps * 1e9);
        decompress_s += static_cast<double>(bytes) / (r.decompress_gbps * 1e9);
    }
    double ratio() const { return raw / compressed; }
    double compress_gbps() const { return raw / compress_s / 1e9; }
    double decompress_gbps() const { return raw / decompress_s / 1e9; }
};

// Messages and bytes of one kind (a size class, an operation, an element type).
struct Count {
    size_t messages = 0;
    double bytes = 0;
};

double mb(double bytes)
{
    return bytes / 1e6;
}

const char *size_class(uint64_t bytes)
{
    return bytes < (16u << 10)    ? "4-16 KiB"
           : bytes < (64u << 10)  ? "16-64 KiB"
           : bytes < (256u << 10) ? "64-256 KiB"
           : bytes < (1u << 20)   ? "256 KiB-1 MiB"
                                  : ">= 1 MiB";
}
constexpr const char *kSizeClasses[] = {"4-16 KiB", "16-64 KiB", "64-256 KiB", "256 KiB-1 MiB",
                                        ">= 1 MiB"};

void print_counts(FILE *out, const char *what, const std::map<std::string, Count> &counts,
                  double total_bytes)
{
    std::fprintf(out, "  %s:", what);
    for (const auto &[name, c] : counts)
        std::fprintf(out, "  %s %zu (%.1f MB, %.0f%%)", name.c_str(), c.messages, mb(c.bytes),
                     100.0 * c.bytes / total_bytes);
    std::fprintf(out, "\n");
}

void print_distribution(FILE *out, const FilesRun &run, size_t app)
{
    std::map<std::string, Count> sizes, ops, elems;
    double total = 0;
    for (const MessageResult &m : run.messages) {
        if (m.app != app)
            continue;
        const double b = static_cast<double>(m.msg.bytes);
        for (Count *c : {&sizes[size_class(m.msg.bytes)], &ops[m.msg.op],
                         &elems[msgcorpus::elem_name(m.msg.elem)]}) {
            ++c->messages;
            c->bytes += b;
        }
        total += b;
    }
    std::fprintf(out, "  sizes:");
    for (const char *cls : kSizeClasses)
        if (sizes.count(cls))
            std::fprintf(out, "  %s %zu (%.0f%% of bytes)", cls, sizes[cls].messages,
                         100.0 * sizes[cls].bytes / total);
    std::fprintf(out, "\n");
    print_counts(out, "operations", ops, total);
    print_counts(out, "elements", elems, total);
}

bool is_failed(const std::string &codec, const std::vector<std::string> &failed)
{
    return std::find(failed.begin(), failed.end(), codec) != failed.end();
}

void print_app(FILE *out, const FilesRun &run, size_t app, const std::vector<std::string> &codecs,
               const std::vector<std::string> &failed)
{
    const AppCorpus &a = run.apps[app];
    // totals[elem][codec]; "all" when the application sends more than one element type
    std::map<std::string, std::vector<Totals>> totals;
    size_t measured = 0;
    double measured_bytes = 0;
    for (const MessageResult &m : run.messages) {
        if (m.app != app)
            continue;
        ++measured;
        measured_bytes += static_cast<double>(m.msg.bytes);
        for (const char *group : {msgcorpus::elem_name(m.msg.elem), "all"}) {
            std::vector<Totals> &t = totals[group];
            t.resize(codecs.size());
            for (size_t c = 0; c < codecs.size(); ++c)
                if (m.results[c].ok)
                    t[c].add(m.msg.bytes, m.results[c]);
        }
    }
    if (totals.size() == 2) // one element type: "all" repeats it
        totals.erase("all");

    std::fprintf(out, "\n== %s: %zu ranks; %zu messages (%.1f MB) measured of %zu recorded\n",
                 a.name.c_str(), a.ranks, measured, mb(measured_bytes), a.recorded);
    std::fprintf(out,
                 "  not recorded: %llu smaller messages (%.2f MB), %llu over the byte limit "
                 "(%.1f MB), %llu passed over by skip/every",
                 static_cast<unsigned long long>(a.totals.small), mb(a.totals.small_bytes),
                 static_cast<unsigned long long>(a.totals.over_limit),
                 mb(a.totals.over_limit_bytes),
                 static_cast<unsigned long long>(a.totals.unsampled));
    if (a.ranks_without_summary)
        std::fprintf(out, "; %zu ranks without a summary line", a.ranks_without_summary);
    std::fprintf(out, "\n");
    if (!measured)
        return;
    print_distribution(out, run, app);

    const auto base = std::find(codecs.begin(), codecs.end(), kBaseline);
    const size_t base_index = static_cast<size_t>(base - codecs.begin());
    const bool have_base = base != codecs.end() && !is_failed(kBaseline, failed);
    std::fprintf(out, "  %-6s %-22s %6s %9s %8s %10s %10s", "elem", "codec", "msgs", "MB", "ratio",
                 "comp GB/s", "dec GB/s");
    if (have_base)
        std::fprintf(out, " %11s %11s", "comp/shuf", "dec/shuf");
    std::fprintf(out, "\n");
    for (const auto &[group, t] : totals) {
        for (size_t c = 0; c < codecs.size(); ++c) {
            if (is_failed(codecs[c], failed) || t[c].messages == 0)
                continue;
            std::fprintf(out, "  %-6s %-22s %6zu %9.2f %8.3f %10.3f %10.3f", group.c_str(),
                         codecs[c].c_str(), t[c].messages, mb(t[c].raw), t[c].ratio(),
                         t[c].compress_gbps(), t[c].decompress_gbps());
            if (have_base && t[base_index].messages)
                std::fprintf(out, " %11.2f %11.2f",
                             t[c].compress_gbps() / t[base_index].compress_gbps(),
                             t[c].decompress_gbps() / t[base_index].decompress_gbps());
            std::fprintf(out, "\n");
        }
    }
}

} // namespace

void print_files_report(FILE *out, const FilesRun &run, const std::vector<std::string> &codecs,
                        const std::vector<std::string> &failed)
{
    for (size_t app = 0; app < run.apps.size(); ++app)
        print_app(out, run, app, codecs, failed);
}

bool write_files_csv(const std::string &path, const FilesRun &run,
                     const std::vector<std::string> &codecs, const std::vector<std::string> &failed)
{
    FILE *f = std::fopen(path.c_str(), "w");
    if (!f)
        return false;
    std::fprintf(f, "app,rank,call,op,elem,bytes,peer,tag,codec,compressed_bytes,ratio,"
                    "compress_GBps,decompress_GBps\n");
    for (const MessageResult &m : run.messages)
        for (size_t c = 0; c < codecs.size(); ++c) {
            const PointResult &r = m.results[c];
            if (!r.ok || is_failed(codecs[c], failed))
                continue;
            std::fprintf(
                f, "%s,%d,%llu,%s,%s,%llu,%d,%d,%s,%zu,%.4f,%.4f,%.4f\n",
                run.apps[m.app].name.c_str(), m.rank, static_cast<unsigned long long>(m.msg.call),
                m.msg.op.c_str(), msgcorpus::elem_name(m.msg.elem),
                static_cast<unsigned long long>(m.msg.bytes), m.msg.peer, m.msg.tag,
                codecs[c].c_str(), r.compressed_bytes, r.ratio, r.compress_gbps, r.decompress_gbps);
        }
    return std::fclose(f) == 0;
}

} // namespace codecbench
