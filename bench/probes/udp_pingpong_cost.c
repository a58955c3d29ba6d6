/*
 * What the socket calls of a 2-byte UDP ping-pong cost the kernel, by the options jrdma's native link uses.
 * One thread drives both ends on loopback (a send, then the peer's receive finds the datagram at once), so a
 * round trip is the CPU cost of two sends and two receives with no waiting in it. No JVM: this is the floor a
 * Java program with these calls can reach.
 *
 *   gcc -O2 -o /tmp/udp_pingpong_cost bench/probes/udp_pingpong_cost.c
 *   unshare -n sh -c 'ip link set lo up; /tmp/udp_pingpong_cost CONNECTED GSO RECEIVE PACKETS ROUND_TRIPS'
 *
 * CONNECTED 1: connect both sockets (the kernel keeps the route; a connected socket's IPv4 IDs count from a
 *              random start), 0: name the destination in every sendmsg (jrdma's send sockets).
 * GSO       1: send with a UDP_SEGMENT control message and receive with UDP_GRO (jrdma), 0: neither.
 * RECEIVE   0: read(2) (connected only; what a connected NIO DatagramChannel does), 1: recvmsg(2) with the
 *              sender's address and a control buffer, 2: recvmmsg(2) asking for 8 datagrams (jrdma's batch),
 *              3: recvmmsg(2) asking for 1 (jrdma after an empty receive).
 * PACKETS   1: a 40-byte datagram, 2: a 72-byte run of a 40-byte and a 32-byte packet (an answer and an ACK,
 *              one GSO send when GSO is 1).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif
#define BATCH 8

static int connected, gso, receive_kind, packets;
static char tx[256];
static char rx[BATCH][9000];
static char control[BATCH][64];
static struct sockaddr_in names[BATCH];

static long now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000L + t.tv_nsec;
}

static int open_socket(const char *ip) {
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    struct sockaddr_in a = {0};
    a.sin_family = AF_INET;
    inet_pton(AF_INET, ip, &a.sin_addr);
    if (fd < 0 || bind(fd, (void *) &a, sizeof a) != 0) {
        perror("socket/bind");
        exit(1);
    }
    int v = IP_PMTUDISC_DO;
    setsockopt(fd, IPPROTO_IP, IP_MTU_DISCOVER, &v, sizeof v);
    v = 1;
    if (gso && setsockopt(fd, SOL_UDP, UDP_GRO, &v, sizeof v) != 0) {
        perror("UDP_GRO");
        exit(1);
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
}

static struct sockaddr_in address_of(int fd) {
    struct sockaddr_in a;
    socklen_t l = sizeof a;
    getsockname(fd, (void *) &a, &l);
    return a;
}

static void send_one(int fd, struct sockaddr_in *to) {
    size_t len = packets == 2 ? 72 : 40;
    if (connected && !gso) {
        if (write(fd, tx, len) < 0) {
            perror("write");
        }
        return;
    }
    struct iovec iov = {tx, len};
    struct msghdr m = {0};
    char c[CMSG_SPACE(sizeof(unsigned short))];
    m.msg_iov = &iov;
    m.msg_iovlen = 1;
    if (!connected) {
        m.msg_name = to;
        m.msg_namelen = sizeof *to;
    }
    if (gso) {
        memset(c, 0, sizeof c);
        m.msg_control = c;
        m.msg_controllen = sizeof c;
        struct cmsghdr *h = CMSG_FIRSTHDR(&m);
        h->cmsg_level = SOL_UDP;
        h->cmsg_type = UDP_SEGMENT;
        h->cmsg_len = CMSG_LEN(sizeof(unsigned short));
        *(unsigned short *) CMSG_DATA(h) = 40;
    }
    if (sendmsg(fd, &m, 0) < 0) {
        perror("sendmsg");
    }
}

static int receive_one(int fd) {
    if (receive_kind == 0) {
        return read(fd, rx[0], sizeof rx[0]) > 0;
    }
    if (receive_kind == 1) {
        struct iovec iov = {rx[0], sizeof rx[0]};
        struct msghdr m = {0};
        m.msg_iov = &iov;
        m.msg_iovlen = 1;
        m.msg_name = &names[0];
        m.msg_namelen = sizeof names[0];
        m.msg_control = control[0];
        m.msg_controllen = sizeof control[0];
        return recvmsg(fd, &m, MSG_DONTWAIT) > 0;
    }
    static struct mmsghdr mm[BATCH];
    static struct iovec iov[BATCH];
    int vlen = receive_kind == 3 ? 1 : BATCH;
    for (int i = 0; i < vlen; i++) {
        iov[i].iov_base = rx[i];
        iov[i].iov_len = sizeof rx[i];
        mm[i].msg_hdr.msg_iov = &iov[i];
        mm[i].msg_hdr.msg_iovlen = 1;
        mm[i].msg_hdr.msg_name = &names[i];
        mm[i].msg_hdr.msg_namelen = sizeof names[i];
        mm[i].msg_hdr.msg_control = control[i];
        mm[i].msg_hdr.msg_controllen = sizeof control[i];
        mm[i].msg_hdr.msg_flags = 0;
    }
    return recvmmsg(fd, mm, vlen, MSG_DONTWAIT, NULL) > 0;
}

int main(int argc, char **argv) {
    if (argc != 6) {
        fprintf(stderr, "usage: %s CONNECTED GSO RECEIVE PACKETS ROUND_TRIPS\n", argv[0]);
        return 2;
    }
    connected = atoi(argv[1]);
    gso = atoi(argv[2]);
    receive_kind = atoi(argv[3]);
    packets = atoi(argv[4]);
    long n = atol(argv[5]);
    if (receive_kind == 0 && !connected) {
        fprintf(stderr, "read(2) needs CONNECTED 1\n");
        return 2;
    }
    int a = open_socket("127.0.70.1");
    int b = open_socket("127.0.70.2");
    struct sockaddr_in aa = address_of(a), ba = address_of(b);
    if (connected && (connect(a, (void *) &ba, sizeof ba) != 0 || connect(b, (void *) &aa, sizeof aa) != 0)) {
        perror("connect");
        return 1;
    }
    for (int round = 1; round <= 3; round++) {
        long empty = 0;
        long t0 = now_ns();
        for (long i = 0; i < n; i++) {
            send_one(a, &ba);
            while (!receive_one(b)) {
                empty++;
            }
            send_one(b, &aa);
            while (!receive_one(a)) {
                empty++;
            }
        }
        long t = now_ns() - t0;
        printf("connected=%d gso=%d receive=%d packets=%d round %d: %.0f ns per round trip (%ld empty receives)\n",
               connected, gso, receive_kind, packets, round, (double) t / n, empty);
    }
    return 0;
}
