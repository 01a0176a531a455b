// Seed corpora of the fuzz targets (run-fuzz.sh), made from perftest/data's data sets so that
// fuzzing starts from valid input of every kind:
//   make-seeds frame <dir>          whole frames of every spec (fuzz_frame.cpp's input)
//   make-seeds block <codec> <dir>  blocks of one codec in fuzz_block_decoder.cpp's input format:
//                                   byte 0 the element type, bytes 1-2 the raw block size
//                                   (little-endian), then the block
// Blocks come from the codec itself (default options, as the fuzz target builds it), for every
// data set, element type and a range of sizes; each one is decoded back and compared before it is
// written. Data that does not shrink (random, small sizes) is compressed with room to spare
// instead, so that the incompressible paths of the decoders are seeded too. Prints the number of
// seeds; exits nonzero when a codec produces nothing, or a block does not decode to its data.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "codec.hpp"
#include "zip/zip.h"
#include "zipdata.h"

namespace
{

struct DataSet {
    const char *name;
    uint64_t seed_or_step;
};

// Smooth grids in natural and sorted order, an exact ramp, a simulation field and its halo,
// records of several fields with zeros (strided predictors, sparse planes), and the hard cases:
// random bits, random unit doubles (`fast` codes their skewed exponent bits as bit planes),
// special values (NaN, inf, denormals, -0), FFT-like noise.
const DataSet kDataSets[] = {
    {"linear", 0},         {"gauss-256", 0},   {"gauss-256-sorted", 0}, {"sincos-256", 0},
    {"heat3d", 4},         {"heat3d-halo", 4}, {"records-3", 0},        {"records-5", 0},
    {"records-8", 0},      {"random", 11},     {"random-unit", 12},     {"special", 13},
    {"complex-decay", 14}, {"halo-runs", 0},
};

const zip_elem_type_t kTypes[] = {ZIP_TYPE_F64, ZIP_TYPE_F32, ZIP_TYPE_BYTES};

// Raw block sizes in bytes: whole elements of every type, below the 16 bits the target reads.
const size_t kSizes[] = {8, 24, 1000, 4096, 32768, 65528};

// `bytes` bytes of data set d as elements of `type` (BYTES: the doubles' bytes). "halo-runs" is
// not a zipdata set: a smooth field cut by runs of 16-400 zeros and constants, as CloverLeaf's
// halos, so that `fast` blocks with element runs (frame format 4) are among the seeds.
std::vector<uint8_t> data_bytes(const DataSet &d, zip_elem_type_t type, size_t bytes)
{
    std::vector<uint8_t> out(bytes);
    int rc;
    if (std::strcmp(d.name, "halo-runs") == 0) {
        const bool f32 = type == ZIP_TYPE_F32;
        std::vector<double> v(f32 ? bytes / 4 : (bytes + 7) / 8);
        rc = zipdata_fill("gauss-256", v.data(), v.size(), 0);
        for (size_t i = 0, k = 0; i < v.size(); i += 60 + 37 * (k % 5), ++k)
            for (size_t j = i; j < std::min(v.size(), i + 16 + 97 * (k % 4)); ++j)
                v[j] = k % 3 == 0 ? 0.0 : k % 3 == 1 ? -0.0 : 1.5;
        if (f32) {
            std::vector<float> f(v.begin(), v.end());
            std::memcpy(out.data(), f.data(), bytes);
        } else {
            std::memcpy(out.data(), v.data(), bytes);
        }
    } else if (type == ZIP_TYPE_F32) {
        std::vector<float> f(bytes / 4);
        rc = zipdata_fill_f32(d.name, f.data(), f.size(), d.seed_or_step);
        std::memcpy(out.data(), f.data(), bytes);
    } else {
        std::vector<double> v((bytes + 7) / 8);
        rc = zipdata_fill(d.name, v.data(), v.size(), d.seed_or_step);
        std::memcpy(out.data(), v.data(), bytes);
    }
    if (rc != ZIPDATA_OK) {
        std::fprintf(stderr, "make-seeds: data set %s: error %d\n", d.name, rc);
        std::exit(1);
    }
    return out;
}

bool write_file(const std::string &path, const uint8_t *p, size_t n)
{
    FILE *f = std::fopen(path.c_str(), "wb");
    if (!f || std::fwrite(p, 1, n, f) != n) {
        std::fprintf(stderr, "make-seeds: cannot write %s\n", path.c_str());
        if (f)
            std::fclose(f);
        return false;
    }
    return std::fclose(f) == 0;
}

const char *type_name(zip_elem_type_t t)
{
    return t == ZIP_TYPE_F64 ? "f64" : t == ZIP_TYPE_F32 ? "f32" : "bytes";
}

int make_blocks(const char *codec_name, const std::string &dir)
{
    std::unique_ptr<zip::BlockCodec> codec;
    try {
        codec = zip::make_codec(codec_name, {});
    } catch (const zip::SpecError &e) {
        std::fprintf(stderr, "make-seeds: %s\n", e.message.c_str());
        return 1;
    }
    int written = 0, shrunk = 0, bad = 0;
    for (const DataSet &d : kDataSets) {
        for (zip_elem_type_t type : kTypes) {
            for (size_t n : kSizes) {
                const std::vector<uint8_t> src = data_bytes(d, type, n);
                // A block as the frame layer asks for it (it must shrink), else one with room.
                std::vector<uint8_t> block(2 * n + 1024);
                size_t len = codec->compress(src.data(), n, type, block.data(), n - 1);
                const bool shrinks = len != 0;
                if (!shrinks)
                    len = codec->compress(src.data(), n, type, block.data(), block.size());
                if (len == 0)
                    continue;
                std::vector<uint8_t> back(n);
                if (codec->decompress(block.data(), len, type, back.data(), n) != ZIP_OK ||
                    back != src) {
                    std::fprintf(stderr,
                                 "make-seeds: %s block of %s %s %zu bytes%s does not "
                                 "decode to its data\n",
                                 codec_name, d.name, type_name(type), n,
                                 shrinks ? "" : " (given room to grow)");
                    // A block the frame layer could send must decode; one given more room than
                    // the raw size (outside the codec contract) is only left out.
                    bad += shrinks ? 1 : 0;
                    continue;
                }
                std::vector<uint8_t> seed{uint8_t(type), uint8_t(n & 0xFF), uint8_t(n >> 8)};
                seed.insert(seed.end(), block.begin(), block.begin() + ptrdiff_t(len));
                const std::string path = dir + "/" + codec_name + "-" + d.name + "-" +
                                         type_name(type) + "-" + std::to_string(n);
                if (!write_file(path, seed.data(), seed.size()))
                    return 1;
                ++written;
                shrunk += shrinks ? 1 : 0;
            }
        }
    }
    std::printf("%d %s blocks (%d compressed, %d stored larger than raw)\n", written, codec_name,
                shrunk, written - shrunk);
    return bad || shrunk == 0 ? 1 : 0;
}

int make_frames(const std::string &dir)
{
    const char *const specs[] = {"fast",     "fpc",          "dfcm",     "xorlz",
                                 "lz4",      "zstd",         "raw",      "temporal",
                                 "f32+fast", "trunc:20+fpc", "abs:1e-3", "rel:1e-4+dfcm"};
    const DataSet sets[] = {
        {"gauss-256", 0}, {"heat3d", 4}, {"special", 13}, {"random", 11}, {"linear", 0}};
    int written = 0;
    for (const char *spec : specs) {
        for (const DataSet &d : sets) {
            for (zip_elem_type_t type : {ZIP_TYPE_F64, ZIP_TYPE_F32}) {
                zip_ctx_t *ctx = zip_ctx_create(spec, nullptr);
                if (!ctx || zip_ctx_set_block_size(ctx, 4096) != ZIP_OK) {
                    std::fprintf(stderr, "make-seeds: spec %s refused\n", spec);
                    return 1;
                }
                // Two messages of one stream: a temporal context sends a key and a delta frame.
                for (uint64_t step = 0; step < 2; ++step) {
                    const size_t count = 3000 + 7 * step;
                    DataSet at = d;
                    at.seed_or_step += step;
                    const std::vector<uint8_t> src =
                        data_bytes(at, type, count * zip_elem_size(type));
                    std::vector<uint8_t> frame(zip_compress_bound(src.size()));
                    size_t len = 0;
                    if (zip_compress(ctx, 1, type, src.data(), count, frame.data(), frame.size(),
                                     &len) != ZIP_OK) {
                        std::fprintf(stderr, "make-seeds: %s: %s\n", spec, zip_ctx_last_error(ctx));
                        return 1;
                    }
                    std::string name = spec;
                    for (char &c : name)
                        if (c == ':' || c == '+')
                            c = '_';
                    const std::string path = dir + "/frame-" + name + "-" + d.name + "-" +
                                             type_name(type) + "-" + std::to_string(step);
                    if (!write_file(path, frame.data(), len))
                        return 1;
                    ++written;
                }
                zip_ctx_destroy(ctx);
            }
        }
    }
    std::printf("%d frames\n", written);
    return 0;
}

} // namespace

int main(int argc, char **argv)
{
    if (argc == 3 && std::strcmp(argv[1], "frame") == 0)
        return make_frames(argv[2]);
    if (argc == 4 && std::strcmp(argv[1], "block") == 0)
        return make_blocks(argv[2], argv[3]);
    std::fprintf(stderr, "usage: make-seeds frame <dir> | make-seeds block <codec> <dir>\n");
    return 2;
}
