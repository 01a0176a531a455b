#include "zipbench_corpus.h"

#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "msg_corpus.hpp"

namespace
{

/* One f64 message of the corpus: its rank file and its place there. */
struct Pick {
    size_t app, rank;
    msgcorpus::Message msg;
};

/* Every f64 message of the applications under dir, in the order of the applications, their
 * ranks and each rank's index (indexes only: the payloads stay on disk). */
bool list_messages(const std::vector<msgcorpus::App> &apps, std::vector<Pick> *out,
                   std::string *error)
{
    for (size_t a = 0; a < apps.size(); ++a)
        for (size_t r = 0; r < apps[a].ranks.size(); ++r) {
            std::ifstream in(apps[a].ranks[r].index_path);
            msgcorpus::RankIndex index;
            if (!in || !msgcorpus::parse_index(in, &index, error)) {
                *error = apps[a].ranks[r].index_path + ": " +
                         (in ? *error : std::string("cannot be read"));
                return false;
            }
            for (const msgcorpus::Message &m : index.messages)
                if (m.elem == msgcorpus::Elem::F64)
                    out->push_back({a, r, m});
        }
    return true;
}

/* Which messages make up n doubles, spread over the whole corpus: a message is taken while
 * the doubles taken so far are below their share (n / total) of the doubles seen up to its end,
 * so the buffer samples every rank and every phase of the run alike (the first messages of a
 * run are often its set-up, uniform fields that compress hundreds of times); a second pass in
 * order fills what rounding left. */
std::vector<bool> choose(const std::vector<Pick> &all, size_t n, size_t total)
{
    std::vector<bool> take(all.size(), false);
    size_t seen = 0, taken = 0;
    for (size_t i = 0; i < all.size() && taken < n; ++i) {
        const size_t count = all[i].msg.bytes / sizeof(double);
        seen += count;
        if ((double)taken < (double)seen * (double)n / (double)total) {
            take[i] = true;
            taken += count;
        }
    }
    for (size_t i = 0; i < all.size() && taken < n; ++i)
        if (!take[i]) {
            take[i] = true;
            taken += all[i].msg.bytes / sizeof(double);
        }
    return take;
}

bool load(const std::string &dir, size_t n, std::vector<double> *out, std::string *error)
{
    std::vector<msgcorpus::App> apps;
    std::vector<Pick> all;
    if (!msgcorpus::find_apps(dir, &apps, error) || !list_messages(apps, &all, error))
        return false;
    size_t total = 0;
    for (const Pick &p : all)
        total += p.msg.bytes / sizeof(double);
    if (total < n) {
        *error = dir + " holds " + std::to_string(total) + " recorded doubles, " +
                 std::to_string(n) + " needed";
        return false;
    }
    const std::vector<bool> take = choose(all, n, total);
    out->assign(n, 0.0);
    size_t at = 0;
    msgcorpus::LoadedRank rank;
    size_t loaded_app = SIZE_MAX, loaded_rank = SIZE_MAX;
    for (size_t i = 0; i < all.size() && at < n; ++i) {
        if (!take[i])
            continue;
        const Pick &p = all[i];
        if (p.app != loaded_app || p.rank != loaded_rank) {
            if (!msgcorpus::load_rank(apps[p.app].ranks[p.rank], &rank, error))
                return false;
            loaded_app = p.app;
            loaded_rank = p.rank;
        }
        const size_t count = std::min(p.msg.bytes / sizeof(double), n - at);
        std::memcpy(out->data() + at, rank.payload(p.msg), count * sizeof(double));
        at += count;
    }
    return true;
}

/* Buffers already read, by (directory, doubles): zipbench asks for each size while timing and
 * again in the ratio pass. */
std::map<std::pair<std::string, size_t>, std::vector<double>> cache;

} // namespace

extern "C" int zb_corpus_fill(const char *dir, double *out, size_t n, char *err, size_t errlen)
{
    auto key = std::make_pair(std::string(dir), n);
    auto it = cache.find(key);
    if (it == cache.end()) {
        std::vector<double> data;
        std::string error;
        if (!load(dir, n, &data, &error)) {
            std::snprintf(err, errlen, "%s", error.c_str());
            return -1;
        }
        it = cache.emplace(key, std::move(data)).first;
    }
    if (n)
        std::memcpy(out, it->second.data(), n * sizeof(double));
    return 0;
}
