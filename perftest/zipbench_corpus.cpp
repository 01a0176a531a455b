#include "zipbench_corpus.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "msg_corpus.hpp"

namespace
{

/* The doubles read so far for the last directory asked for: zipbench asks for every size in
 * turn (and again for the ratio pass), each a prefix of the largest. */
struct Cache {
    std::string dir;
    std::vector<double> data;
    bool complete = false; // data holds every f64 message of dir
};
Cache cache;

bool load(const std::string &dir, size_t n, std::string *error)
{
    std::vector<msgcorpus::App> apps;
    if (!msgcorpus::find_apps(dir, &apps, error))
        return false;
    cache = Cache{dir, {}, false};
    cache.data.reserve(n);
    for (const msgcorpus::App &app : apps)
        for (const msgcorpus::RankFiles &files : app.ranks) {
            msgcorpus::LoadedRank rank;
            if (!msgcorpus::load_rank(files, &rank, error)) {
                cache = Cache{};
                return false;
            }
            for (const msgcorpus::Message &m : rank.index.messages) {
                if (m.elem != msgcorpus::Elem::F64)
                    continue;
                const size_t count = m.bytes / sizeof(double);
                const size_t at = cache.data.size();
                cache.data.resize(at + count);
                std::memcpy(cache.data.data() + at, rank.payload(m), count * sizeof(double));
                if (cache.data.size() >= n)
                    return true;
            }
        }
    cache.complete = true;
    return true;
}

} // namespace

extern "C" int zb_corpus_fill(const char *dir, double *out, size_t n, char *err, size_t errlen)
{
    std::string error;
    if ((cache.dir != dir || (cache.data.size() < n && !cache.complete)) && !load(dir, n, &error)) {
        std::snprintf(err, errlen, "%s", error.c_str());
        return -1;
    }
    if (cache.data.size() < n) {
        std::snprintf(err, errlen, "%s holds %zu recorded doubles, %zu needed", dir,
                      cache.data.size(), n);
        return -1;
    }
    std::memcpy(out, cache.data.data(), n * sizeof(double));
    return 0;
}
