// Runs steps on every simulated rank in lockstep and times them: a step starts on all ranks
// at once (after a barrier that costs no simulated time) and lasts until its last rank
// finishes, which is what zipbench reports (the slowest rank's time). Every request a step
// posts is complete when its ranks finish it, so one step's traffic never overlaps the next.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include <simgrid/s4u.hpp>

namespace simscale
{

class Runner
{
  public:
    using RankStep = std::function<void(int rank)>;
    using Then = std::function<void()>;
    using When = std::function<bool()>;

    // `then` runs once, between this step and the next, outside simulated time. `when`, if
    // given, is asked as the step starts (on every rank, which must get the same answer):
    // false skips the step.
    size_t add(std::string name, RankStep step, Then then = {}, When when = {});
    bool skipped(size_t step) const { return steps_[step].skipped; }

    // Starts one actor per rank on the host that rank_host names, then runs the simulation.
    // False when a step never finished (SimGrid found every rank blocked: a deadlock).
    bool run(const std::vector<simgrid::s4u::Host *> &rank_host);

    double seconds(size_t step) const { return steps_[step].elapsed; }
    // Wall-clock seconds the simulator spent on the step.
    double wall_seconds(size_t step) const { return steps_[step].wall; }
    size_t size() const { return steps_.size(); }
    const std::string &name(size_t step) const { return steps_[step].name; }

  private:
    struct Step {
        std::string name;
        RankStep body;
        Then then;
        When when;
        bool skipped = false;
        double start = 0;
        double end = 0;
        double elapsed = 0;
        double wall = 0;
        bool done = false;
    };
    std::vector<Step> steps_;
};

} // namespace simscale
