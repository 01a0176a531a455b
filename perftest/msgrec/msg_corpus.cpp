#include "msg_corpus.hpp"

#include <algorithm>
#include <climits>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace msgcorpus
{
namespace fs = std::filesystem;

namespace
{

constexpr std::string_view kHeader = "# msgrec index 1:";
constexpr std::string_view kEnd = "# end ";

struct ElemInfo {
    Elem elem;
    const char *name;
    size_t width;
};
constexpr ElemInfo kElems[] = {{Elem::F64, "f64", 8},
                               {Elem::F32, "f32", 4},
                               {Elem::I32, "i32", 4},
                               {Elem::I64, "i64", 8},
                               {Elem::Bytes, "bytes", 1}};

const ElemInfo &info(Elem e)
{
    for (const ElemInfo &i : kElems)
        if (i.elem == e)
            return i;
    return kElems[4];
}

bool fail(std::string *error, size_t line, const std::string &why)
{
    *error = "line " + std::to_string(line) + ": " + why;
    return false;
}

// "key=value" fields of the summary line; unknown keys are ignored (later versions may add some).
bool parse_summary(const std::string &line, Summary *s)
{
    std::istringstream in(line.substr(kEnd.size()));
    struct Field {
        const char *key;
        uint64_t *value;
        bool seen;
    } fields[] = {{"calls", &s->calls, false},
                  {"recorded", &s->recorded, false},
                  {"recorded_bytes", &s->recorded_bytes, false},
                  {"small", &s->small, false},
                  {"small_bytes", &s->small_bytes, false},
                  {"over_limit", &s->over_limit, false},
                  {"over_limit_bytes", &s->over_limit_bytes, false},
                  {"unsampled", &s->unsampled, false}};
    for (std::string item; in >> item;) {
        size_t eq = item.find('=');
        if (eq == std::string::npos)
            return false;
        for (Field &f : fields)
            if (item.compare(0, eq, f.key) == 0 && eq == std::strlen(f.key)) {
                size_t used = 0;
                try {
                    *f.value = std::stoull(item.substr(eq + 1), &used);
                } catch (...) {
                    return false;
                }
                if (used != item.size() - eq - 1)
                    return false;
                f.seen = true;
            }
    }
    return std::all_of(std::begin(fields), std::end(fields), [](const Field &f) { return f.seen; });
}

// Parses a whole decimal field (no sign, no trailing characters).
bool parse_u64(const std::string &s, uint64_t *v)
{
    if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
        return false;
    try {
        *v = std::stoull(s);
    } catch (...) {
        return false;
    }
    return true;
}

bool parse_int(const std::string &s, int *v)
{
    try {
        size_t used = 0;
        long x = std::stol(s, &used);
        if (used != s.size() || x < -1 || x > INT32_MAX)
            return false;
        *v = static_cast<int>(x);
    } catch (...) {
        return false;
    }
    return true;
}

// Rank number of "rank00012.idx", or -1.
int rank_of(const fs::path &p)
{
    const std::string name = p.filename().string();
    if (p.extension() != ".idx" || name.rfind("rank", 0) != 0)
        return -1;
    const std::string digits = name.substr(4, name.size() - 4 - 4);
    uint64_t r;
    if (!parse_u64(digits, &r) || r > INT32_MAX)
        return -1;
    return static_cast<int>(r);
}

std::vector<RankFiles> ranks_in(const fs::path &dir)
{
    std::vector<RankFiles> ranks;
    std::error_code ec;
    for (const fs::directory_entry &e : fs::directory_iterator(dir, ec)) {
        int r = rank_of(e.path());
        if (r < 0 || !e.is_regular_file())
            continue;
        fs::path data = e.path();
        data.replace_extension(".dat");
        ranks.push_back({r, e.path().string(), data.string()});
    }
    std::sort(ranks.begin(), ranks.end(),
              [](const RankFiles &a, const RankFiles &b) { return a.rank < b.rank; });
    return ranks;
}

} // namespace

const char *elem_name(Elem e)
{
    return info(e).name;
}

size_t elem_width(Elem e)
{
    return info(e).width;
}

bool parse_elem(std::string_view name, Elem *out)
{
    for (const ElemInfo &i : kElems)
        if (name == i.name) {
            *out = i.elem;
            return true;
        }
    return false;
}

bool parse_index(std::istream &in, RankIndex *out, std::string *error)
{
    *out = RankIndex{};
    std::string line;
    size_t lineno = 0;
    uint64_t next_offset = 0;
    while (std::getline(in, line)) {
        ++lineno;
        if (lineno == 1) {
            if (line.rfind(kHeader, 0) != 0)
                return fail(error, lineno, "not a msgrec index (no \"# msgrec index 1:\" header)");
            continue;
        }
        if (line.empty())
            continue;
        if (line[0] == '#') {
            if (line.rfind(kEnd, 0) == 0) {
                if (out->summary.present)
                    return fail(error, lineno, "second summary line");
                if (!parse_summary(line, &out->summary))
                    return fail(error, lineno, "malformed summary line");
                out->summary.present = true;
            }
            continue;
        }
        if (out->summary.present)
            return fail(error, lineno, "record after the summary line");
        std::istringstream fields(line);
        std::string call, op, elem, bytes, offset, peer, tag, extra;
        if (!(fields >> call >> op >> elem >> bytes >> offset >> peer >> tag) || (fields >> extra))
            return fail(error, lineno, "want 7 fields: call op elem bytes offset peer tag");
        Message m;
        m.op = op;
        if (!parse_u64(call, &m.call) || !parse_u64(bytes, &m.bytes) ||
            !parse_u64(offset, &m.offset) || !parse_int(peer, &m.peer) || !parse_int(tag, &m.tag))
            return fail(error, lineno, "malformed number");
        if (!parse_elem(elem, &m.elem))
            return fail(error, lineno, "unknown element type \"" + elem + "\"");
        if (m.bytes == 0 || m.bytes % elem_width(m.elem) != 0)
            return fail(error, lineno,
                        "size " + bytes + " is not a positive multiple of the " + elem + " size");
        if (m.offset != next_offset)
            return fail(error, lineno,
                        "offset " + offset + " does not follow the previous payload (expected " +
                            std::to_string(next_offset) + ")");
        if (m.bytes > UINT64_MAX - m.offset)
            return fail(error, lineno, "size " + bytes + " runs past the largest offset");
        next_offset = m.offset + m.bytes;
        out->messages.push_back(std::move(m));
    }
    if (lineno == 0)
        return fail(error, 1, "empty index");
    return true;
}

bool find_apps(const std::string &dir, std::vector<App> *apps, std::string *error)
{
    apps->clear();
    std::error_code ec;
    fs::path root(dir);
    if (!fs::is_directory(root, ec)) {
        *error = dir + ": not a directory";
        return false;
    }
    std::vector<RankFiles> own = ranks_in(root);
    if (!own.empty()) {
        const fs::path clean = root.lexically_normal();
        std::string name = (clean.has_filename() ? clean : clean.parent_path()).filename().string();
        apps->push_back({name, root.string(), std::move(own)});
        return true;
    }
    for (const fs::directory_entry &e : fs::directory_iterator(root, ec)) {
        if (!e.is_directory())
            continue;
        std::vector<RankFiles> ranks = ranks_in(e.path());
        if (!ranks.empty())
            apps->push_back({e.path().filename().string(), e.path().string(), std::move(ranks)});
    }
    if (ec) {
        *error = dir + ": " + ec.message();
        return false;
    }
    std::sort(apps->begin(), apps->end(),
              [](const App &a, const App &b) { return a.name < b.name; });
    if (apps->empty()) {
        *error = dir + ": no rank*.idx here or in its subdirectories";
        return false;
    }
    return true;
}

bool load_rank(const RankFiles &files, LoadedRank *out, std::string *error)
{
    std::ifstream idx(files.index_path);
    if (!idx) {
        *error = files.index_path + ": cannot open";
        return false;
    }
    std::string why;
    if (!parse_index(idx, &out->index, &why)) {
        *error = files.index_path + ": " + why;
        return false;
    }
    std::ifstream dat(files.data_path, std::ios::binary | std::ios::ate);
    if (!dat) {
        *error = files.data_path + ": cannot open";
        return false;
    }
    const std::streamoff size = dat.tellg();
    const uint64_t need = out->index.messages.empty() ? 0
                                                      : out->index.messages.back().offset +
                                                            out->index.messages.back().bytes;
    if (size < 0 || static_cast<uint64_t>(size) < need) {
        *error = files.data_path + ": " + std::to_string(size) + " bytes, the index needs " +
                 std::to_string(need);
        return false;
    }
    out->data.resize(need);
    dat.seekg(0);
    if (need &&
        !dat.read(reinterpret_cast<char *>(out->data.data()), static_cast<std::streamsize>(need))) {
        *error = files.data_path + ": read failed";
        return false;
    }
    return true;
}

} // namespace msgcorpus
