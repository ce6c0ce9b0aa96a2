/* ozram-genl-dump: query the ozram generic netlink family and print what it
 * answers as key=value text, so that tests can compare it with sysfs; also
 * sends the privileged commands and reports their outcome as an errno name.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <inttypes.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../../shared/ozram_genl.h"

static void usage(FILE* out) {
    fprintf(out,
            "usage: ozram-genl-dump [--as-nobody] [--extra-attr] [--reserved] [--stray-flags]\n"
            "                       COMMAND [ID]\n"
            "Talks to the ozram generic netlink family.\n"
            "  devices          dump the devices, one line each:\n"
            "                   id=N name=ozramN disksize=BYTES initstate=0|1\n"
            "  stats [ID]       statistics of device ID, or the total over all\n"
            "                   devices, one key=value line per attribute, named as\n"
            "                   in backend_stat (shared/ozram_dev_stats.h)\n"
            "  compact [ID]     compact device ID or all (needs CAP_NET_ADMIN)\n"
            "  reset-stats [ID] reset the event counters (needs CAP_NET_ADMIN)\n"
            "  --as-nobody      switch to uid and gid 65534 before opening the socket\n"
            "  --extra-attr     also send an attribute the kernel must refuse\n"
            "  --reserved       set the reserved byte of the genetlink header\n"
            "  --stray-flags    set NLM_F_APPEND, meaningless to a request\n"
            "The last line printed is OK or the errno name of the failure (e.g. EPERM).\n"
            "Exit status: 0 on success, 1 when the kernel refused, 2 on usage error.\n");
}

/* The device's numbers, named from the list the module makes them from. */
static const char* const stat_names[OZRAM_STAT_ATTR_MAX + 1] = {
#define OZRAM_DEV_STAT(attr, name, kind, file, help) [OZRAM_STAT_ATTR_##attr] = #name,
#include "../../../shared/ozram_dev_stats.h"
#undef OZRAM_DEV_STAT
};

/* The ring's numbers, likewise. */
static const char* const ring_names[OZRAM_RING_ATTR_MAX + 1] = {
#define OZRAM_RING_STAT(attr, name, kind, help) [OZRAM_RING_ATTR_##attr] = #name,
#include "../../../shared/ozram_ring_stats.h"
#undef OZRAM_RING_STAT
};

struct request {
    int cmd;
    int dev_id; /* -1: none */
    int dump;
    int extra_attr;
    int reserved;    /* genlmsghdr.reserved, which must be 0 */
    int stray_flags; /* an nlmsg_flags bit no request may carry */
};

/* The errno the kernel answered with, 0 if none. */
static int kernel_errno;

static int on_error(struct sockaddr_nl* nla, struct nlmsgerr* err, void* arg) {
    (void)nla;
    (void)arg;
    kernel_errno = -err->error;
    return NL_STOP;
}

static void print_device(struct nlattr** tb) {
    printf("id=%" PRIu32 " name=%s disksize=%" PRIu64 " initstate=%u\n",
           tb[OZRAM_ATTR_DEV_ID] ? nla_get_u32(tb[OZRAM_ATTR_DEV_ID]) : 0,
           tb[OZRAM_ATTR_DEV_NAME] ? nla_get_string(tb[OZRAM_ATTR_DEV_NAME]) : "?",
           tb[OZRAM_ATTR_DISKSIZE] ? nla_get_u64(tb[OZRAM_ATTR_DISKSIZE]) : 0,
           tb[OZRAM_ATTR_INITSTATE] ? nla_get_u8(tb[OZRAM_ATTR_INITSTATE]) : 0);
}

/* Each attribute of the nest @nest that @names names, as name=value. */
static void print_nest(struct nlattr* nest, int max, const char* const* names) {
    struct nlattr* tb[max + 1];

    if (!nest || nla_parse_nested(tb, max, nest, NULL) != 0)
        return;
    for (int a = 0; a <= max; a++) {
        if (names[a] && tb[a])
            printf("%s=%" PRIu64 "\n", names[a], nla_get_u64(tb[a]));
    }
}

static void print_stats(struct nlattr** tb) {
    if (tb[OZRAM_ATTR_DEV_ID])
        printf("id=%" PRIu32 "\n", nla_get_u32(tb[OZRAM_ATTR_DEV_ID]));
    if (tb[OZRAM_ATTR_DEV_NAME])
        printf("name=%s\n", nla_get_string(tb[OZRAM_ATTR_DEV_NAME]));
    if (tb[OZRAM_ATTR_INITSTATE])
        printf("initstate=%u\n", nla_get_u8(tb[OZRAM_ATTR_INITSTATE]));
    if (tb[OZRAM_ATTR_NUM_DEVICES])
        printf("num_devices=%" PRIu32 "\n", nla_get_u32(tb[OZRAM_ATTR_NUM_DEVICES]));
    if (tb[OZRAM_ATTR_DISKSIZE])
        printf("disksize=%" PRIu64 "\n", nla_get_u64(tb[OZRAM_ATTR_DISKSIZE]));
    print_nest(tb[OZRAM_ATTR_STATS], OZRAM_STAT_ATTR_MAX, stat_names);
    if (tb[OZRAM_ATTR_AGENT_STATE])
        printf("agent=%s\n", nla_get_u8(tb[OZRAM_ATTR_AGENT_STATE]) == OZRAM_AGENT_ATTACHED
                                 ? "attached"
                                 : "detached");
    if (tb[OZRAM_ATTR_AGENT_PID])
        printf("agent_pid=%" PRIu32 "\n", nla_get_u32(tb[OZRAM_ATTR_AGENT_PID]));
    print_nest(tb[OZRAM_ATTR_RING], OZRAM_RING_ATTR_MAX, ring_names);
}

static int on_valid(struct nl_msg* msg, void* arg) {
    const struct request* req = arg;
    struct nlattr* tb[OZRAM_ATTR_MAX + 1];
    int err = genlmsg_parse(nlmsg_hdr(msg), 0, tb, OZRAM_ATTR_MAX, NULL);

    if (err < 0) {
        fprintf(stderr, "ozram-genl-dump: cannot parse a reply: %s\n", nl_geterror(err));
        kernel_errno = EPROTO;
        return NL_STOP;
    }
    if (req->cmd == OZRAM_CMD_GET_DEVICES)
        print_device(tb);
    else
        print_stats(tb);
    return NL_OK;
}

/* Drops every privilege: the kernel checks the socket opener's capabilities. */
static int become_nobody(void) {
    if (setgroups(0, NULL) != 0 || setgid(65534) != 0 || setuid(65534) != 0) {
        perror("ozram-genl-dump: cannot switch to uid 65534");
        return -1;
    }
    return 0;
}

static int run(const struct request* req) {
    struct nl_sock* sk = nl_socket_alloc();
    struct nl_msg* msg = NULL;
    int family, err = 0;

    if (!sk) {
        fprintf(stderr, "ozram-genl-dump: out of memory\n");
        return ENOMEM;
    }
    if ((err = genl_connect(sk)) < 0) {
        fprintf(stderr, "ozram-genl-dump: cannot connect: %s\n", nl_geterror(err));
        err = ECONNREFUSED;
        goto out;
    }
    family = genl_ctrl_resolve(sk, OZRAM_GENL_NAME);
    if (family < 0) {
        fprintf(stderr, "ozram-genl-dump: no '%s' netlink family (is the module loaded?)\n",
                OZRAM_GENL_NAME);
        err = ENOENT;
        goto out;
    }

    msg = nlmsg_alloc();
    if (!msg || !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0,
                             (req->dump ? NLM_F_DUMP : 0) | (req->stray_flags ? NLM_F_APPEND : 0),
                             req->cmd, OZRAM_GENL_VERSION)) {
        err = ENOMEM;
        goto out;
    }
    if (req->reserved)
        ((struct genlmsghdr*)nlmsg_data(nlmsg_hdr(msg)))->reserved = 1;
    if (req->dev_id >= 0 && nla_put_u32(msg, OZRAM_ATTR_DEV_ID, (uint32_t)req->dev_id) < 0) {
        err = ENOMEM;
        goto out;
    }
    /* An output-only attribute: a strict policy must refuse it as input. */
    if (req->extra_attr && nla_put_u64(msg, OZRAM_ATTR_DISKSIZE, 1) < 0) {
        err = ENOMEM;
        goto out;
    }

    nl_socket_modify_cb(sk, NL_CB_VALID, NL_CB_CUSTOM, on_valid, (void*)req);
    nl_socket_modify_err_cb(sk, NL_CB_CUSTOM, on_error, NULL);
    if ((err = nl_send_auto(sk, msg)) < 0) {
        fprintf(stderr, "ozram-genl-dump: cannot send: %s\n", nl_geterror(err));
        err = EIO;
        goto out;
    }
    /* A reply (or the dump) first, then the acknowledgement. */
    err = 0;
    if (req->cmd == OZRAM_CMD_GET_DEVICES || req->cmd == OZRAM_CMD_GET_STATS)
        nl_recvmsgs_default(sk);
    if (!kernel_errno && !req->dump)
        nl_wait_for_ack(sk);
    err = kernel_errno;
out:
    nlmsg_free(msg);
    nl_socket_free(sk);
    return err;
}

int main(int argc, char** argv) {
    struct request req = {.dev_id = -1};
    int nobody = 0, argi = 1;

    for (; argi < argc && argv[argi][0] == '-'; argi++) {
        if (!strcmp(argv[argi], "--help") || !strcmp(argv[argi], "-h")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[argi], "--as-nobody")) {
            nobody = 1;
        } else if (!strcmp(argv[argi], "--extra-attr")) {
            req.extra_attr = 1;
        } else if (!strcmp(argv[argi], "--reserved")) {
            req.reserved = 1;
        } else if (!strcmp(argv[argi], "--stray-flags")) {
            req.stray_flags = 1;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (argi >= argc || argc - argi > 2) {
        usage(stderr);
        return 2;
    }

    const char* cmd = argv[argi];
    if (!strcmp(cmd, "devices")) {
        req.cmd = OZRAM_CMD_GET_DEVICES;
        req.dump = 1;
    } else if (!strcmp(cmd, "stats")) {
        req.cmd = OZRAM_CMD_GET_STATS;
    } else if (!strcmp(cmd, "compact")) {
        req.cmd = OZRAM_CMD_COMPACT;
    } else if (!strcmp(cmd, "reset-stats")) {
        req.cmd = OZRAM_CMD_RESET_STATS;
    } else {
        usage(stderr);
        return 2;
    }
    if (argc - argi == 2) {
        char* end;
        long id = strtol(argv[argi + 1], &end, 10);

        if (req.dump || *end || end == argv[argi + 1] || id < 0 || id > INT32_MAX) {
            usage(stderr);
            return 2;
        }
        req.dev_id = (int)id;
    }

    if (nobody && become_nobody() != 0)
        return 1;
    int err = run(&req);
    printf("%s\n", err ? strerrorname_np(err) : "OK");
    return err ? 1 : 0;
}
