// The metrics endpoint's HTTP, without sockets: the request forms RFC 9112
// asks a server to take (the absolute form of the target, empty lines
// before the request line) and the versions it must refuse.
#include "metrics_http.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using ozram::daemon::http::request_state;
using ozram::daemon::http::RequestState;
using ozram::daemon::http::respond;

// The status line of the answer to `request`.
std::string status(const std::string& request) {
    const std::string answer = respond(request, [] { return std::string("x 1\n"); });
    return answer.substr(0, answer.find("\r\n"));
}

TEST(MetricsHttp, TheOriginForm) {
    EXPECT_EQ(status("GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"), "HTTP/1.1 200 OK");
    EXPECT_EQ(status("GET /metrics?name[]=x HTTP/1.0\r\n\r\n"), "HTTP/1.1 200 OK");
    EXPECT_EQ(status("GET /other HTTP/1.1\r\n\r\n"), "HTTP/1.1 404 Not Found");
}

// RFC 9112, 3.2.2: a server must accept the absolute form, which a client
// sends to a proxy, and which names the same resource.
TEST(MetricsHttp, TheAbsoluteForm) {
    EXPECT_EQ(status("GET http://127.0.0.1:9101/metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
              "HTTP/1.1 200 OK");
    EXPECT_EQ(status("GET HTTP://[::1]:9101/metrics?x=1 HTTP/1.1\r\n\r\n"), "HTTP/1.1 200 OK");
    EXPECT_EQ(status("GET https://host/metrics HTTP/1.1\r\n\r\n"), "HTTP/1.1 200 OK");
    EXPECT_EQ(status("GET http://host HTTP/1.1\r\n\r\n"), "HTTP/1.1 404 Not Found");
    EXPECT_EQ(status("GET http://host/other HTTP/1.1\r\n\r\n"), "HTTP/1.1 404 Not Found");
    EXPECT_EQ(status("GET ftp://host/metrics HTTP/1.1\r\n\r\n"), "HTTP/1.1 404 Not Found");
}

// RFC 9112, 2.2: a server should ignore at least one empty line before the
// request line.
TEST(MetricsHttp, EmptyLinesBeforeTheRequestLine) {
    EXPECT_EQ(request_state("\r\n"), RequestState::Incomplete);
    EXPECT_EQ(request_state("\r\n\r\n"), RequestState::Incomplete);
    EXPECT_EQ(request_state("\r\nGET /metrics HTTP/1.1\r\n"), RequestState::Incomplete);
    EXPECT_EQ(status("\r\nGET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"), "HTTP/1.1 200 OK");
    EXPECT_EQ(status("\n\r\nGET /metrics HTTP/1.1\n\n"), "HTTP/1.1 200 OK");
}

// HTTP-version = "HTTP/" DIGIT "." DIGIT: anything else is a bad request,
// and a major version other than 1 is one this server does not speak.
TEST(MetricsHttp, TheVersion) {
    EXPECT_EQ(status("GET /metrics HTTP/1.0\r\n\r\n"), "HTTP/1.1 200 OK");
    EXPECT_EQ(status("GET /metrics HTTP/1.9\r\n\r\n"), "HTTP/1.1 200 OK");
    EXPECT_EQ(status("GET /metrics HTTP/1.1x\r\n\r\n"), "HTTP/1.1 400 Bad Request");
    EXPECT_EQ(status("GET /metrics HTTP/1.\r\n\r\n"), "HTTP/1.1 400 Bad Request");
    EXPECT_EQ(status("GET /metrics HTTP/1.1 extra\r\n\r\n"), "HTTP/1.1 400 Bad Request");
    EXPECT_EQ(status("GET /metrics http/1.1\r\n\r\n"), "HTTP/1.1 400 Bad Request");
    EXPECT_EQ(status("GET /metrics HTTP/2.0\r\n\r\n"), "HTTP/1.1 505 HTTP Version Not Supported");
    EXPECT_EQ(status("GET /metrics HTTP/10.1\r\n\r\n"), "HTTP/1.1 400 Bad Request");
}

}  // namespace
