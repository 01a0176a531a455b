#include "temporal_streams.hpp"

#include <cstring>
#include <new>

#include "zip_algo.h"

zip_algo_temporal::zip_algo_temporal(int size, size_t memory)
    : stream_cap(size > 1 ? memory / (2 * size_t(size - 1)) : 0), send(size_t(size)),
      recv(size_t(size))
{
}

const char *zip_algo_temporal::reference(int peer, bool sending, size_t bytes) const
{
    const zipcoll::TemporalStream &s = (sending ? send : recv)[size_t(peer)];
    return s.held && s.ref.size() == bytes ? s.ref.data() : nullptr;
}

void zip_algo_temporal::keep(int peer, bool sending, const char *block, size_t bytes)
{
    zipcoll::TemporalStream &s = stream(peer, sending);
    if (bytes == 0 || bytes > stream_cap) {
        drop(peer, sending);
        return;
    }
    // A new stream (the first block, or one of another size): its choice measures afresh.
    if (!s.held || s.ref.size() != bytes)
        s.choice = zipcoll::TemporalChoice{};
    try {
        s.ref.resize(bytes);
    } catch (const std::bad_alloc &) {
        drop(peer, sending); // a sender then sends plain frames; a receiver reports ZIP_E_STATE
        return;
    }
    std::memcpy(s.ref.data(), block, bytes);
    s.held = true;
}

void zip_algo_temporal::drop(int peer, bool sending)
{
    zipcoll::TemporalStream &s = stream(peer, sending);
    s.held = false;
    std::vector<char>().swap(s.ref);
    s.choice = zipcoll::TemporalChoice{};
}

size_t zip_algo_temporal::bytes() const
{
    size_t n = 0;
    for (const auto *dir : {&send, &recv})
        for (const auto &s : *dir)
            n += s.ref.capacity();
    return n;
}

extern "C" int zip_algo_temporal_mode_parse(const char *name)
{
    if (name == nullptr)
        return -1;
    if (std::strcmp(name, "off") == 0)
        return 0;
    return std::strcmp(name, "auto") == 0 ? 1 : -1;
}

extern "C" zip_algo_temporal_t *zip_algo_temporal_create(int size, size_t memory)
{
    if (size < 1)
        return nullptr;
    try {
        return new zip_algo_temporal(size, memory);
    } catch (const std::bad_alloc &) {
        return nullptr;
    }
}

extern "C" void zip_algo_temporal_destroy(zip_algo_temporal_t *t)
{
    delete t;
}

extern "C" size_t zip_algo_temporal_bytes(const zip_algo_temporal_t *t)
{
    return t != nullptr ? t->bytes() : 0;
}

extern "C" void zip_algo_temporal_counts(const zip_algo_temporal_t *t, uint64_t *delta_frames,
                                         uint64_t *plain_frames)
{
    *delta_frames = t != nullptr ? t->counts.delta_frames : 0;
    *plain_frames = t != nullptr ? t->counts.plain_frames : 0;
}
