// Reader of the message corpus msgrec writes (README.md next to this file): per rank an index
// (rank<NNNNN>.idx) and the payloads back to back (rank<NNNNN>.dat); one directory per
// application. Used by codecbench --files. Every field is validated: a malformed index or a data
// file shorter than its index is an error with the line, never a read out of bounds.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <string_view>
#include <vector>

namespace msgcorpus
{

enum class Elem { F64, F32, I32, I64, Bytes };

// "f64", "f32", "i32", "i64", "bytes", as the index writes them.
const char *elem_name(Elem e);
bool parse_elem(std::string_view name, Elem *out);
// Bytes per element: 8, 4, 4, 8, 1.
size_t elem_width(Elem e);

struct Message {
    uint64_t call = 0;
    std::string op;
    Elem elem = Elem::Bytes;
    uint64_t bytes = 0, offset = 0; // bytes [offset, offset + bytes) of the data file
    int peer = -1, tag = -1;
};

// The "# end" line: what the rank's recorder counted but did not record.
struct Summary {
    bool present = false; // false: the rank did not reach MPI_Finalize or exit
    uint64_t calls = 0, recorded = 0, recorded_bytes = 0, small = 0, small_bytes = 0,
             over_limit = 0, over_limit_bytes = 0, unsampled = 0;
};

struct RankIndex {
    std::vector<Message> messages;
    Summary summary;
};

// Parses one index. Returns false with "line N: why" in *error when the header is missing, a
// record has the wrong number of fields, an unknown element type, a size that is zero or not a
// multiple of its element size, or an offset that does not continue the previous payload.
bool parse_index(std::istream &in, RankIndex *out, std::string *error);

struct RankFiles {
    int rank = 0;
    std::string index_path, data_path;
};

struct App {
    std::string name; // the directory's name
    std::string dir;
    std::vector<RankFiles> ranks; // by rank
};

// The applications under `dir`: `dir` itself if it holds rank indexes, else each subdirectory
// that does (sorted by name). False with *error if there is none or `dir` cannot be read.
bool find_apps(const std::string &dir, std::vector<App> *apps, std::string *error);

struct LoadedRank {
    RankIndex index;
    std::vector<unsigned char> data;
    const unsigned char *payload(const Message &m) const { return data.data() + m.offset; }
};

// Reads a rank's index and data file; false with *error (naming the file) if either is
// malformed or the data file is shorter than the index says.
bool load_rank(const RankFiles &files, LoadedRank *out, std::string *error);

} // namespace msgcorpus
