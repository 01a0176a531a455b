// libFuzzer target for the whole frame path (header, block table, checks, every codec, lossy
// widening, temporal references) through the public C API.
#include <memory>

#include "zip/zip.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static zip_ctx_t *ctx = zip_ctx_create("temporal", nullptr);
    zip_frame_info_t info;
    size_t cap = 1 << 16;
    if (zip_frame_inspect(data, size, &info) == ZIP_OK && info.raw_bytes < (1u << 24))
        cap = size_t(info.raw_bytes);
    std::unique_ptr<uint8_t[]> out(new uint8_t[cap ? cap : 1]);
    size_t len = 0;
    zip_decompress(ctx, 1, data, size, out.get(), cap, &len);
    return 0;
}
