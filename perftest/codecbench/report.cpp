#include "report.hpp"

#include <algorithm>

#include "options.hpp"

namespace codecbench
{
namespace
{

bool reportable(const Row &r, const std::vector<std::string> &failed)
{
    return r.result.ok && std::find(failed.begin(), failed.end(), r.codec) == failed.end();
}

} // namespace

void print_table(FILE *out, const std::vector<Row> &rows, const std::vector<std::string> &failed)
{
    std::fprintf(out, "%-20s %8s  %-20s %9s %10s %10s  %s\n", "dataset", "size", "codec", "ratio",
                 "comp GB/s", "dec GB/s", "max rel err (lossy)");
    std::string last_group;
    for (const Row &r : rows) {
        if (!reportable(r, failed))
            continue;
        std::string group = r.dataset + "/" + std::to_string(r.size_bytes);
        if (!last_group.empty() && group != last_group)
            std::fprintf(out, "\n");
        last_group = group;
        std::fprintf(out, "%-20s %8s  %-20s %9.3f %10.3f %10.3f", r.dataset.c_str(),
                     format_size(r.size_bytes).c_str(), r.codec.c_str(), r.result.ratio,
                     r.result.compress_gbps, r.result.decompress_gbps);
        if (r.lossy)
            std::fprintf(out, "  %.3g", r.result.max_rel_error);
        std::fprintf(out, "\n");
    }
}

bool write_csv(const std::string &path, const std::vector<Row> &rows,
               const std::vector<std::string> &failed)
{
    FILE *f = std::fopen(path.c_str(), "w");
    if (!f)
        return false;
    std::fprintf(f, "codec,dataset,size_bytes,ratio,compress_GBps,decompress_GBps\n");
    for (const Row &r : rows) {
        if (!reportable(r, failed))
            continue;
        // No quoting needed: --codecs splits at commas, so a spec never contains one.
        std::fprintf(f, "%s,%s,%zu,%.4f,%.4f,%.4f\n", r.codec.c_str(), r.dataset.c_str(),
                     r.size_bytes, r.result.ratio, r.result.compress_gbps,
                     r.result.decompress_gbps);
    }
    return std::fclose(f) == 0;
}

} // namespace codecbench
