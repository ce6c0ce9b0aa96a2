// ozramd's own metrics: what the drain loop records comes out in a format
// promtool accepts (metrics_server_test.cpp serves it over TCP).
#include "agent_metrics.hpp"

#include <gtest/gtest.h>

#include <string>

#include "promtool_check.hpp"

namespace {

using ozram::Backend;
using ozram::BatchResult;
using ozram::daemon::AgentMetrics;

bool contains(const std::string& text, const std::string& line) {
    return text.find(line + "\n") != std::string::npos;
}

AgentMetrics& recorded(AgentMetrics& metrics) {
    BatchResult gpu;
    gpu.h2d_time_ns = 1'500'000;
    gpu.kernel_time_ns = 2'000'000;
    gpu.d2h_time_ns = 500'000;
    gpu.total_time_ns = 5'000'000;
    metrics.record_batch(Backend::Gpu, 256, gpu, true, false);
    metrics.record_completed(Backend::Gpu, 256, 300'000);
    metrics.record_batch(Backend::Gpu, 200, gpu, true, true);
    metrics.record_completed(Backend::Cpu, 200, 100'000);
    BatchResult cpu;
    cpu.total_time_ns = 250'000;
    metrics.record_batch(Backend::Cpu, 1, cpu, true, false);
    metrics.record_completed(Backend::Cpu, 1, 40);
    metrics.record_batch(Backend::Scalar, 3, cpu, false, false);
    metrics.record_cost_model_choice(Backend::Gpu);
    metrics.record_cost_model_choice(Backend::Cpu);
    metrics.record_cost_model_choice(Backend::Cpu);
    metrics.record_rejected_submissions(2);
    metrics.record_dropped_completions(0);
    return metrics;
}

TEST(AgentMetrics, RenderSaysWhatWasRecorded) {
    AgentMetrics metrics;
    const std::string text = recorded(metrics).render();
    EXPECT_TRUE(contains(text, "ozram_agent_batches_total{backend=\"gpu\"} 2")) << text;
    EXPECT_TRUE(contains(text, "ozram_agent_batches_total{backend=\"scalar\"} 1"));
    EXPECT_TRUE(contains(text, "ozram_agent_failed_batches_total{backend=\"scalar\"} 1"));
    EXPECT_TRUE(contains(text, "ozram_agent_pages_total{backend=\"cpu\"} 201"));
    EXPECT_TRUE(contains(text, "ozram_agent_output_bytes_total{backend=\"gpu\"} 300000"));
    EXPECT_TRUE(contains(text, "ozram_agent_cost_model_choices_total{backend=\"cpu\"} 2"));
    EXPECT_TRUE(contains(text, "ozram_agent_gpu_stage_seconds_total{stage=\"h2d\"} 0.003"));
    EXPECT_TRUE(contains(text, "ozram_agent_gpu_stage_seconds_total{stage=\"kernel\"} 0.004"));
    EXPECT_TRUE(contains(text, "ozram_agent_compress_seconds_total{backend=\"cpu\"} 0.00025"));
    EXPECT_TRUE(contains(text, "ozram_agent_gpu_fallback_batches_total 1"));
    EXPECT_TRUE(contains(text, "ozram_agent_rejected_submissions_total 2"));
    // Sizes 1, 3, 200, 256: le=1 holds one, le=4 two, le=256 all four.
    EXPECT_TRUE(contains(text, "ozram_agent_batch_pages_bucket{le=\"1\"} 1"));
    EXPECT_TRUE(contains(text, "ozram_agent_batch_pages_bucket{le=\"2\"} 1"));
    EXPECT_TRUE(contains(text, "ozram_agent_batch_pages_bucket{le=\"4\"} 2"));
    EXPECT_TRUE(contains(text, "ozram_agent_batch_pages_bucket{le=\"128\"} 2"));
    EXPECT_TRUE(contains(text, "ozram_agent_batch_pages_bucket{le=\"256\"} 4"));
    EXPECT_TRUE(contains(text, "ozram_agent_batch_pages_bucket{le=\"+Inf\"} 4"));
    EXPECT_TRUE(contains(text, "ozram_agent_batch_pages_sum 460"));
    EXPECT_TRUE(contains(text, "ozram_agent_batch_pages_count 4"));
}

TEST(AgentMetrics, PromtoolAcceptsIt) {
    AgentMetrics empty;
    AgentMetrics full;
    for (const AgentMetrics* metrics : {&empty, &recorded(full)}) {
        const auto checked = ozram::testing::promtool_check(metrics->render());
        EXPECT_EQ(checked.status, 0) << checked.output;
        EXPECT_EQ(checked.output, "");
    }
}

}  // namespace
