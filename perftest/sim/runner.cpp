#include "runner.hpp"

#include <algorithm>
#include <chrono>

namespace sg4 = simgrid::s4u;

namespace simscale
{
namespace
{

double wall_now()
{
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

} // namespace

size_t Runner::add(std::string name, RankStep step, Then then, When when)
{
    steps_.push_back({std::move(name), std::move(step), std::move(then), std::move(when)});
    return steps_.size() - 1;
}

bool Runner::run(const std::vector<sg4::Host *> &rank_host)
{
    const int ranks = int(rank_host.size());
    sg4::BarrierPtr barrier = sg4::Barrier::create(unsigned(ranks));
    for (int r = 0; r < ranks; ++r) {
        sg4::Actor::create("rank-" + std::to_string(r), rank_host[size_t(r)], [this, barrier, r]() {
            for (auto &st : steps_) {
                barrier->wait();
                if (r == 0) {
                    st.start = sg4::Engine::get_clock();
                    st.wall = -wall_now();
                }
                if (st.when && !st.when())
                    st.skipped = true;
                else
                    st.body(r);
                st.end = std::max(st.end, sg4::Engine::get_clock());
                barrier->wait();
                if (r == 0) {
                    st.wall += wall_now();
                    st.elapsed = st.end - st.start;
                    st.done = true;
                    if (st.then)
                        st.then();
                }
            }
        });
    }
    sg4::Engine::get_instance()->run();
    return std::all_of(steps_.begin(), steps_.end(), [](const Step &s) { return s.done; });
}

} // namespace simscale
