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
 *   fuso-tg server [-q] PORT[:tcp|:mptcp] ...
 *   fuso-tg client [options] SERVER_IP:PORT ...
 *
 * Client options:
 *   -m tcp|mptcp|repflow  transport of the requests (default tcp).  repflow
 *                         sends every request twice, on two TCP connections
 *                         to ports PORT and PORT+1, and keeps the first
 *                         complete answer (RepFlow, Xu & Li, INFOCOM'14);
 *                         with -f, every one of the FANOUT requests
 *   -b IP                 bind the connections to this local address
 *   -c N                  persistent connections per server (default 5);
 *                         more are opened when all of them are busy
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
 *   -j N                  MPTCP: after the warm-up, wait (up to 10 s) until
 *                         every connection has N additional subflows
 *   -g PATH               barrier after the warm-up: create PATH.ready, then
 *                         wait until PATH.go exists (lets the caller read
 *                         counters between warm-up and measurement)
 *   -S SEED               random seed (default 1)
 *   -o FILE               per-request CSV (default stdout)
 *   -t SEC                give up after SEC seconds (default 600)
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
/* the head of struct mptcp_info (include/uapi/linux/mptcp.h) */
struct mptcp_info_head {
	uint8_t mptcpi_subflows;
	uint8_t mptcpi_add_addr_signal;
	uint8_t mptcpi_add_addr_accepted;
	uint8_t mptcpi_subflows_max;
};

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

/* ---------------------------------------------------------------- server */

static int quiet;

static void *serve_conn(void *arg)
{
	int fd = (int)(intptr_t)arg;
	struct req_hdr h;

	for (;;) {
		size_t got = 0;
		uint32_t id, size, sent = 0;

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
		while (sent < size) {
			uint32_t len = size - sent < CHUNK ? size - sent : CHUNK;

			if (write_all(fd, pattern + ((sent + id) & 0xff), len))
				goto out;
			sent += len;
		}
	}
out:
	close(fd);
	return NULL;
}

static void *listener(void *arg)
{
	int lfd = (int)(intptr_t)arg;

	for (;;) {
		pthread_t t;
		pthread_attr_t a;
		int fd = accept(lfd, NULL, NULL), one = 1;

		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			die("accept: %s", strerror(errno));
		}
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		pthread_attr_init(&a);
		pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&a, 128 * 1024);
		if (pthread_create(&t, &a, serve_conn, (void *)(intptr_t)fd))
			die("pthread_create failed");
		pthread_attr_destroy(&a);
	}
	return NULL;
}

static int server_main(int argc, char **argv)
{
	int i, nl = 0;
	pthread_t t;

	if (argc > 1 && !strcmp(argv[1], "-q")) {
		quiet = 1;
		argc--;
		argv++;
	}
	if (argc < 2)
		die("usage: fuso-tg server [-q] PORT[:tcp|:mptcp] ...");
	for (i = 1; i < argc; i++) {
		char *colon = strchr(argv[i], ':');
		int port = atoi(argv[i]), proto = IPPROTO_TCP, one = 1, fd;
		struct sockaddr_in6 a = { .sin6_family = AF_INET6 };

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
		if (pthread_create(&t, NULL, listener, (void *)(intptr_t)fd))
			die("pthread_create failed");
		nl++;
	}
	if (!quiet)
		fprintf(stderr, "fuso-tg server: %d listener(s) up\n", nl);
	pthread_join(t, NULL);
	return 0;
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
	struct flow *flow;	/* request in progress */
	uint32_t id, size, got;
	uint64_t t0;
	struct conn *next;
};

struct flow {
	uint32_t id, size;
	int pending;		/* answers still needed */
	int refs;		/* connections (or RepFlow pairs) working on it */
	struct flow *parent;	/* RepFlow with a fanout: the whole query */
	int server;
	uint64_t t0;
	int done;
};

static struct server servers[MAX_SERVERS];
static int nservers;
static struct conn *conns;	/* all connections */
static int epfd;
static int proto = IPPROTO_TCP, repflow;
static struct sockaddr_in bind_addr;
static int have_bind;
static uint64_t deadline;

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
	c->fd = socket(AF_INET, SOCK_STREAM, repflow ? IPPROTO_TCP : proto);
	if (c->fd < 0)
		die("socket: %s", strerror(errno));
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (have_bind && bind(c->fd, (void *)&bind_addr, sizeof(bind_addr)))
		die("bind to %s: %s", inet_ntoa(bind_addr.sin_addr), strerror(errno));
	set_nonblock(c->fd);
	a.sin_port = htons(ntohs(a.sin_port) + port_off);
	if (connect(c->fd, (void *)&a, sizeof(a)) && errno != EINPROGRESS)
		die("connect to %s:%d: %s", inet_ntoa(a.sin_addr), ntohs(a.sin_port),
		    strerror(errno));
	c->connecting = 1;
	c->server = server;
	c->port_off = port_off;
	ev.data.ptr = c;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, c->fd, &ev))
		die("epoll_ctl: %s", strerror(errno));
	c->next = conns;
	conns = c;
	return c;
}

static struct conn *idle_conn(int server, int port_off, struct conn *not)
{
	struct conn *c;

	for (c = conns; c; c = c->next)
		if (c->server == server && c->port_off == port_off && !c->busy && c != not)
			return c;
	return open_conn(server, port_off);
}

static int send_req(struct conn *c)
{
	struct req_hdr h = {
		.magic = htonl(MAGIC), .id = htonl(c->id), .size = htonl(c->size),
	};

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
};

static struct rec *recs;
static long nrecs, maxrecs;

static void flow_done(struct flow *f, int fanout)
{
	uint64_t t = now_us();

	if (nrecs < maxrecs) {
		recs[nrecs].id = f->id;
		recs[nrecs].size = f->size;
		recs[nrecs].start = f->t0;
		recs[nrecs].fct = t - f->t0;
		recs[nrecs].server = f->server;
		recs[nrecs].fanout = fanout;
		nrecs++;
	}
	f->done = 1;
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
			start_on(idle_conn(srv, 0, NULL), r);
			start_on(idle_conn(srv, 1, NULL), r);
			continue;
		}
		start_on(idle_conn(srv, 0, NULL), f);
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
			struct mptcp_info_head mi = { 0 };
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
	while (stat(f, &st))
		usleep(10000);
}

static void usage(void)
{
	die("usage: fuso-tg client [-m tcp|mptcp|repflow] [-b IP] [-c N] [-n N] [-r RATE|-l MBPS] [-d FILE] [-s BYTES] [-x MIN:MAX] [-f N] [-w BYTES] [-W MS] [-j N] [-g PATH] [-S SEED] [-o FILE] [-t SEC] SERVER_IP:PORT ...");
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

	while ((opt = getopt(argc, argv, "m:b:c:n:r:l:d:s:x:f:w:W:j:g:S:o:t:")) != -1) {
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

	maxrecs = nreq;
	recs = calloc(maxrecs, sizeof(*recs));
	epfd = epoll_create1(0);
	tfd = timerfd_create(CLOCK_MONOTONIC, 0);
	if (!recs || epfd < 0 || tfd < 0)
		die("setup failed: %s", strerror(errno));
	ev.events = EPOLLIN;
	ev.data.ptr = NULL;
	epoll_ctl(epfd, EPOLL_CTL_ADD, tfd, &ev);
	signal(SIGPIPE, SIG_IGN);

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
	/* warm-up: WARM bytes on every connection, one connection at a
	 * time (ids from 0x80000000)
	 */
	{
		struct conn *c, *cur = NULL;
		long pending = 0;

		for (c = conns; c; c = c->next) {
			c->busy = 1;
			c->id = 0x80000000u + pending;
			c->size = warm ? warm : 1;
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
			if (now_us() > deadline) {
				fprintf(stderr, "fuso-tg: timeout in the warm-up (%ld connection(s) pending)\n",
					pending);
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
		if (join && proto == IPPROTO_MPTCP)
			wait_subflows(join);
		if (warm_ms)
			usleep(warm_ms * 1000);
		if (barrier)
			wait_barrier(barrier);
	}

	/* measured requests */
	t_start = now_us();
	next_arrival = t_start;
	arm(tfd, next_arrival);
	while (nrecs < nreq) {
		struct epoll_event evs[64];
		int n, k;

		n = epoll_wait(epfd, evs, 64, 1000);
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
	fprintf(of, "id,size,start_us,fct_us,fanout\n");
	for (i = 0; i < nrecs; i++)
		fprintf(of, "%u,%u,%llu,%llu,%d\n", recs[i].id, recs[i].size,
			(unsigned long long)(recs[i].start - t_start),
			(unsigned long long)recs[i].fct, recs[i].fanout);
	if (of != stdout && fclose(of))
		die("writing '%s' failed", out);
	{
		long conns_n = 0;
		struct conn *c;

		for (c = conns; c; c = c->next)
			conns_n++;
		fprintf(stderr, "fuso-tg client: %ld requests, mean size %.0f B, rate %.1f/s, %ld connections, %.3f s, all data verified\n",
			nrecs, mean / fanout, rate, conns_n, (now_us() - t_start) / 1e6);
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
