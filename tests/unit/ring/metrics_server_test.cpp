// ozramd's metrics endpoint over real TCP connections: the HTTP answers, a
// scrape that succeeds while a slow client trickles its request and a crowd
// of idle connections sits on the server, a deadline for the whole request,
// a rest instead of a busy loop when accept() runs out of descriptors,
// clients closed when poll() fails, listening sockets that never block, the
// sockets systemd passes, and a sandbox that forbids network sockets.
// Every scrape's body goes through promtool, Prometheus's own parser.
#include "metrics_server.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "cli/usage_error.hpp"
#include "loopback_http.hpp"
#include "metrics_listen.hpp"
#include "ozram/error.hpp"
#include "service_sandbox.hpp"

namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;
using ozram::daemon::ListenAddress;
using ozram::daemon::ListenForbidden;
using ozram::daemon::MetricsServer;
using ozram::daemon::MetricsServerLimits;
using ozram::daemon::parse_listen_address;
using Client = ozram::test::LoopbackClient;

// A metric whose value counts the scrapes, in the text format.
std::function<std::string()> counter(std::atomic<int>& scrapes) {
    return [&scrapes] {
        return "# HELP x_total X.\n# TYPE x_total counter\nx_total " + std::to_string(++scrapes) +
               "\n";
    };
}

// Sends `request` and returns all of the answer.
std::string exchange(std::uint16_t port, const std::string& request) {
    Client client(port);
    if (!client.connected()) {
        return "connect failed";
    }
    EXPECT_TRUE(client.send_text(request));
    return client.receive_all();
}

// A scrape: "GET /metrics", and the body if the answer is a 200 that
// promtool accepts, else a description of what came back.
std::string scrape(std::uint16_t port, std::chrono::milliseconds limit = 5s) {
    Client client(port);
    if (!client.connected() || !client.send_text(ozram::test::SCRAPE_REQUEST)) {
        return "no connection";
    }
    return ozram::test::scrape_body(client.receive_all(limit));
}

bool is_scrape(const std::string& body) {
    return body.starts_with("# HELP x_total X.\n");
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

// Numeric addresses only, checked when the command line is read: a name
// would be looked up (DNS, /etc/hosts) long after start-up, and a bad one
// found only after the agent locked its memory and calibrated.
TEST(MetricsServer, ListenAddressesAreNumeric) {
    EXPECT_EQ(parse_listen_address("192.0.2.7:9101").host, "192.0.2.7");
    EXPECT_EQ(parse_listen_address("[fe80::1]:9101").host, "fe80::1");
    EXPECT_EQ(parse_listen_address("[::]:9101").host, "::");
    for (const char* bad :
         {"localhost:9101", "metrics.example:9101", "1.2.3:9101", "256.0.0.1:9101",
          "0x7f.0.0.1:9101", "[localhost]:9101", "[127.0.0.1]:9101"}) {
        try {
            (void)parse_listen_address(bad);
            ADD_FAILURE() << bad << " accepted";
        } catch (const ozram::cli::UsageError& error) {
            const std::string expected =
                "--metrics-listen: expected PORT, IPV4:PORT or [IPV6]:PORT, got '" +
                std::string(bad) + "'";
            EXPECT_EQ(error.what(), expected);
        }
    }
}

// mlockall() locks a thread's whole stack: the endpoint's thread takes a
// small one, as the agent's other threads do, not the default 8 MiB.  It
// asks for 256 KiB; glibc may hand it the cached stack of a thread that
// ended, of up to four times that.
TEST(MetricsServer, ItsThreadHasASmallStack) {
    std::atomic<std::size_t> stack_size{0};
    MetricsServer server(ListenAddress{"127.0.0.1", 0}, [&stack_size] {
        pthread_attr_t attributes;
        std::size_t size = 0;
        if (pthread_getattr_np(pthread_self(), &attributes) == 0) {
            pthread_attr_getstacksize(&attributes, &size);
            pthread_attr_destroy(&attributes);
        }
        stack_size = size;
        return std::string("# HELP x_total X.\n# TYPE x_total counter\nx_total 1\n");
    });
    ASSERT_TRUE(is_scrape(scrape(server.port())));
    EXPECT_GT(stack_size.load(), 0u);
    EXPECT_LE(stack_size.load(), 1024u * 1024) << "bytes of stack";
}

TEST(MetricsServer, ServesMetricsOverHttp) {
    std::atomic<int> scrapes{0};
    MetricsServer server(ListenAddress{"127.0.0.1", 0}, counter(scrapes));
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
    // Lines ended by a bare LF, as printf | nc sends them (RFC 9112, 2.2).
    const std::string bare = exchange(server.port(), "GET /metrics HTTP/1.0\nHost: x\n\n");
    EXPECT_TRUE(bare.starts_with("HTTP/1.1 200 OK\r\n")) << bare;
    const std::string post = exchange(server.port(), "POST /metrics HTTP/1.1\r\n\r\n");
    EXPECT_TRUE(post.starts_with("HTTP/1.1 405 ")) << post;
    EXPECT_NE(post.find("\r\nAllow: GET, HEAD\r\n"), std::string::npos) << post;
    EXPECT_TRUE(exchange(server.port(), "nonsense\r\n\r\n").starts_with("HTTP/1.1 400 "));
    EXPECT_TRUE(exchange(server.port(), std::string(9000, 'a')).starts_with("HTTP/1.1 431 "));
    EXPECT_EQ(scrapes.load(), 3);  // the GETs and HEAD rendered, the others not
}

TEST(MetricsServer, RefusesAnAddressInUse) {
    std::atomic<int> scrapes{0};
    MetricsServer first(ListenAddress{"127.0.0.1", 0}, counter(scrapes));
    EXPECT_THROW(MetricsServer(ListenAddress{"127.0.0.1", first.port()}, counter(scrapes)),
                 ozram::Error);
}

// One client sends its request a byte every 50 ms, and more clients than
// the server serves at once connect and send nothing.  A scrape meanwhile
// gets its answer, the slow client is cut off at the deadline though it
// keeps sending, and every idle connection is closed.
TEST(MetricsServer, AScrapeSucceedsWhileASlowClientAndIdleConnectionsWait) {
    std::atomic<int> scrapes{0};
    MetricsServerLimits limits;
    limits.max_clients = 4;
    limits.deadline = 1000ms;
    MetricsServer server(ListenAddress{"127.0.0.1", 0}, counter(scrapes), limits);

    std::atomic<bool> slow_cut_off{false};
    std::atomic<long> slow_cut_after_ms{-1};
    std::thread slow([&] {
        Client client(server.port());
        const std::string request =
            "GET /metrics HTTP/1.1\r\nHost: slow\r\nX-Padding: " + std::string(200, 'p') +
            "\r\n\r\n";
        const auto start = Clock::now();
        for (std::size_t i = 0; i < request.size() && Clock::now() - start < 6s; ++i) {
            if (!client.send_text(request.substr(i, 1))) {
                slow_cut_off = true;
                break;
            }
            std::this_thread::sleep_for(50ms);
        }
        slow_cut_after_ms =
            std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start).count();
    });
    std::this_thread::sleep_for(200ms);
    std::vector<std::unique_ptr<Client>> idle;
    for (int i = 0; i < 12; ++i) {
        idle.push_back(std::make_unique<Client>(server.port()));
        ASSERT_TRUE(idle.back()->connected());
    }
    std::this_thread::sleep_for(100ms);

    const std::string body = scrape(server.port(), 3s);
    EXPECT_TRUE(is_scrape(body)) << body;
    for (const auto& client : idle) {
        EXPECT_TRUE(client->closed_by_server(3s));
    }
    slow.join();
    // Cut off about a deadline after it connected, not after its 6 s.
    EXPECT_TRUE(slow_cut_off.load())
        << "the slow client sent its request for " << slow_cut_after_ms.load() << " ms";
    EXPECT_LT(slow_cut_after_ms.load(), 5000);
    // And the server still serves.
    EXPECT_TRUE(is_scrape(scrape(server.port(), 3s)));
}

// The lowest descriptor number free now: with RLIMIT_NOFILE at it, the
// process can open no more.
rlim_t lowest_free_descriptor() {
    const int probe = open("/dev/null", O_RDONLY | O_CLOEXEC);
    close(probe);
    return static_cast<rlim_t>(probe);
}

std::chrono::microseconds cpu_time() {
    rusage usage{};
    getrusage(RUSAGE_SELF, &usage);
    const auto micros = [](const timeval& t) {
        return std::chrono::seconds(t.tv_sec) + std::chrono::microseconds(t.tv_usec);
    };
    return micros(usage.ru_utime) + micros(usage.ru_stime);
}

// With the process out of descriptors, a queued connection makes accept()
// fail at once every time the server tries.  The server must rest between
// tries, not spin: over 1.5 s it may use a fraction of a CPU second (a busy
// loop uses about all of it), and it serves the client once descriptors
// are free again.
TEST(MetricsServer, RestsWhenAcceptRunsOutOfDescriptors) {
    std::atomic<int> scrapes{0};
    MetricsServerLimits limits;
    limits.accept_rest = 20ms;
    limits.accept_rest_max = 300ms;
    MetricsServer server(ListenAddress{"127.0.0.1", 0}, counter(scrapes), limits);
    // Connected before the limit is lowered: the kernel queues it.
    Client client(server.port());
    ASSERT_TRUE(client.connected());
    ASSERT_TRUE(client.send_text("GET /metrics HTTP/1.1\r\n\r\n"));

    rlimit saved{};
    ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &saved), 0);
    const rlimit none{lowest_free_descriptor(), saved.rlim_max};
    const auto cpu_before = cpu_time();
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &none), 0);
    std::this_thread::sleep_for(1500ms);
    const auto cpu_used = cpu_time() - cpu_before;
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &saved), 0);

    EXPECT_LT(cpu_used, 300ms) << "the server spun on accept()";
    const std::string answer = client.receive_all(3s);
    EXPECT_TRUE(answer.starts_with("HTTP/1.1 200 OK\r\n")) << answer;
}

// poll() fails (EINVAL) once it is asked for more descriptors than
// RLIMIT_NOFILE allows, and the server's thread then ends: every client it
// held is closed then, not left open for the life of the process.
TEST(MetricsServer, ClosesItsClientsWhenPollFails) {
    std::atomic<int> scrapes{0};
    MetricsServerLimits limits;
    limits.max_clients = 16;
    limits.deadline = 20s;
    MetricsServer server(ListenAddress{"127.0.0.1", 0}, counter(scrapes), limits);
    std::vector<std::unique_ptr<Client>> idle;
    for (int i = 0; i < 4; ++i) {
        idle.push_back(std::make_unique<Client>(server.port()));
        ASSERT_TRUE(idle.back()->connected());
    }
    // The server accepts one connection a round, in their order: once this
    // scrape is answered, it holds the four idle ones.
    ASSERT_TRUE(is_scrape(scrape(server.port(), 3s)));

    rlimit saved{};
    ASSERT_EQ(getrlimit(RLIMIT_NOFILE, &saved), 0);
    const rlimit few{3, saved.rlim_max};
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &few), 0);
    // A byte from one of them wakes the server into a poll() of six
    // descriptors.
    const bool sent = idle.front()->send_text("G");
    std::vector<bool> closed;
    for (const auto& client : idle) {
        closed.push_back(client->closed_by_server(closed.empty() ? 3s : 100ms));
    }
    ASSERT_EQ(setrlimit(RLIMIT_NOFILE, &saved), 0);
    ASSERT_TRUE(sent);
    for (std::size_t i = 0; i < closed.size(); ++i) {
        EXPECT_TRUE(closed[i]) << "client " << i << " is still open";
    }
}

// --metrics-listen names the address of a socket systemd passed: that
// socket serves, and no second one is bound (which would fail, the port
// being taken).
TEST(MetricsServer, ServesTheSocketPassedForItsAddress) {
    std::uint16_t port = 0;
    const int passed = ozram::test::loopback_listener(port);
    ASSERT_GE(passed, 0);
    std::uint16_t other_port = 0;
    const int other = ozram::test::loopback_listener(other_port);
    ASSERT_GE(other, 0);
    std::vector<int> inherited{other, passed};
    const int taken = ozram::daemon::listen_on(ListenAddress{"127.0.0.1", port}, inherited);
    EXPECT_EQ(taken, passed);
    ASSERT_EQ(inherited, std::vector<int>{other});

    std::atomic<int> scrapes{0};
    MetricsServer server(std::vector<int>{taken, other}, counter(scrapes));
    EXPECT_EQ(server.port(), port);
    EXPECT_EQ(server.bound(),
              "127.0.0.1:" + std::to_string(port) + ", 127.0.0.1:" + std::to_string(other_port));
    EXPECT_TRUE(is_scrape(scrape(port)));
    EXPECT_TRUE(is_scrape(scrape(other_port)));
}

// poll() finding a listening socket readable does not promise accept() a
// connection (another process may share a passed socket and take it
// first): the server's sockets never block, whoever made them.
TEST(MetricsServer, ItsListeningSocketsDoNotBlock) {
    std::uint16_t port = 0;
    const int passed = ozram::test::loopback_listener(port);
    ASSERT_GE(passed, 0);
    ASSERT_EQ(fcntl(passed, F_GETFL) & O_NONBLOCK, 0);
    std::atomic<int> scrapes{0};
    MetricsServer server(std::vector<int>{passed}, counter(scrapes));
    EXPECT_NE(fcntl(passed, F_GETFL) & O_NONBLOCK, 0);
    EXPECT_TRUE(is_scrape(scrape(port)));
}

// systemd may pass a Unix socket (ListenStream=/run/...): it serves too.
TEST(MetricsServer, ServesAUnixSocketPassedToIt) {
    char dir_template[] = "/tmp/ozram-metrics-unix.XXXXXX";
    ASSERT_NE(mkdtemp(dir_template), nullptr);
    const std::string path = std::string(dir_template) + "/metrics.sock";
    sockaddr_un address{};
    address.sun_family = AF_UNIX;
    std::strncpy(address.sun_path, path.c_str(), sizeof address.sun_path - 1);
    const int passed = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_EQ(bind(passed, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
    ASSERT_EQ(listen(passed, 4), 0);

    std::atomic<int> scrapes{0};
    {
        MetricsServer server(std::vector<int>{passed}, counter(scrapes));
        EXPECT_EQ(server.bound(), "unix:" + path);
        EXPECT_EQ(server.port(), 0);
        const int client = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        ASSERT_EQ(connect(client, reinterpret_cast<sockaddr*>(&address), sizeof address), 0);
        const std::string request = "GET /metrics HTTP/1.1\r\n\r\n";
        ASSERT_EQ(send(client, request.data(), request.size(), MSG_NOSIGNAL),
                  static_cast<ssize_t>(request.size()));
        std::string answer;
        char buffer[4096];
        ssize_t n = 0;
        while ((n = recv(client, buffer, sizeof buffer, 0)) > 0) {
            answer.append(buffer, static_cast<std::size_t>(n));
        }
        close(client);
        EXPECT_TRUE(answer.starts_with("HTTP/1.1 200 OK\r\n")) << answer;
    }
    unlink(path.c_str());
    rmdir(dir_template);
}

// Under the unit's sandbox socket() itself is refused: listen_on() says so
// with ListenForbidden, which ozramd turns into one line and exit status 2.
TEST(MetricsServer, ASandboxThatForbidsNetworkSocketsIsNamedAsSuch) {
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        if (!ozram::test::enter_service_sandbox().empty()) {
            std::_Exit(3);
        }
        std::vector<int> none;
        try {
            (void)ozram::daemon::listen_on(ListenAddress{"127.0.0.1", 9101}, none);
        } catch (const ListenForbidden& error) {
            std::_Exit(error.code().value() == EAFNOSUPPORT ? 0 : 4);
        } catch (const ozram::Error&) {
            std::_Exit(1);
        }
        std::_Exit(2);
    }
    int status = 0;
    ASSERT_EQ(waitpid(child, &status, 0), child);
    ASSERT_TRUE(WIFEXITED(status));
    // 0: ListenForbidden with EAFNOSUPPORT; 1: another error; 2: it
    // listened; 3: no sandbox; 4: another errno.
    EXPECT_EQ(WEXITSTATUS(status), 0);
    // Outside a sandbox the same address is a plain error or works.
    std::vector<int> none;
    try {
        close(ozram::daemon::listen_on(ListenAddress{"127.0.0.1", 0}, none));
    } catch (const ListenForbidden&) {
        ADD_FAILURE() << "ListenForbidden outside a sandbox";
    }
}

}  // namespace
