// SPDX-License-Identifier: GPL-2.0
/*
 * fuso-tg: the FUSO benchmark's traffic generator.
 *
 * A request/response generator in the style of the one the paper used
 * (Bai et al., NSDI'16): a client keeps persistent connections to every
 * server, sends requests at Poisson arrival times, and the server answers
 * each request with the number of bytes it asked for.  The flow completion
 * time (FCT) of a request is the time from sending the request to receiving
 * the last byte of the response.
 *
 *   fuso-tg server [-q] [-o FILE] PORT[:tcp|:mptcp] ...
 *   fuso-tg client [options] SERVER_IP:PORT ...
 *
 * Server: -q quiet; -o FILE, on SIGTERM or SIGINT, writes one line per
 * request it answered, "peer,pport,lport,id,rto_s": the client's address
 * and port, the listening port, the request id, and the retransmission
 * timeouts on that connection from the request's arrival to the next
 * request's (or to the end): TCP's tcpi_total_rto, for MPTCP the sum over
 * the subflows plus one when the data-level retransmission ran
 * (mptcpi_bytes_retrans grew).  The client's CSV names the connections
 * (its local ports) whose answers counted, so that each query's timeouts
 * can be attributed to it (scripts/bench/analyze.py).
 *
 * Client options:
 *   -m tcp|mptcp|repflow  transport of the requests (default tcp).  repflow
 *                         sends every request twice, on two TCP connections
 *                         to ports PORT and PORT+1, and keeps the first
 *                         complete answer (RepFlow, Xu & Li, INFOCOM'14);
 *                         with -f, every one of the FANOUT requests
 *   -b IP                 bind the connections to this local address
 *   -c N                  persistent connections per server (default 5),
 *                         used round robin; more are opened when all of
 *                         them are busy
 *   -P PORT               bind the k-th connection to server s (k from 0,
 *                         in the order they are opened) to local port
 *                         PORT + s * STRIDE + k, and RepFlow's second one
 *                         to PORT + 5000 + s * STRIDE + k, where STRIDE
 *                         is 200, or 5000 / servers with more than 25:
 *                         every run and every scheme puts the same
 *                         connection on the same ECMP path (default:
 *                         ephemeral ports; at most STRIDE connections
 *                         per server)
 *   -n N                  requests to complete (default 1000)
 *   -r RATE               mean request rate per second (Poisson arrivals);
 *                         0 sends the next request when one completes
 *   -l MBPS               mean offered load instead of -r: RATE is derived
 *                         from the mean request size
 *   -d FILE               size distribution, "BYTES CDF" lines (default:
 *                         every request is -s bytes)
 *   -s BYTES              fixed request size (default 10000)
 *   -x MIN:MAX            keep only sizes in [MIN, MAX) from the distribution
 *   -f N                  fanout: a request asks N different connections
 *                         (round robin over the servers) at once and
 *                         completes with the last answer (incast)
 *   -w BYTES              warm-up: fetch BYTES on every connection first,
 *                         then wait -W ms so the windows restart (default
 *                         100000 bytes, 100 ms); 0 disables it
 *   -W MS                 idle time after the warm-up
 *   -j N                  MPTCP: before the warm-up, fetch one byte on
 *                         every connection (so that it is fully
 *                         established), then wait (up to 10 s) until every
 *                         connection has N additional subflows; the warm-up
 *                         then runs on all of them
 *   -g PATH               barrier after the warm-up: create PATH.ready, then
 *                         wait until PATH.go exists (lets the caller read
 *                         counters between warm-up and measurement)
 *   -S SEED               random seed (default 1)
 *   -o FILE               per-request CSV (default stdout):
 *                         id,size,start_us,fct_us,fanout,lports,rto_c
 *                         lports: the local ports (';'-separated) of the
 *                         connections whose answers counted (the first of a
 *                         RepFlow pair, every one of a fanout); rto_c: the
 *                         client's own retransmission timeouts on them
 *                         during the query (a lost request)
 *   -t SEC                give up after SEC seconds (default 600)
 *
 * SIGTERM or SIGINT ends a client early: it writes what completed and
 * exits 0 (background traffic, which runs until it is told to stop).
 *
 * The warm-up runs on one connection at a time, so that it does not start
 * with a burst of every connection's window at once.
 *
 * The response payload is a pattern derived from the request id, and the
 * client checks every byte: a corrupted or misplaced byte is an error
 * (exit 3).  The client prints one summary line on stderr.
 *
 * Exit status: 0 ok, 1 usage or setup error, 2 timeout, 3 data corrupted,
 * 4 a connection failed.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stddef.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif
#ifndef SOL_MPTCP
#define SOL_MPTCP 284
#endif
#define MPTCP_INFO_OPT 1
#define MPTCP_TCPINFO_OPT 2
/* struct mptcp_info of Linux 6.12 (include/uapi/linux/mptcp.h): the
 * build host's headers may be older
 */
struct tg_mptcp_info {
	uint8_t mptcpi_subflows;
	uint8_t mptcpi_add_addr_signal;
	uint8_t mptcpi_add_addr_accepted;
	uint8_t mptcpi_subflows_max;
	uint8_t mptcpi_add_addr_signal_max;
	uint8_t mptcpi_add_addr_accepted_max;
	uint32_t mptcpi_flags;
	uint32_t mptcpi_token;
	uint64_t mptcpi_write_seq;
	uint64_t mptcpi_snd_una;
	uint64_t mptcpi_rcv_nxt;
	uint8_t mptcpi_local_addr_used;
	uint8_t mptcpi_local_addr_max;
	uint8_t mptcpi_csum_enabled;
	uint32_t mptcpi_retransmits;
	uint64_t mptcpi_bytes_retrans;
	uint64_t mptcpi_bytes_sent;
	uint64_t mptcpi_bytes_received;
	uint64_t mptcpi_bytes_acked;
	uint8_t mptcpi_subflows_total;
	uint8_t reserved[3];
	uint32_t mptcpi_last_data_sent;
	uint32_t mptcpi_last_data_recv;
	uint32_t mptcpi_last_ack_recv;
};

struct tg_mptcp_subflow_data {
	uint32_t size_subflow_data;
	uint32_t num_subflows;
	uint32_t size_kernel;
	uint32_t size_user;
} __attribute__((aligned(8)));

/* struct tcp_info of Linux 6.12 up to tcpi_total_rto (6.7 and later) */
struct tg_tcp_info {
	uint8_t tcpi_state, tcpi_ca_state, tcpi_retransmits, tcpi_probes;
	uint8_t tcpi_backoff, tcpi_options, tcpi_wscale, tcpi_flags;
	uint32_t tcpi_rto, tcpi_ato, tcpi_snd_mss, tcpi_rcv_mss;
	uint32_t tcpi_unacked, tcpi_sacked, tcpi_lost, tcpi_retrans, tcpi_fackets;
	uint32_t tcpi_last_data_sent, tcpi_last_ack_sent, tcpi_last_data_recv;
	uint32_t tcpi_last_ack_recv;
	uint32_t tcpi_pmtu, tcpi_rcv_ssthresh, tcpi_rtt, tcpi_rttvar;
	uint32_t tcpi_snd_ssthresh, tcpi_snd_cwnd, tcpi_advmss, tcpi_reordering;
	uint32_t tcpi_rcv_rtt, tcpi_rcv_space;
	uint32_t tcpi_total_retrans;
	uint64_t tcpi_pacing_rate, tcpi_max_pacing_rate, tcpi_bytes_acked;
	uint64_t tcpi_bytes_received;
	uint32_t tcpi_segs_out, tcpi_segs_in;
	uint32_t tcpi_notsent_bytes, tcpi_min_rtt, tcpi_data_segs_in;
	uint32_t tcpi_data_segs_out;
	uint64_t tcpi_delivery_rate;
	uint64_t tcpi_busy_time, tcpi_rwnd_limited, tcpi_sndbuf_limited;
	uint32_t tcpi_delivered, tcpi_delivered_ce;
	uint64_t tcpi_bytes_sent, tcpi_bytes_retrans;
	uint32_t tcpi_dsack_dups, tcpi_reord_seen;
	uint32_t tcpi_rcv_ooopack;
	uint32_t tcpi_snd_wnd, tcpi_rcv_wnd;
	uint32_t tcpi_rehash;
	uint16_t tcpi_total_rto, tcpi_total_rto_recoveries;
	uint32_t tcpi_total_rto_time;
};

#define TOTAL_RTO_END (offsetof(struct tg_tcp_info, tcpi_total_rto) + sizeof(uint16_t))

#define MAGIC 0x46555330u	/* "FUS0" */
#define CHUNK 65536
#define MAX_SERVERS 64
#define MAX_CDF 64

struct req_hdr {		/* network byte order */
	uint32_t magic;
	uint32_t id;
	uint32_t size;
	uint32_t pad;
};

/* pattern[i] = i & 0xff; byte k of the answer to request id is
 * (k + id) & 0xff, so pattern + ((k + id) & 0xff) is the expected data.
 */
static unsigned char pattern[CHUNK + 256];

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("fuso-tg: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

static int write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= n;
	}
	return 0;
}

/* Retransmission timeouts of a connection so far: TCP's tcpi_total_rto;
 * for MPTCP the sum over the subflows, and the data-level retransmitted
 * bytes (upstream MPTCP retransmits at the data level from its
 * retransmission timer, and when a subflow closes); TCP_INFO when an
 * MPTCP connection fell back to TCP.
 */
struct rto_snap {
	long rto;
	uint64_t bytes_retrans;
};

static int rto_warned;

static void rto_warn(const char *what)
{
	if (!rto_warned++)
		fprintf(stderr, "fuso-tg: %s: timeouts are not attributed to queries\n", what);
}

static struct rto_snap rto_count(int fd, int mptcp)
{
	struct rto_snap r = { 0 };

	if (mptcp) {
		struct {
			struct tg_mptcp_subflow_data h;
			struct tg_tcp_info ti[16];
		} b;
		struct tg_mptcp_info mi;
		socklen_t l = sizeof(b);
		uint32_t i;

		memset(&b, 0, sizeof(b));
		b.h.size_subflow_data = sizeof(b.h);
		b.h.size_user = sizeof(b.ti[0]);
		if (getsockopt(fd, SOL_MPTCP, MPTCP_TCPINFO_OPT, &b, &l))
			return rto_count(fd, 0);	/* fell back to TCP */
		if (b.h.size_user < TOTAL_RTO_END) {
			rto_warn("the kernel's tcp_info has no tcpi_total_rto");
			return r;
		}
		for (i = 0; i < b.h.num_subflows && i < 16; i++)
			r.rto += b.ti[i].tcpi_total_rto;
		l = sizeof(mi);
		memset(&mi, 0, sizeof(mi));
		if (!getsockopt(fd, SOL_MPTCP, MPTCP_INFO_OPT, &mi, &l) &&
		    l >= offsetof(struct tg_mptcp_info, mptcpi_bytes_sent))
			r.bytes_retrans = mi.mptcpi_bytes_retrans;
		return r;
	}
	{
		struct tg_tcp_info ti;
		socklen_t l = sizeof(ti);

		memset(&ti, 0, sizeof(ti));
		if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &l)) {
			rto_warn("getsockopt(TCP_INFO) failed");
			return r;
		}
		if (l < TOTAL_RTO_END) {
			rto_warn("the kernel's tcp_info has no tcpi_total_rto");
			return r;
		}
		r.rto = ti.tcpi_total_rto;
	}
	return r;
}

/* timeouts between two snapshots of one connection */
static long rto_delta(struct rto_snap a, struct rto_snap b)
{
	long d = b.rto - a.rto;

	if (d < 0)	/* a subflow went away with its count */
		d = 0;
	return d + (b.bytes_retrans > a.bytes_retrans);
}

/* ---------------------------------------------------------------- server */

static int quiet;

/* one line of the server's -o file */
struct srec {
	char peer[INET6_ADDRSTRLEN];
	int pport, lport;
	uint32_t id;
	long rto;
};

/* a connection being served, for the records of its last request */
struct sconn {
	int fd, mptcp, lport, pport, have_req;
	char peer[INET6_ADDRSTRLEN];
	uint32_t id;		/* the request being answered */
	struct rto_snap at;	/* its counters when it arrived */
	struct sconn *next;
};

static pthread_mutex_t srv_lock = PTHREAD_MUTEX_INITIALIZER;
static struct srec *srecs;
static long nsrecs, maxsrecs;
static struct sconn *sconns;
static const char *srv_out;

/* room for element N of the array ARR of *CAP elements of SIZE bytes */
static void *grow(void *arr, long n, long *cap, size_t size)
{
	if (n < *cap)
		return arr;
	*cap = *cap ? 2 * *cap : 4096;
	arr = realloc(arr, *cap * size);
	if (!arr)
		die("out of memory");
	return arr;
}

/* srv_lock held: the request c was answering ends here */
static void srv_record(struct sconn *c, struct rto_snap now)
{
	if (!c->have_req || !srv_out)
		return;
	srecs = grow(srecs, nsrecs, &maxsrecs, sizeof(*srecs));
	memcpy(srecs[nsrecs].peer, c->peer, sizeof(c->peer));
	srecs[nsrecs].pport = c->pport;
	srecs[nsrecs].lport = c->lport;
	srecs[nsrecs].id = c->id;
	srecs[nsrecs].rto = rto_delta(c->at, now);
	nsrecs++;
	c->have_req = 0;
}

static void addr_str(const struct sockaddr_in6 *a, char *buf, int *port)
{
	const uint8_t *b = a->sin6_addr.s6_addr;

	*port = ntohs(a->sin6_port);
	if (a->sin6_family == AF_INET) {
		inet_ntop(AF_INET, &((const struct sockaddr_in *)a)->sin_addr, buf,
			  INET6_ADDRSTRLEN);
		return;
	}
	/* a v4-mapped address prints as plain IPv4 */
	if (!memcmp(b, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12))
		inet_ntop(AF_INET, b + 12, buf, INET6_ADDRSTRLEN);
	else
		inet_ntop(AF_INET6, &a->sin6_addr, buf, INET6_ADDRSTRLEN);
}

static void *serve_conn(void *arg)
{
	struct sconn *c = arg;
	int fd = c->fd;
	struct req_hdr h;

	for (;;) {
		size_t got = 0;
		uint32_t id, size, sent = 0;
		struct rto_snap now;

		while (got < sizeof(h)) {
			ssize_t n = read(fd, (char *)&h + got, sizeof(h) - got);

			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0)
				goto out;
			got += n;
		}
		if (ntohl(h.magic) != MAGIC) {
			if (!quiet)
				fprintf(stderr, "fuso-tg server: bad request header\n");
			goto out;
		}
		id = ntohl(h.id);
		size = ntohl(h.size);
		if (srv_out) {
			now = rto_count(fd, c->mptcp);
			pthread_mutex_lock(&srv_lock);
			srv_record(c, now);
			c->id = id;
			c->at = now;
			c->have_req = 1;
			pthread_mutex_unlock(&srv_lock);
		}
		while (sent < size) {
			uint32_t len = size - sent < CHUNK ? size - sent : CHUNK;

			if (write_all(fd, pattern + ((sent + id) & 0xff), len))
				goto out;
			sent += len;
		}
	}
out:
	pthread_mutex_lock(&srv_lock);
	if (srv_out)
		srv_record(c, rto_count(fd, c->mptcp));
	{
		struct sconn **pp;

		for (pp = &sconns; *pp; pp = &(*pp)->next)
			if (*pp == c) {
				*pp = c->next;
				break;
			}
	}
	pthread_mutex_unlock(&srv_lock);
	close(fd);
	free(c);
	return NULL;
}

struct lsock {
	int fd, mptcp, port;
};

static void *listener(void *arg)
{
	struct lsock *ls = arg;

	for (;;) {
		pthread_t t;
		pthread_attr_t a;
		struct sockaddr_in6 peer;
		socklen_t pl = sizeof(peer);
		int fd = accept(ls->fd, (void *)&peer, &pl), one = 1;
		struct sconn *c;

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			die("accept: %s", strerror(errno));
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		c = calloc(1, sizeof(*c));
		if (!c)
			die("out of memory");
		c->fd = fd;
		c->mptcp = ls->mptcp;
		c->lport = ls->port;
		addr_str(&peer, c->peer, &c->pport);
		pthread_mutex_lock(&srv_lock);
		c->next = sconns;
		sconns = c;
		pthread_mutex_unlock(&srv_lock);
		pthread_attr_init(&a);
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&a, 128 * 1024);
		if (pthread_create(&t, &a, serve_conn, c))
			die("pthread_create failed");
		pthread_attr_destroy(&a);
	}
	return NULL;
}

/* SIGTERM/SIGINT: close the open records and write them */
static void srv_dump(void)
{
	struct sconn *c;
	FILE *f;
	long i;

	pthread_mutex_lock(&srv_lock);
	for (c = sconns; c; c = c->next)
		srv_record(c, rto_count(c->fd, c->mptcp));
	f = fopen(srv_out, "w");
	if (!f)
		die("cannot write '%s': %s", srv_out, strerror(errno));
	fprintf(f, "peer,pport,lport,id,rto_s\n");
	for (i = 0; i < nsrecs; i++)
		fprintf(f, "%s,%d,%d,%u,%ld\n", srecs[i].peer, srecs[i].pport,
			srecs[i].lport, srecs[i].id, srecs[i].rto);
	if (fclose(f))
		die("writing '%s' failed", srv_out);
}

static int server_main(int argc, char **argv)
{
	int i, nl = 0, sig;
	pthread_t t;
	sigset_t ss;

	while (argc > 1 && argv[1][0] == '-') {
		if (!strcmp(argv[1], "-q")) {
			quiet = 1;
		} else if (!strcmp(argv[1], "-o") && argc > 2) {
			srv_out = argv[2];
			argc--;
			argv++;
		} else {
			die("usage: fuso-tg server [-q] [-o FILE] PORT[:tcp|:mptcp] ...");
		}
		argc--;
		argv++;
	}
	if (argc < 2)
		die("usage: fuso-tg server [-q] [-o FILE] PORT[:tcp|:mptcp] ...");
	/* every thread leaves SIGTERM and SIGINT to sigwait() below */
	sigemptyset(&ss);
	sigaddset(&ss, SIGTERM);
	sigaddset(&ss, SIGINT);
	pthread_sigmask(SIG_BLOCK, &ss, NULL);
	signal(SIGPIPE, SIG_IGN);
	for (i = 1; i < argc; i++) {
		char *colon = strchr(argv[i], ':');
		int port = atoi(argv[i]), proto = IPPROTO_TCP, one = 1, fd;
		struct sockaddr_in6 a = { .sin6_family = AF_INET6 };
		struct lsock *ls;

		if (colon && !strcmp(colon + 1, "mptcp"))
			proto = IPPROTO_MPTCP;
		else if (colon && strcmp(colon + 1, "tcp"))
			die("bad listener '%s': want PORT[:tcp|:mptcp]", argv[i]);
		if (port <= 0 || port > 65535)
			die("bad port in '%s'", argv[i]);
		fd = socket(AF_INET6, SOCK_STREAM, proto);
		if (fd < 0)
			die("socket(%s): %s", proto == IPPROTO_MPTCP ? "mptcp" : "tcp",
			    strerror(errno));
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		a.sin6_port = htons(port);
		a.sin6_addr = in6addr_any;
		if (bind(fd, (void *)&a, sizeof(a)) || listen(fd, 1024))
			die("bind/listen on port %d: %s", port, strerror(errno));
		ls = calloc(1, sizeof(*ls));
		if (!ls)
			die("out of memory");
		ls->fd = fd;
		ls->mptcp = proto == IPPROTO_MPTCP;
		ls->port = port;
		if (pthread_create(&t, NULL, listener, ls))
			die("pthread_create failed");
		nl++;
	}
	if (!quiet)
		fprintf(stderr, "fuso-tg server: %d listener(s) up\n", nl);
	if (sigwait(&ss, &sig))
		die("sigwait failed");
	if (srv_out)
		srv_dump();
	_exit(0);
}

/* ---------------------------------------------------------------- client */

struct server {
	struct sockaddr_in addr;
};

struct conn {
	int fd;
	int server;
	int port_off;		/* 0, or 1 for RepFlow's second connection */
	int connecting;
	int busy;
	int lport;		/* local port */
	int fresh;		/* no request sent yet: its counters start at 0 */
	struct flow *flow;	/* request in progress */
	uint32_t id, size, got;
	uint64_t t0;
	struct rto_snap rto0;	/* counters when the request was sent */
	struct conn *next;
};

struct flow {
	uint32_t id, size;
	int pending;		/* answers still needed */
	int refs;		/* connections (or RepFlow pairs) working on it */
	struct flow *parent;	/* RepFlow: the whole query */
	int server;
	uint64_t t0;
	int done;
	long rto_c;		/* the query's: client-side timeouts */
	char *lports;		/* the query's: ports of the answers that counted */
	size_t lplen, lpcap;
};

/* a server's connections in the order they were opened, used round robin */
struct pool {
	struct conn **c;
	int n, cap, next;
};

static struct server servers[MAX_SERVERS];
static int nservers;
static struct conn *conns;	/* all connections */
static struct pool pools[MAX_SERVERS][2];
static int epfd;
static int proto = IPPROTO_TCP, repflow;
static struct sockaddr_in bind_addr;
static int have_bind, base_port;
#define PORTS_PER_SERVER 200
#define PORTS_SECOND 5000	/* RepFlow's second connections */
static uint64_t deadline;
static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
	(void)sig;
	stop = 1;
}

static double cdf_x[MAX_CDF], cdf_p[MAX_CDF];
static int ncdf;
static uint32_t fixed_size = 10000, size_min, size_max = UINT32_MAX;

/* xorshift64*: deterministic for a seed */
static uint64_t rng_state = 1;

static double urand(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return ((rng_state * 2685821657736338717ull) >> 11) * (1.0 / 9007199254740992.0);
}

static void load_cdf(const char *file)
{
	FILE *f = fopen(file, "r");
	char line[256];

	if (!f)
		die("cannot open size distribution '%s': %s", file, strerror(errno));
	while (fgets(line, sizeof(line), f)) {
		double x, p;

		if (line[0] == '#' || sscanf(line, "%lf %lf", &x, &p) != 2)
			continue;
		if (ncdf == MAX_CDF)
			die("%s: more than %d points", file, MAX_CDF);
		if (x <= 0 || p < 0 || p > 1 || (ncdf && (x <= cdf_x[ncdf - 1] ||
							   p < cdf_p[ncdf - 1])))
			die("%s: sizes and CDF values must increase ('%s')", file, line);
		cdf_x[ncdf] = x;
		cdf_p[ncdf++] = p;
	}
	fclose(f);
	if (!ncdf || cdf_p[ncdf - 1] != 1.0)
		die("%s: the last CDF value must be 1", file);
}

/* Inverse CDF with linear interpolation; the first point's mass sits at
 * its size (as in the NSDI'16 generator's CDF files).
 */
static double cdf_sample(double u)
{
	int i;

	if (u <= cdf_p[0])
		return cdf_x[0];
	for (i = 1; i < ncdf; i++)
		if (u <= cdf_p[i])
			return cdf_x[i - 1] + (cdf_x[i] - cdf_x[i - 1]) *
				(u - cdf_p[i - 1]) / (cdf_p[i] - cdf_p[i - 1]);
	return cdf_x[ncdf - 1];
}

/* CDF value at size x (inverse of cdf_sample) */
static double cdf_at(double x)
{
	int i;

	if (x <= cdf_x[0])
		return x < cdf_x[0] ? 0 : cdf_p[0];
	for (i = 1; i < ncdf; i++)
		if (x <= cdf_x[i])
			return cdf_p[i - 1] + (cdf_p[i] - cdf_p[i - 1]) *
				(x - cdf_x[i - 1]) / (cdf_x[i] - cdf_x[i - 1]);
	return 1;
}

static double p_lo, p_hi;	/* the CDF range that -x keeps */

static uint32_t draw_size(void)
{
	double s;

	if (!ncdf)
		return fixed_size;
	s = cdf_sample(p_lo + urand() * (p_hi - p_lo));
	if (s < size_min)
		s = size_min;
	if (s >= size_max)
		s = size_max - 1;
	return s < 1 ? 1 : (uint32_t)s;
}

/* mean size of the kept range, by numeric integration of the inverse CDF */
static double mean_size(void)
{
	double sum = 0;
	int i, n = 100000;

	if (!ncdf)
		return fixed_size;
	for (i = 0; i < n; i++) {
		double s = cdf_sample(p_lo + (i + 0.5) / n * (p_hi - p_lo));

		sum += s < size_min ? size_min : s >= size_max ? size_max - 1 : s;
	}
	return sum / n;
}

static void set_nonblock(int fd)
{
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static struct conn *open_conn(int server, int port_off)
{
	struct conn *c = calloc(1, sizeof(*c));
	struct sockaddr_in a = servers[server].addr;
	struct epoll_event ev = { .events = EPOLLIN | EPOLLOUT };
	int one = 1;

	if (!c)
		die("out of memory");
	struct pool *p = &pools[server][port_off];
	struct sockaddr_in me;
	socklen_t ml = sizeof(me);

	if (!c)
		die("out of memory");
	c->fd = socket(AF_INET, SOCK_STREAM, repflow ? IPPROTO_TCP : proto);
	if (c->fd < 0)
		die("socket: %s", strerror(errno));
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (have_bind || base_port) {
		struct sockaddr_in b = bind_addr;

		b.sin_family = AF_INET;
		if (base_port) {
			int stride = nservers > PORTS_SECOND / PORTS_PER_SERVER ?
				     PORTS_SECOND / nservers : PORTS_PER_SERVER;
			int port = base_port + port_off * PORTS_SECOND +
				   server * stride + p->n;

			if (p->n >= stride || server * stride >= PORTS_SECOND ||
			    port > 65535)
				die("-P %d: no fixed port for connection %d to server %d",
				    base_port, p->n, server);
			b.sin_port = htons(port);
		}
		if (bind(c->fd, (void *)&b, sizeof(b)))
			die("bind to %s:%d: %s", inet_ntoa(b.sin_addr), ntohs(b.sin_port),
			    strerror(errno));
	}
	set_nonblock(c->fd);
	a.sin_port = htons(ntohs(a.sin_port) + port_off);
	if (connect(c->fd, (void *)&a, sizeof(a)) && errno != EINPROGRESS)
		die("connect to %s:%d: %s", inet_ntoa(a.sin_addr), ntohs(a.sin_port),
		    strerror(errno));
	if (getsockname(c->fd, (void *)&me, &ml))
		die("getsockname: %s", strerror(errno));
	c->lport = ntohs(me.sin_port);
	c->connecting = 1;
	c->fresh = 1;
	c->server = server;
	c->port_off = port_off;
	ev.data.ptr = c;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &ev))
		die("epoll_ctl: %s", strerror(errno));
	c->next = conns;
	conns = c;
	if (p->n == p->cap) {
		p->cap = p->cap ? 2 * p->cap : 8;
		p->c = realloc(p->c, p->cap * sizeof(*p->c));
		if (!p->c)
			die("out of memory");
	}
	p->c[p->n++] = c;
	return c;
}

/* the server's next idle connection after the one used last (the paper
 * spreads queries round robin over its persistent connections); a new
 * one when all are busy
 */
static struct conn *idle_conn(int server, int port_off)
{
	struct pool *p = &pools[server][port_off];
	int k;

	for (k = 0; k < p->n; k++) {
		struct conn *c = p->c[(p->next + k) % p->n];

		if (!c->busy) {
			p->next = (p->next + k + 1) % p->n;
			return c;
		}
	}
	return open_conn(server, port_off);
}

static int send_req(struct conn *c)
{
	struct req_hdr h = {
		.magic = htonl(MAGIC), .id = htonl(c->id), .size = htonl(c->size),
	};

	/* a new connection's handshake (SYN timeouts) belongs to the
	 * request that made it open
	 */
	if (c->fresh) {
		memset(&c->rto0, 0, sizeof(c->rto0));
		c->fresh = 0;
	} else {
		c->rto0 = rto_count(c->fd, proto == IPPROTO_MPTCP && !repflow);
	}

	/* 16 bytes into an empty socket buffer: never partial */
	if (write(c->fd, &h, sizeof(h)) != sizeof(h)) {
		fprintf(stderr, "fuso-tg: request on connection to server %d: %s\n",
			c->server, strerror(errno));
		exit(4);
	}
	return 0;
}

/* a non-blocking connect finished: fail loudly, or wait for data only */
static void conn_connected(struct conn *c)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.ptr = c };
	int err = 0;
	socklen_t l = sizeof(err);

	getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &l);
	if (err) {
		fprintf(stderr, "fuso-tg: connect to server %d: %s\n", c->server, strerror(err));
		exit(4);
	}
	c->connecting = 0;
	epoll_ctl(epfd, EPOLL_CTL_MOD, c->fd, &ev);
}

static void start_on(struct conn *c, struct flow *f)
{
	c->busy = 1;
	c->flow = f;
	c->id = f->id;
	c->size = f->size;
	c->got = 0;
	c->t0 = now_us();
	if (!c->connecting)
		send_req(c);
}

/* completed flows, written at the end */
struct rec {
	uint32_t id, size;
	uint64_t start, fct;
	int server, fanout;
	long rto_c;
	char *lports;
};

static struct rec *recs;
static long nrecs, maxrecs;

static void flow_done(struct flow *f, int fanout)
{
	uint64_t t = now_us();

	recs = grow(recs, nrecs, &maxrecs, sizeof(*recs));
	recs[nrecs].id = f->id;
	recs[nrecs].size = f->size;
	recs[nrecs].start = f->t0;
	recs[nrecs].fct = t - f->t0;
	recs[nrecs].server = f->server;
	recs[nrecs].fanout = fanout;
	recs[nrecs].rto_c = f->rto_c;
	recs[nrecs].lports = f->lports;	/* the record owns it now */
	f->lports = NULL;
	nrecs++;
	f->done = 1;
}

/* an answer on c counts for query q: note its port and timeouts */
static void count_answer(struct flow *q, struct conn *c)
{
	char b[16];
	int n = snprintf(b, sizeof(b), "%s%d", q->lplen ? ";" : "", c->lport);

	q->rto_c += rto_delta(c->rto0, rto_count(c->fd, proto == IPPROTO_MPTCP && !repflow));
	if (q->lplen + n + 1 > q->lpcap) {
		q->lpcap = q->lpcap ? 2 * q->lpcap : 32;
		while (q->lpcap < q->lplen + n + 1)
			q->lpcap *= 2;
		q->lports = realloc(q->lports, q->lpcap);
		if (!q->lports)
			die("out of memory");
	}
	memcpy(q->lports + q->lplen, b, n + 1);
	q->lplen += n;
}

static int fanout = 1;
static long active_flows;

/* read what is there on c; return 1 when its answer completed */
static int conn_read(struct conn *c)
{
	static unsigned char buf[CHUNK];

	for (;;) {
		ssize_t n = read(c->fd, buf, sizeof(buf));

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return 0;
		if (n <= 0) {
			fprintf(stderr, "fuso-tg: connection to server %d%s: %s\n", c->server,
				c->port_off ? " (second)" : "",
				n ? strerror(errno) : "closed by the peer");
			exit(4);
		}
		if (!c->busy || c->got + n > c->size) {
			fprintf(stderr, "fuso-tg: %zd unexpected bytes from server %d\n",
				n, c->server);
			exit(3);
		}
		if (memcmp(buf, pattern + ((c->got + c->id) & 0xff), n)) {
			fprintf(stderr, "fuso-tg: corrupted data in the answer to request %u (bytes %u..%u)\n",
				c->id, c->got, c->got + (uint32_t)n);
			exit(3);
		}
		c->got += n;
		if (c->got == c->size)
			return 1;
	}
}

static void flow_put(struct flow *f)
{
	if (--f->refs == 0) {
		if (f->parent)
			flow_put(f->parent);
		free(f->lports);
		free(f);
	}
}

static void answer_done(struct conn *c)
{
	struct flow *f = c->flow;

	c->busy = 0;
	c->flow = NULL;
	if (!f)
		return;
	/* every answer of a fanout counts; of a RepFlow pair, the first */
	if (!f->done)
		count_answer(f->parent ? f->parent : f, c);
	/* a RepFlow pair completes with its first answer, a query with the
	 * last answer of its fanout
	 */
	if (!f->done && (f->parent || --f->pending == 0)) {
		f->done = 1;
		if (!f->parent) {
			flow_done(f, fanout);
			active_flows--;
		} else if (--f->parent->pending == 0) {
			flow_done(f->parent, fanout);
			active_flows--;
		}
	}
	flow_put(f);
}

static uint32_t next_id = 1;

static struct flow *new_flow(uint32_t id, uint32_t size, int server)
{
	struct flow *f = calloc(1, sizeof(*f));

	if (!f)
		die("out of memory");
	f->id = id;
	f->size = size;
	f->server = server;
	f->t0 = now_us();
	return f;
}

static void start_flow(int *rr)
{
	struct flow *f = new_flow(next_id++, draw_size(), *rr % nservers);
	int k;

	active_flows++;
	f->pending = fanout;
	f->refs = fanout;
	for (k = 0; k < fanout; k++) {
		int srv = *rr % nservers;

		*rr += 1;
		if (repflow) {
			/* two copies of the request on ports PORT and PORT+1 */
			struct flow *r = new_flow(f->id, f->size, srv);

			r->parent = f;
			r->pending = 1;
			r->refs = 2;
			start_on(idle_conn(srv, 0), r);
			start_on(idle_conn(srv, 1), r);
			continue;
		}
		start_on(idle_conn(srv, 0), f);
	}
}

/* MPTCP: wait until every connection has n additional subflows */
static void wait_subflows(int n)
{
	uint64_t until = now_us() + 10000000;

	for (;;) {
		struct conn *c;
		int missing = 0;

		for (c = conns; c; c = c->next) {
			struct tg_mptcp_info mi = { 0 };
			socklen_t l = sizeof(mi);

			if (getsockopt(c->fd, SOL_MPTCP, MPTCP_INFO_OPT, &mi, &l) ||
			    mi.mptcpi_subflows < n)
				missing++;
		}
		if (!missing)
			return;
		if (now_us() > until) {
			fprintf(stderr, "fuso-tg: %d connection(s) still lack some of their %d additional subflows after 10 s\n",
				missing, n);
			return;
		}
		usleep(10000);
	}
}

static void wait_barrier(const char *path)
{
	char f[4096];
	struct stat st;
	int fd;

	snprintf(f, sizeof(f), "%s.ready", path);
	fd = open(f, O_WRONLY | O_CREAT, 0644);
	if (fd < 0)
		die("cannot create %s: %s", f, strerror(errno));
	close(fd);
	snprintf(f, sizeof(f), "%s.go", path);
	while (stat(f, &st) && !stop)
		usleep(10000);
}

/* one request of SIZE bytes on every connection, one connection at a
 * time (ids from ID0), so that they do not all start with a burst at once
 */
static void warm_all(uint32_t size, uint32_t id0, const char *what)
{
	struct conn *c, *cur = NULL;
	long pending = 0;

	for (c = conns; c; c = c->next) {
		c->busy = 1;
		c->id = id0 + pending;
		c->size = size;
		c->got = UINT32_MAX;	/* not started */
		pending++;
	}
	while (pending) {
		struct epoll_event evs[64];
		int n, k;

		if (!cur) {
			for (c = conns; c; c = c->next)
				if (c->busy && !c->connecting && c->got == UINT32_MAX)
					break;
			if (c) {
				cur = c;
				c->got = 0;
				send_req(c);
			}
		}
		n = epoll_wait(epfd, evs, 64, 1000);
		if (stop)
			return;	/* writes an empty -o file */
		if (now_us() > deadline) {
			fprintf(stderr, "fuso-tg: timeout in the %s (%ld connection(s) pending)\n",
				what, pending);
			exit(2);
		}
		for (k = 0; k < n; k++) {
			c = evs[k].data.ptr;
			if (!c)
				continue;
			if (c->connecting && (evs[k].events & (EPOLLOUT | EPOLLERR))) {
				conn_connected(c);
				continue;
			}
			if ((evs[k].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && c == cur &&
			    conn_read(c)) {
				c->busy = 0;
				cur = NULL;
				pending--;
			}
		}
	}
}

static void usage(void)
{
	die("usage: fuso-tg client [-m tcp|mptcp|repflow] [-b IP] [-P PORT] [-c N] [-n N] [-r RATE|-l MBPS] [-d FILE] [-s BYTES] [-x MIN:MAX] [-f N] [-w BYTES] [-W MS] [-j N] [-g PATH] [-S SEED] [-o FILE] [-t SEC] SERVER_IP:PORT ...");
}

static void arm(int tfd, uint64_t at_us)
{
	struct itimerspec its = { 0 };

	if (!at_us)
		at_us = 1;	/* 0 would disarm */
	its.it_value.tv_sec = at_us / 1000000;
	its.it_value.tv_nsec = (at_us % 1000000) * 1000;
	timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL);
}

static int client_main(int argc, char **argv)
{
	long nreq = 1000, started = 0, i;
	double rate = -1, load_mbps = -1, mean;
	uint32_t warm = 100000;
	int conns_per = 5, warm_ms = 100, opt, rr = 0, tfd, timeout = 600, join = 0;
	const char *out = NULL, *barrier = NULL;
	uint64_t next_arrival, t_start;
	struct epoll_event ev;
	FILE *of;

	while ((opt = getopt(argc, argv, "m:b:P:c:n:r:l:d:s:x:f:w:W:j:g:S:o:t:")) != -1) {
		switch (opt) {
		case 'm':
			if (!strcmp(optarg, "mptcp"))
				proto = IPPROTO_MPTCP;
			else if (!strcmp(optarg, "repflow"))
				repflow = 1;
			else if (strcmp(optarg, "tcp"))
				die("-m wants tcp, mptcp or repflow, not '%s'", optarg);
			break;
		case 'b':
			bind_addr.sin_family = AF_INET;
			if (inet_pton(AF_INET, optarg, &bind_addr.sin_addr) != 1)
				die("-b wants an IPv4 address, not '%s'", optarg);
			have_bind = 1;
			break;
		case 'P':
			base_port = atoi(optarg);
			if (base_port < 1024 || base_port > 65535)
				die("-P wants a port from 1024 to 65535, not '%s'", optarg);
			break;
		case 'c': conns_per = atoi(optarg); break;
		case 'n': nreq = atol(optarg); break;
		case 'r': rate = atof(optarg); break;
		case 'l': load_mbps = atof(optarg); break;
		case 'd': load_cdf(optarg); break;
		case 's': fixed_size = strtoul(optarg, NULL, 0); break;
		case 'x':
			if (sscanf(optarg, "%u:%u", &size_min, &size_max) != 2 || size_min >= size_max)
				die("-x wants MIN:MAX with MIN < MAX, not '%s'", optarg);
			break;
		case 'f': fanout = atoi(optarg); break;
		case 'w': warm = strtoul(optarg, NULL, 0); break;
		case 'W': warm_ms = atoi(optarg); break;
		case 'j': join = atoi(optarg); break;
		case 'g': barrier = optarg; break;
		case 'S': rng_state = strtoull(optarg, NULL, 0) * 0x9E3779B97F4A7C15ull + 1; break;
		case 'o': out = optarg; break;
		case 't': timeout = atoi(optarg); break;
		default: usage();
		}
	}
	if (optind >= argc)
		usage();
	if (conns_per < 1 || nreq < 1 || fanout < 1 || fixed_size < 1 || timeout < 1)
		die("-c, -n, -f, -s and -t must be positive");
	for (i = optind; i < argc; i++) {
		char ip[64];
		int port;
		struct sockaddr_in *a;

		if (nservers == MAX_SERVERS)
			die("at most %d servers", MAX_SERVERS);
		if (sscanf(argv[i], "%63[^:]:%d", ip, &port) != 2 || port <= 0 || port > 65534)
			die("bad server '%s': want IPv4:PORT", argv[i]);
		a = &servers[nservers++].addr;
		a->sin_family = AF_INET;
		a->sin_port = htons(port);
		if (inet_pton(AF_INET, ip, &a->sin_addr) != 1)
			die("bad server address '%s'", ip);
	}
	p_lo = 0;
	p_hi = 1;
	if (ncdf) {
		p_lo = cdf_at(size_min);
		p_hi = size_max == UINT32_MAX ? 1 : cdf_at(size_max);
		if (size_min > 0 && size_min <= cdf_x[0])
			p_lo = 0;
		if (p_hi <= p_lo)
			die("-x keeps nothing of the distribution");
	}
	mean = mean_size() * fanout;
	if (load_mbps > 0)
		rate = load_mbps * 1e6 / 8 / mean;
	if (rate < 0)
		rate = 0;

	epfd = epoll_create1(0);
	tfd = timerfd_create(CLOCK_MONOTONIC, 0);
	if (epfd < 0 || tfd < 0)
		die("setup failed: %s", strerror(errno));
	ev.events = EPOLLIN;
	ev.data.ptr = NULL;
	epoll_ctl(epfd, EPOLL_CTL_ADD, tfd, &ev);
	signal(SIGPIPE, SIG_IGN);
	{
		struct sigaction sa = { .sa_handler = on_stop };

		/* no SA_RESTART: epoll_wait returns EINTR */
		sigaction(SIGTERM, &sa, NULL);
		sigaction(SIGINT, &sa, NULL);
	}

	t_start = now_us();
	deadline = t_start + (uint64_t)timeout * 1000000;

	/* open the persistent connections */
	for (i = 0; i < nservers; i++) {
		int k;

		for (k = 0; k < conns_per; k++) {
			open_conn(i, 0);
			if (repflow)
				open_conn(i, 1);
		}
	}
	/* MPTCP: a byte on every connection makes it fully established,
	 * and the path manager adds its subflows; the warm-up then runs
	 * on all of them (the paper warms up "to activate all the
	 * sub-flows")
	 */
	if (join && proto == IPPROTO_MPTCP) {
		warm_all(1, 0x90000000u, "subflow activation");
		wait_subflows(join);
	}
	/* warm-up: WARM bytes on every connection (ids from 0x80000000) */
	warm_all(warm ? warm : 1, 0x80000000u, "warm-up");
	if (warm_ms)
		usleep(warm_ms * 1000);
	if (barrier)
		wait_barrier(barrier);

	/* measured requests */
	t_start = now_us();
	next_arrival = t_start;
	arm(tfd, next_arrival);
	while (nrecs < nreq && !stop) {
		struct epoll_event evs[64];
		int n, k;

		n = epoll_wait(epfd, evs, 64, 1000);
		if (stop)
			break;
		if (n < 0 && errno != EINTR)
			die("epoll_wait: %s", strerror(errno));
		if (now_us() > deadline) {
			fprintf(stderr, "fuso-tg: timeout: %ld of %ld requests done, %ld in flight\n",
				nrecs, nreq, active_flows);
			exit(2);
		}
		for (k = 0; k < n; k++) {
			struct conn *c = evs[k].data.ptr;

			if (!c) {
				uint64_t exp;

				if (read(tfd, &exp, sizeof(exp)) < 0 && errno != EAGAIN)
					die("timerfd: %s", strerror(errno));
				if (rate <= 0)
					continue;
				/* start every arrival that is due */
				while (started < nreq && next_arrival <= now_us()) {
					start_flow(&rr);
					started++;
					next_arrival += (uint64_t)(-log(1 - urand()) / rate * 1e6);
				}
				if (started < nreq)
					arm(tfd, next_arrival);
				continue;
			}
			if (c->connecting && (evs[k].events & (EPOLLOUT | EPOLLERR))) {
				conn_connected(c);
				if (c->busy)
					send_req(c);
			}
			if ((evs[k].events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && !c->connecting) {
				if (!c->busy) {
					conn_read(c);	/* reports the unexpected data or close */
					continue;
				}
				if (conn_read(c))
					answer_done(c);
			}
		}
		/* closed loop: one request at a time */
		if (rate <= 0 && started < nreq && active_flows == 0) {
			start_flow(&rr);
			started++;
		}
	}

	of = out ? fopen(out, "w") : stdout;
	if (!of)
		die("cannot write '%s': %s", out, strerror(errno));
	fprintf(of, "id,size,start_us,fct_us,fanout,lports,rto_c\n");
	for (i = 0; i < nrecs; i++)
		fprintf(of, "%u,%u,%llu,%llu,%d,%s,%ld\n", recs[i].id, recs[i].size,
			(unsigned long long)(recs[i].start - t_start),
			(unsigned long long)recs[i].fct, recs[i].fanout,
			recs[i].lports ? recs[i].lports : "", recs[i].rto_c);
	if (of != stdout && fclose(of))
		die("writing '%s' failed", out);
	{
		long conns_n = 0;
		struct conn *c;

		for (c = conns; c; c = c->next)
			conns_n++;
		fprintf(stderr, "fuso-tg client: %ld requests%s, mean size %.0f B, rate %.1f/s, %ld connections, %.3f s, all data verified\n",
			nrecs, stop ? " (stopped)" : "", mean / fanout, rate, conns_n,
			(now_us() - t_start) / 1e6);
	}
	return 0;
}

int main(int argc, char **argv)
{
	int i;

	for (i = 0; i < (int)sizeof(pattern); i++)
		pattern[i] = i & 0xff;
	if (argc >= 2 && !strcmp(argv[1], "server"))
		return server_main(argc - 1, argv + 1);
	if (argc >= 2 && !strcmp(argv[1], "client"))
		return client_main(argc - 1, argv + 1);
	die("usage: fuso-tg server|client ... (see the top of fuso-tg.c)");
	return 1;
}
