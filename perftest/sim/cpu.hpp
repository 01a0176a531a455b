// A rank's core: codec work and memory copies take simulated time on the host that runs them,
// whose cores SimGrid shares between the ranks that compute at the same moment.
#pragma once

#include <simgrid/s4u.hpp>

#include "network.hpp"

namespace simscale
{

class Cpu
{
  public:
    Cpu() = default;
    Cpu(Network *net, int rank, simgrid::s4u::Host *host) : net_(net), rank_(rank), host_(host) {}

    // Occupies one core of the host for `seconds` of single-core work (longer when more work
    // than cores competes). Must be called from the rank's actor; its messages keep moving
    // meanwhile.
    void spend(double seconds) const
    {
        if (net_ != nullptr)
            net_->compute(rank_, host_, seconds);
    }

  private:
    Network *net_ = nullptr;
    int rank_ = -1;
    simgrid::s4u::Host *host_ = nullptr;
};

} // namespace simscale
