// State of Kumar's inter-step scheme: both ends keep, per stream, the payload of the last
// message (the "reference"). A delta frame carries payload XOR reference; its header names the
// reference by a 32-bit check so that a receiver that holds a different (or no) reference
// reports ZIP_E_STATE instead of decoding garbage.
//
// Resync rules (both ends apply them identically):
//  - the sender sends a key frame (plain payload) when it holds no reference for the stream,
//    when the size changed, and every `key_interval` messages;
//  - any frame with kFlagTemporalKey or kFlagTemporalDelta replaces the stream's reference;
//  - references are evicted least-recently-used when their total exceeds the memory cap.
#pragma once

#include <cstddef>
#include <cstdint>
#include <list>
#include <unordered_map>
#include <vector>

namespace zip
{

class ReferenceStore
{
  public:
    struct Reference {
        std::vector<uint8_t> payload;
        uint32_t check = 0;
        uint32_t since_key = 0; // messages since the last key frame (sender side)
    };

    // The reference of `stream`, or nullptr. Marks it most recently used.
    Reference *find(uint64_t stream);

    // Replaces the reference of `stream` with n bytes at p; evicts others to stay within cap.
    // Returns false (and keeps nothing for the stream) if n alone exceeds the cap.
    bool store(uint64_t stream, const uint8_t *p, size_t n, uint32_t check, uint32_t since_key);

    void forget(uint64_t stream);
    void clear();
    void set_cap(size_t cap);
    size_t bytes() const { return bytes_; }

  private:
    std::list<uint64_t> lru_; // front = most recently used
    struct Slot {
        Reference ref;
        std::list<uint64_t>::iterator pos;
    };
    std::unordered_map<uint64_t, Slot> slots_;
    size_t bytes_ = 0;
    size_t cap_ = size_t(64) << 20;
};

// dst[i] = a[i] ^ b[i] for n bytes (any alignment); dst may alias a.
void xor_bytes(const uint8_t *a, const uint8_t *b, size_t n, uint8_t *dst);

} // namespace zip
