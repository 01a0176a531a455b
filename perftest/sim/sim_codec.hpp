// zip's codec seam (algo/transport.h) for simulation: a compress call returns the frame length
// the data set's measured ratio gives and costs the measured single-core time; a decompress
// call returns the raw length it was asked for and costs the decompression time. No byte is
// read or written: the algorithms only need the lengths, and the simulated ranks share one
// dummy buffer.
#pragma once

#include <string>

#include "codec_table.hpp"
#include "cpu.hpp"
#include "transport.h"

namespace simscale
{

// What one rank's codec did.
struct CodecWork {
    double compress_s = 0;
    double decompress_s = 0;
    size_t compressed_bytes = 0; // raw bytes given to compress
    size_t frames = 0;           // compress calls whose frame fit
};

class SimCodec
{
  public:
    SimCodec(const CodecTable *table, std::string codec, std::string dataset, Cpu cpu);

    // The ops struct the algorithms take; valid while this object lives.
    const zip_codec_ops_t *ops() const { return &ops_; }
    const CodecWork &work() const { return work_; }
    // Copying `bytes` of the data set in memory (memcpy's row of the table).
    double copy_seconds(size_t bytes) const;
    void copy(size_t bytes) const { cpu_.spend(copy_seconds(bytes)); }

    // The codec calls and copies the algorithms make are owed, and paid (spent on the core) by
    // pay(), which the transport calls before each of its operations and the caller after the
    // algorithm returns. Work between two operations of one rank runs back to back on its
    // core, so one execution of its sum ends when the pieces would have (SimGrid shares a core
    // by rate), and the simulation makes one execution where the algorithms make one codec call
    // per block (a 1024-rank scatter-allgather bcast: a million decodes).
    void owe(double seconds) const { owed_ += seconds; }
    void pay() const;

  private:
    static int compress(void *ctx, int elem_type, const void *src, size_t bytes, void *dst,
                        size_t dst_cap, size_t *frame_len);
    static int decompress(void *ctx, const void *frame, size_t frame_len, void *dst, size_t dst_cap,
                          size_t *raw_len);

    const CodecTable *table_;
    std::string codec_, dataset_;
    Cpu cpu_;
    mutable double owed_ = 0.0;
    zip_codec_ops_t ops_{};
    CodecWork work_;
};

} // namespace simscale
