// ozramd's own metrics: what the drain loop records comes out of the
// endpoint, in a format promtool accepts, over a real TCP connection.
#include "agent_metrics.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <string>

#include "cli/usage_error.hpp"
#include "metrics_server.hpp"
#include "ozram/error.hpp"
#include "promtool_check.hpp"

namespace {

using ozram::Backend;
using ozram::BatchResult;
using ozram::daemon::AgentMetrics;
using ozram::daemon::ListenAddress;
using ozram::daemon::MetricsServer;
using ozram::daemon::parse_listen_address;

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

TEST(MetricsServer, ListenAddresses) {
    const auto loopback = parse_listen_address("9101");
    EXPECT_EQ(loopback.host, "127.0.0.1");
    EXPECT_EQ(loopback.port, 9101);
    EXPECT_EQ(parse_listen_address(":9102").host, "127.0.0.1");
    const auto any = parse_listen_address("0.0.0.0:9103");
    EXPECT_EQ(any.host, "0.0.0.0");
    EXPECT_EQ(any.port, 9103);
    const auto v6 = parse_listen_address("[::1]:9104");
    EXPECT_EQ(v6.host, "::1");
    EXPECT_EQ(v6.port, 9104);
    for (const char* bad : {"", "0", "x", "65536", "1.2.3.4:", "::1:80", "[::1]", "[]:80"}) {
        EXPECT_THROW((void)parse_listen_address(bad), ozram::cli::UsageError) << bad;
    }
}

// Sends `request` to the server and returns all of its answer.
std::string exchange(std::uint16_t port, const std::string& request) {
    const int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
        close(fd);
        return "connect failed";
    }
    EXPECT_EQ(send(fd, request.data(), request.size(), MSG_NOSIGNAL),
              static_cast<ssize_t>(request.size()));
    std::string answer;
    char buffer[4096];
    ssize_t n = 0;
    while ((n = recv(fd, buffer, sizeof buffer, 0)) > 0) {
        answer.append(buffer, static_cast<std::size_t>(n));
    }
    close(fd);
    return answer;
}

TEST(MetricsServer, ServesMetricsOverHttp) {
    std::atomic<int> scrapes{0};
    MetricsServer server(ListenAddress{"127.0.0.1", 0}, [&scrapes] {
        return "# HELP x_total X.\n# TYPE x_total counter\nx_total " + std::to_string(++scrapes) +
               "\n";
    });
    ASSERT_NE(server.port(), 0);
    EXPECT_EQ(server.bound(), "127.0.0.1:" + std::to_string(server.port()));

    const std::string body = "# HELP x_total X.\n# TYPE x_total counter\nx_total 1\n";
    EXPECT_EQ(exchange(server.port(), "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"),
              "HTTP/1.1 200 OK\r\n"
              "Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"
              "Content-Length: " +
                  std::to_string(body.size()) +
                  "\r\n"
                  "Connection: close\r\n\r\n" +
                  body);
    const std::string head = exchange(server.port(), "HEAD /metrics?x=1 HTTP/1.0\r\n\r\n");
    EXPECT_TRUE(head.starts_with("HTTP/1.1 200 OK\r\n")) << head;
    EXPECT_TRUE(head.ends_with("\r\n\r\n")) << head;
    EXPECT_TRUE(exchange(server.port(), "GET / HTTP/1.1\r\n\r\n").starts_with("HTTP/1.1 404 "));
    const std::string post = exchange(server.port(), "POST /metrics HTTP/1.1\r\n\r\n");
    EXPECT_TRUE(post.starts_with("HTTP/1.1 405 ")) << post;
    EXPECT_NE(post.find("\r\nAllow: GET, HEAD\r\n"), std::string::npos) << post;
    EXPECT_TRUE(exchange(server.port(), "nonsense\r\n\r\n").starts_with("HTTP/1.1 400 "));
    EXPECT_TRUE(exchange(server.port(), std::string(9000, 'a')).starts_with("HTTP/1.1 431 "));
    EXPECT_EQ(scrapes.load(), 2);  // GET and HEAD rendered, the others not
}

TEST(MetricsServer, RefusesAnAddressInUse) {
    MetricsServer first(ListenAddress{"127.0.0.1", 0}, [] { return std::string(); });
    EXPECT_THROW(
        MetricsServer(ListenAddress{"127.0.0.1", first.port()}, [] { return std::string(); }),
        ozram::Error);
}

}  // namespace
