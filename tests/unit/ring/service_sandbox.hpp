// The network part of ozramd.service's sandbox, for a process of a test:
// what systemd sets up for PrivateNetwork=yes (a network namespace of its
// own), RestrictAddressFamilies=AF_UNIX (a seccomp filter: socket() and
// socketpair() of any other family fail with EAFNOSUPPORT) and
// NoNewPrivileges=yes, built with the same kernel features and libseccomp,
// so that the tests can run ozramd as the unit runs it without a service
// manager.  tools/packaging/check-units checks that the unit still says
// so.
#pragma once

#include <sched.h>
#include <seccomp.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <string>

namespace ozram::test {

// Enters the sandbox for good (the calling process and its children).
// Return: an empty string, or what failed.
inline std::string enter_service_sandbox() {
    // PrivateNetwork=yes.  Without CAP_SYS_ADMIN, in a user namespace of
    // its own, as systemd does for an unprivileged manager.
    if (unshare(CLONE_NEWNET) != 0 && unshare(CLONE_NEWUSER | CLONE_NEWNET) != 0) {
        return std::string("unshare(CLONE_NEWNET): ") + std::strerror(errno);
    }
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) {
        return std::string("PR_SET_NO_NEW_PRIVS: ") + std::strerror(errno);
    }
    // RestrictAddressFamilies=AF_UNIX.
    scmp_filter_ctx filter = seccomp_init(SCMP_ACT_ALLOW);
    if (filter == nullptr) {
        return "seccomp_init failed";
    }
    int error = 0;
    for (const int call : {SCMP_SYS(socket), SCMP_SYS(socketpair)}) {
        if (error == 0) {
            error = seccomp_rule_add(filter, SCMP_ACT_ERRNO(EAFNOSUPPORT), call, 1,
                                     SCMP_A0(SCMP_CMP_NE, AF_UNIX));
        }
    }
    if (error == 0) {
        error = seccomp_load(filter);
    }
    seccomp_release(filter);
    if (error != 0) {
        return std::string("seccomp: ") + std::strerror(-error);
    }
    return {};
}

}  // namespace ozram::test
