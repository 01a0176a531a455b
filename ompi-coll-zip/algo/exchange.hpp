// Point-to-point block exchange shared by alltoallv and gatherv: post every receive at its
// raw length, compress and send each outgoing block, decode each frame as its receive lands.
#pragma once

#include <cstddef>
#include <vector>

#include "zip_algo.h"

namespace zipcoll {

struct Transfer {
    int peer;
    char *ptr;
    size_t bytes;
};

struct ExchangePlan {
    std::vector<Transfer> sends;  // in the order they should go out
    std::vector<Transfer> recvs;  // in the order they should be posted
    int tag = 0;
    int elem_type = ZIP_ALGO_BYTES;
    bool try_compress = false;
    size_t threshold = 0;
};

int run_exchange(const zip_transport_t *t, const zip_codec_ops_t *codec, const ExchangePlan &plan,
                 zip_algo_result_t *res);

}  // namespace zipcoll
