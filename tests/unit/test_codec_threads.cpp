// How many codec threads a process can use (common/codec_threads.h): no more than the CPUs its
// binding lets it run on, as mpirun's default binding to a core would otherwise make two codec
// threads time-share one core.
#include <gtest/gtest.h>

#include <pthread.h>
#include <sched.h>

#include <thread>

#include "codec_threads.h"

TEST(CodecThreads, AreCappedAtTheUsableCpus)
{
    EXPECT_EQ(zip_codec_threads_for(4, 1), 1u);
    EXPECT_EQ(zip_codec_threads_for(4, 2), 2u);
    EXPECT_EQ(zip_codec_threads_for(2, 8), 2u);
    EXPECT_EQ(zip_codec_threads_for(64, 64), 64u);
}

TEST(CodecThreads, UnknownCpusLeaveTheSettingAndAtLeastOneThreadRemains)
{
    EXPECT_EQ(zip_codec_threads_for(4, 0), 4u);
    EXPECT_EQ(zip_codec_threads_for(0, 8), 1u);
    EXPECT_EQ(zip_codec_threads_for(0, 0), 1u);
}

// The count is the calling thread's binding, not the machine's CPUs.
TEST(CodecThreads, CpusUsableIsTheBindingOfTheCallingThread)
{
    cpu_set_t mine;
    CPU_ZERO(&mine);
    ASSERT_EQ(sched_getaffinity(0, sizeof mine, &mine), 0);
    EXPECT_EQ(zip_cpus_usable(), unsigned(CPU_COUNT(&mine)));
    int first = -1;
    for (int c = 0; c < CPU_SETSIZE && first < 0; ++c)
        if (CPU_ISSET(c, &mine))
            first = c;
    ASSERT_GE(first, 0);
    unsigned bound = 0;
    std::thread t([&] {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(first, &one);
        if (pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0)
            bound = zip_cpus_usable();
    });
    t.join();
    EXPECT_EQ(bound, 1u);
}
