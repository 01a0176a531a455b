#include "codec_table.hpp"

#include <cmath>
#include <fstream>
#include <sstream>

namespace simscale
{
namespace
{

std::vector<std::string> split(const std::string &line)
{
    std::vector<std::string> out;
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ','))
        out.push_back(cell);
    return out;
}

// zipbench names data sets "gauss", "gauss-sorted", "heat"; codecbench "gauss-1024",
// "gauss-1024-sorted", "heat3d": every dash-separated word of the short name begins a word of
// the long one, in order, the first word the first.
bool names_match(const std::string &name, const std::string &dataset)
{
    auto words = [](const std::string &s) {
        std::vector<std::string> w;
        std::stringstream ss(s);
        std::string part;
        while (std::getline(ss, part, '-'))
            w.push_back(part);
        return w;
    };
    const auto want = words(name), have = words(dataset);
    if (want.empty() || have.empty() || have[0].rfind(want[0], 0) != 0)
        return false;
    size_t k = 1;
    for (size_t i = 1; i < have.size(); ++i)
        if (k < want.size() && have[i].rfind(want[k], 0) == 0)
            ++k;
    return k == want.size();
}

double lerp(double a, double b, double t)
{
    return a + (b - a) * t;
}

} // namespace

bool CodecTable::load(const std::string &path, std::string *error)
{
    std::ifstream in(path);
    if (!in) {
        *error = "cannot open " + path;
        return false;
    }
    std::string line;
    if (!std::getline(in, line) ||
        line.rfind("codec,dataset,size_bytes,ratio,compress_GBps,decompress_GBps", 0) != 0) {
        *error = path + ": not a codecbench CSV (header codec,dataset,size_bytes,ratio,"
                        "compress_GBps,decompress_GBps)";
        return false;
    }
    int lineno = 1;
    while (std::getline(in, line)) {
        ++lineno;
        if (line.empty())
            continue;
        const auto f = split(line);
        CodecPoint p;
        double size = 0;
        try {
            if (f.size() < 6)
                throw std::invalid_argument("short");
            size = std::stod(f[2]);
            p.ratio = std::stod(f[3]);
            p.compress_Bps = std::stod(f[4]) * 1e9;
            p.decompress_Bps = std::stod(f[5]) * 1e9;
        } catch (const std::exception &) {
            *error = path + ":" + std::to_string(lineno) + ": bad row";
            return false;
        }
        if (size <= 0 || p.ratio <= 0 || p.compress_Bps <= 0 || p.decompress_Bps <= 0) {
            *error = path + ":" + std::to_string(lineno) + ": sizes, ratios and speeds must be > 0";
            return false;
        }
        rows_[f[0]][f[1]][size] = p;
    }
    if (rows_.empty()) {
        *error = path + ": no rows";
        return false;
    }
    return true;
}

std::string CodecTable::resolve_dataset(const std::string &name) const
{
    std::string best;
    for (const auto &[codec, sets] : rows_) {
        for (const auto &[dataset, sizes] : sets) {
            if (dataset == name)
                return name;
            if (names_match(name, dataset) && (best.empty() || dataset.size() < best.size()))
                best = dataset;
        }
    }
    return best;
}

bool CodecTable::has(const std::string &codec, const std::string &dataset) const
{
    auto c = rows_.find(codec);
    return c != rows_.end() && c->second.count(dataset) != 0;
}

std::vector<std::string> CodecTable::datasets(const std::string &codec) const
{
    std::vector<std::string> out;
    auto c = rows_.find(codec);
    if (c != rows_.end())
        for (const auto &[dataset, sizes] : c->second)
            out.push_back(dataset);
    return out;
}

CodecPoint CodecTable::at(const std::string &codec, const std::string &dataset, double bytes) const
{
    const auto &sizes = rows_.at(codec).at(dataset);
    auto hi = sizes.lower_bound(bytes);
    if (hi == sizes.begin())
        return hi->second;
    if (hi == sizes.end())
        return std::prev(hi)->second;
    auto lo = std::prev(hi);
    const double t = std::log(bytes / lo->first) / std::log(hi->first / lo->first);
    const CodecPoint &a = lo->second, &b = hi->second;
    CodecPoint p;
    p.ratio = lerp(a.ratio, b.ratio, t);
    // Interpolate the time per byte, not the speed.
    p.compress_Bps = 1.0 / lerp(1.0 / a.compress_Bps, 1.0 / b.compress_Bps, t);
    p.decompress_Bps = 1.0 / lerp(1.0 / a.decompress_Bps, 1.0 / b.decompress_Bps, t);
    return p;
}

} // namespace simscale
