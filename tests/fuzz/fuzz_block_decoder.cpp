// libFuzzer target for one block decoder, chosen at build time with -DFUZZ_CODEC="fpc".
// Input: byte 0 picks the element type, bytes 1-2 the raw block size; the rest is the block
// (make_seeds.cpp writes the codec's own blocks of the benchmark data in this format).
// The decoder must return ZIP_OK or ZIP_E_CORRUPT and never touch memory outside its buffers.
#include <cstdlib>
#include <memory>

#include "codec.hpp"

#ifndef FUZZ_CODEC
#error "build with -DFUZZ_CODEC=\"name\""
#endif

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static std::unique_ptr<zip::BlockCodec> codec = zip::make_codec(FUZZ_CODEC, {});
    if (size < 3)
        return 0;
    zip_elem_type_t type = zip_elem_type_t(data[0] % 3);
    size_t esize = zip_elem_size(type);
    size_t raw_n = (size_t(data[1]) | size_t(data[2]) << 8) / esize * esize;
    if (raw_n == 0)
        return 0;
    std::unique_ptr<uint8_t[]> in(new uint8_t[size - 3]);
    std::copy(data + 3, data + size, in.get());
    std::unique_ptr<uint8_t[]> out(new uint8_t[raw_n]);
    zip_status_t s = codec->decompress(in.get(), size - 3, type, out.get(), raw_n);
    if (s != ZIP_OK && s != ZIP_E_CORRUPT)
        std::abort();
    return 0;
}
