// zipdata-gen: writes one zipdata data set as raw little-endian doubles (or floats) to a file or
// stdout, e.g. to feed other compressors or plot the data; --list shows the data sets.
#include <bit>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "zipdata.h"

namespace
{

// Used when a data set has no natural size: 128K doubles, the paper's largest linear message.
constexpr size_t kDefaultCount = 131072;

void usage(FILE *to)
{
    std::fprintf(
        to,
        "usage: zipdata-gen --list\n"
        "       zipdata-gen NAME [-n COUNT | --bytes SIZE] [--seed S | --step T] [--f32] [-o "
        "FILE]\n"
        "  Writes data set NAME as raw little-endian doubles (floats with --f32) to FILE or "
        "stdout.\n"
        "  -n COUNT     number of values (default: the set's natural size, else %zu)\n"
        "  --bytes SIZE size in bytes, with optional K/M/G suffix (powers of 1024)\n"
        "  --seed S, --step T   seed_or_step (seed of random/special, time step of heat3d*)\n",
        kDefaultCount);
}

bool parse_u64(const char *s, uint64_t *v)
{
    char *end;
    errno = 0;
    unsigned long long x = std::strtoull(s, &end, 0);
    if (errno || end == s || *end || *s == '-')
        return false;
    *v = x;
    return true;
}

// "4096", "64K", "16M", "1G" (powers of 1024).
bool parse_size(const char *s, uint64_t *v)
{
    std::string text(s);
    uint64_t mult = 1;
    if (!text.empty()) {
        switch (text.back()) {
        case 'K':
        case 'k':
            mult = 1ull << 10;
            break;
        case 'M':
        case 'm':
            mult = 1ull << 20;
            break;
        case 'G':
        case 'g':
            mult = 1ull << 30;
            break;
        default:
            break;
        }
        if (mult != 1)
            text.pop_back();
    }
    return parse_u64(text.c_str(), v) && (*v *= mult, true);
}

void list_sets()
{
    for (size_t i = 0; i < zipdata_count(); ++i) {
        const char *name = zipdata_name(i);
        size_t natural = zipdata_natural_count(name);
        char size[32];
        if (natural == ZIPDATA_UNBOUNDED)
            std::snprintf(size, sizeof size, "any n");
        else
            std::snprintf(size, sizeof size, "%zu", natural);
        const zipdata_type_t type = zipdata_type(name);
        std::printf("%-20s %-9s %s%s%s\n", name, size, zipdata_description(name),
                    zipdata_uses_seed(name) ? "" : " (seed ignored)",
                    type == ZIPDATA_I32   ? " (int32 values; --f32 does not apply)"
                    : type == ZIPDATA_I64 ? " (int64 values; --f32 does not apply)"
                                          : "");
    }
}

template <class T> void to_little_endian(std::vector<T> &v)
{
    if constexpr (std::endian::native == std::endian::big) {
        for (T &x : v) {
            unsigned char b[sizeof(T)];
            std::memcpy(b, &x, sizeof b);
            for (size_t i = 0; i < sizeof b / 2; ++i)
                std::swap(b[i], b[sizeof b - 1 - i]);
            std::memcpy(&x, b, sizeof b);
        }
    }
}

template <class T> int write_all(std::vector<T> &v, const char *path)
{
    to_little_endian(v);
    FILE *f = path ? std::fopen(path, "wb") : stdout;
    if (!f) {
        std::fprintf(stderr, "zipdata-gen: cannot open %s: %s\n", path, std::strerror(errno));
        return 1;
    }
    bool ok = std::fwrite(v.data(), sizeof(T), v.size(), f) == v.size();
    ok = (path ? std::fclose(f) : std::fflush(f)) == 0 && ok;
    if (!ok) {
        std::fprintf(stderr, "zipdata-gen: write failed: %s\n", std::strerror(errno));
        return 1;
    }
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    const char *name = nullptr, *out_path = nullptr;
    uint64_t count = 0, bytes = 0, seed = 0;
    bool f32 = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        bool has_value = i + 1 < argc;
        if (a == "--list") {
            list_sets();
            return 0;
        } else if (a == "-h" || a == "--help") {
            usage(stdout);
            return 0;
        } else if (a == "--f32") {
            f32 = true;
        } else if ((a == "-n" || a == "--count") && has_value && parse_u64(argv[i + 1], &count)) {
            ++i;
        } else if (a == "--bytes" && has_value && parse_size(argv[i + 1], &bytes)) {
            ++i;
        } else if ((a == "--seed" || a == "--step") && has_value && parse_u64(argv[i + 1], &seed)) {
            ++i;
        } else if (a == "-o" && has_value) {
            out_path = argv[++i];
        } else if (a[0] != '-' && !name) {
            name = argv[i];
        } else {
            std::fprintf(stderr, "zipdata-gen: bad argument '%s'\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    if (!name) {
        usage(stderr);
        return 2;
    }
    if (!zipdata_description(name)) {
        std::fprintf(stderr, "zipdata-gen: unknown data set '%s' (see --list)\n", name);
        return 2;
    }
    const size_t elem = f32 ? sizeof(float) : sizeof(double);
    if (bytes)
        count = bytes / elem;
    if (!count) {
        size_t natural = zipdata_natural_count(name);
        count = natural == ZIPDATA_UNBOUNDED ? kDefaultCount : natural;
    }

    int rc;
    if (f32) {
        std::vector<float> v(count);
        rc = zipdata_fill_f32(name, v.data(), v.size(), seed);
        if (rc == ZIPDATA_OK)
            return write_all(v, out_path);
    } else {
        std::vector<double> v(count);
        rc = zipdata_fill(name, v.data(), v.size(), seed);
        if (rc == ZIPDATA_OK)
            return write_all(v, out_path);
    }
    std::fprintf(stderr, "zipdata-gen: generating %s failed (code %d)\n", name, rc);
    return 1;
}
