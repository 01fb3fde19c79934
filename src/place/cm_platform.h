/* cm_platform: SimGrid platform files (XML, platform version 4.1) made from
 * the network presets users already name (cm_net.h), so one description of
 * a network serves SimGrid's SMPI (smpirun -platform P.xml) and the
 * project's own model; docs/smpi.md.
 *
 * Every host computes at 1 Gflop/s, the speed scripts/experiments/
 * smpi-run.sh gives smpi/host-speed: a simulated host computes as fast as
 * one core of the machine running the simulation. Host names are h0000,
 * h0001, ... (zero-padded: SimGrid lists hosts by name, so rank r runs on
 * host r). Kinds, with the cm_net preset values (one-way latency alpha
 * between two hosts is two access links of alpha/2):
 *   wan         every host its own link to a core that never limits:
 *               25 ms, 12.5 MB/s, split duplex (the wan preset: 50 ms and
 *               12.5 MB/s between hosts, full duplex);
 *   datacenter  the same with 12.5 us and 3 GB/s (the datacenter preset);
 *   sites:K     K sites (hosts in blocks, as mpirun fills a hostfile): the
 *               datacenter links inside a site, and one WAN uplink per site
 *               (25 ms, 12.5 MB/s, split duplex) shared by all the site's
 *               hosts, so two hosts of different sites see 50 ms and share
 *               their sites' uplinks (the model's three levels:
 *               "inter=25us,3GB/s;site=50.025ms,12.5MB/s;sites=K" with the
 *               -n hosts: -n 8 on sites:2 is 2 sites of 4 hosts);
 *   home        home internet: every host an up link and a down link of
 *               its own (each one direction, so SHARED within itself),
 *               up drawn uniformly in 10-50 Mb/s, down in 50-300 Mb/s, and
 *               a one-way access latency drawn in 5-75 ms used on both
 *               (a path between two homes: 10-150 ms), from the seed.
 */
#ifndef CM_PLATFORM_H
#define CM_PLATFORM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cm_net.h"
#include "cm_status.h"

typedef enum {
    CM_PLATFORM_WAN,
    CM_PLATFORM_DATACENTER,
    CM_PLATFORM_SITES,
    CM_PLATFORM_HOME
} cm_platform_kind;

typedef struct {
    cm_platform_kind kind;
    size_t sites;          /* CM_PLATFORM_SITES: K >= 1; 0 otherwise */
} cm_platform_spec;

/* Parses "wan", "datacenter", "sites:K" (K >= 1) or "home" into *spec.
 * CM_EINVAL naming `flag` and the choices otherwise. */
cm_status cm_platform_parse(const char *s, const char *flag,
                            cm_platform_spec *spec);

/* Writes the platform of n hosts (n >= 1; sites: n >= K) to fp; home
 * draws its links from seed (the same seed, the same file). CM_EINVAL on
 * a bad n, CM_EIO when a write fails. O(n) (sites: O(n + K^2) routes). */
cm_status cm_platform_write(FILE *fp, const cm_platform_spec *spec, size_t n,
                            uint64_t seed);

/* The model's two link classes from a SimGrid platform file (--net
 * P.xml; cm_platform_read.c): hosts with alike access links of latency l,
 * bandwidth b: inter (2 l, b), intra left as *net holds it on entry
 * (cm_net_parse fills the presets' first); sites (zones of hosts, in
 * blocks) joined by alike uplinks (lw, bw): inter (2 l, b), site (2 l +
 * 2 lw, bw), sites = K, intra kept (three levels, cm_net.h); hosts with links of
 * their own (the home platform: up and down links that differ from host
 * to host) into net's per-host links (cm_net.hosts, file order, at most
 * CM_NET_MAX_HOSTS). net->name is the file's base name. CM_EFORMAT naming
 * path when it is not a platform, a value is unreadable, a host has no
 * <host_link>, sites or clusters have different links, or sites do not
 * hold the hosts in blocks.
 * O(links x hosts). */
cm_status cm_platform_net(const char *path, cm_net *net);

#endif
