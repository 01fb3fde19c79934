/* cm_platform.c: SimGrid platform files from the presets (cm_platform.h).
 *
 * One writer for every kind: each host is written out (`<host>`, its
 * access link or links, `<host_link>`) in a zone of SimGrid's Cluster
 * routing, whose backbone never limits; a site of sites:K is one such
 * zone with a router, and a Full-routed zone above joins the sites by
 * their WAN uplinks. Values come from cm_net_parse, so the file and the
 * model read the same preset.
 */
#include "cm_platform.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cm_net.h"
#include "cm_place.h"
#include "cm_rng.h"

/* Links that never limit: the backbone of a zone. */
#define BACKBONE_BPS 1e15

cm_status cm_platform_parse(const char *s, const char *flag,
                            cm_platform_spec *spec)
{
    memset(spec, 0, sizeof *spec);
    if (strcmp(s, "wan") == 0) {
        spec->kind = CM_PLATFORM_WAN;
        return CM_OK;
    }
    if (strcmp(s, "datacenter") == 0) {
        spec->kind = CM_PLATFORM_DATACENTER;
        return CM_OK;
    }
    if (strcmp(s, "home") == 0) {
        spec->kind = CM_PLATFORM_HOME;
        return CM_OK;
    }
    if (strncmp(s, "sites:", 6) == 0) {
        char *end;
        errno = 0;
        unsigned long long k = strtoull(s + 6, &end, 10);
        if (s[6] >= '0' && s[6] <= '9' && *end == '\0' && errno == 0 &&
            k >= 1 && k <= 1000000) {
            spec->kind = CM_PLATFORM_SITES;
            spec->sites = (size_t)k;
            return CM_OK;
        }
        return cm_error(CM_EINVAL, "%s '%.60s': K of sites:K must be a "
                        "whole number of sites, at least 1", flag, s);
    }
    return cm_error(CM_EINVAL, "%s '%.60s': expected wan, datacenter, "
                    "sites:K or home", flag, s);
}

/* A link: id, bandwidth (B/s), latency (s), sharing policy. */
static void put_link(FILE *fp, const char *ind, const char *id, double bw,
                 double lat, const char *policy)
{
    fprintf(fp, "%s<link id=\"%s\" bandwidth=\"%.0fBps\" latency=\"%.9fs\" "
            "sharing_policy=\"%s\"/>\n", ind, id, bw, lat, policy);
}

/* Hosts first .. first + count - 1 in a Cluster-routed zone `zid`, each
 * with a split-duplex access link of lat, bw (home: separate up and down
 * links drawn from rng); router: the zone's gateway id, or NULL. */
static void zone_hosts(FILE *fp, const char *ind, const char *zid,
                       size_t first, size_t count, double lat, double bw,
                       cm_rng *home, const char *router)
{
    char in2[32], id[64];
    snprintf(in2, sizeof in2, "%s  ", ind);
    fprintf(fp, "%s<zone id=\"%s\" routing=\"Cluster\">\n", ind, zid);
    for (size_t h = first; h < first + count; h++) {
        fprintf(fp, "%s<host id=\"h%04zu\" speed=\"1Gf\"/>\n", in2, h);
        if (home) {
            /* up 10-50 Mb/s, down 50-300 Mb/s, one latency per host */
            double up = (10 + 40 * cm_rng_uniform(home)) * 1e6 / 8;
            double down = (50 + 250 * cm_rng_uniform(home)) * 1e6 / 8;
            double l = (5 + 70 * cm_rng_uniform(home)) * 1e-3;
            snprintf(id, sizeof id, "h%04zu_up", h);
            put_link(fp, in2, id, up, l, "SHARED");
            snprintf(id, sizeof id, "h%04zu_down", h);
            put_link(fp, in2, id, down, l, "SHARED");
            fprintf(fp, "%s<host_link id=\"h%04zu\" up=\"h%04zu_up\" "
                    "down=\"h%04zu_down\"/>\n", in2, h, h, h);
        } else {
            snprintf(id, sizeof id, "h%04zu_link", h);
            put_link(fp, in2, id, bw, lat, "SPLITDUPLEX");
            fprintf(fp, "%s<host_link id=\"h%04zu\" up=\"%s_UP\" "
                    "down=\"%s_DOWN\"/>\n", in2, h, id, id);
        }
    }
    if (router)
        fprintf(fp, "%s<router id=\"%s\"/>\n", in2, router);
    fprintf(fp, "%s<backbone id=\"%s_backbone\" bandwidth=\"%.0fBps\" "
            "latency=\"0s\"/>\n", in2, zid, BACKBONE_BPS);
    fprintf(fp, "%s</zone>\n", ind);
}

cm_status cm_platform_write(FILE *fp, const cm_platform_spec *spec, size_t n,
                            uint64_t seed)
{
    if (n == 0 || n > 9999)
        return cm_error(CM_EINVAL, "-n %zu: a platform has 1 to 9999 hosts",
                        n);
    if (spec->kind == CM_PLATFORM_SITES && spec->sites > n)
        return cm_error(CM_EINVAL, "sites:%zu with -n %zu: at least one host "
                        "per site", spec->sites, n);
    cm_net wan, dc;
    if (cm_net_parse("wan", &wan) != CM_OK ||
        cm_net_parse("datacenter", &dc) != CM_OK)
        return CM_EINVAL; /* message set */
    const double wlat = wan.alpha[1] / 2, wbw = wan.beta[1];
    const double dlat = dc.alpha[1] / 2, dbw = dc.beta[1];
    /* (no "--" inside an XML comment) */
    fputs("<?xml version='1.0'?>\n"
          "<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
          "<platform version=\"4.1\">\n", fp);
    switch (spec->kind) {
    case CM_PLATFORM_WAN:
        fprintf(fp, "  <!-- topogen platform: wan, %zu hosts, every host a "
                "split-duplex link of 25 ms, 12.5 MB/s -->\n", n);
        zone_hosts(fp, "  ", "wan", 0, n, wlat, wbw, NULL, NULL);
        break;
    case CM_PLATFORM_DATACENTER:
        fprintf(fp, "  <!-- topogen platform: datacenter, %zu hosts, every "
                "host a split-duplex link of 12.5 us, 3 GB/s -->\n", n);
        zone_hosts(fp, "  ", "datacenter", 0, n, dlat, dbw, NULL, NULL);
        break;
    case CM_PLATFORM_HOME: {
        cm_rng r;
        cm_rng_seed(&r, seed, 0x686f6d65); /* "home" */
        fprintf(fp, "  <!-- topogen platform: home, %zu hosts, seed %llu: "
                "up 10-50 Mb/s, down 50-300 Mb/s, access latency 5-75 ms "
                "per host -->\n", n, (unsigned long long)seed);
        zone_hosts(fp, "  ", "home", 0, n, 0, 0, &r, NULL);
        break;
    }
    case CM_PLATFORM_SITES: {
        const size_t K = spec->sites;
        char zid[32], rid[32], lid[32];
        fprintf(fp, "  <!-- topogen platform: sites:%zu, %zu hosts: "
                "datacenter links in a site, one split-duplex WAN uplink of "
                "25 ms, 12.5 MB/s per site -->\n", K, n);
        fputs("  <zone id=\"world\" routing=\"Full\">\n", fp);
        for (size_t s = 0, first = 0; s < K; s++) {
            size_t cnt = cm_place_rank_size(n, K, s);
            snprintf(zid, sizeof zid, "site%zu", s);
            snprintf(rid, sizeof rid, "site%zu_router", s);
            zone_hosts(fp, "    ", zid, first, cnt, dlat, dbw, NULL, rid);
            first += cnt;
        }
        for (size_t s = 0; s < K; s++) {
            snprintf(lid, sizeof lid, "site%zu_wan", s);
            put_link(fp, "    ", lid, wbw, wlat, "SPLITDUPLEX");
        }
        for (size_t a = 0; a < K; a++)
            for (size_t b = 0; b < K; b++) {
                if (a == b)
                    continue;
                fprintf(fp, "    <zoneRoute src=\"site%zu\" dst=\"site%zu\" "
                        "gw_src=\"site%zu_router\" gw_dst=\"site%zu_router\" "
                        "symmetrical=\"NO\"><link_ctn id=\"site%zu_wan\" "
                        "direction=\"UP\"/><link_ctn id=\"site%zu_wan\" "
                        "direction=\"DOWN\"/></zoneRoute>\n", a, b, a, b, a,
                        b);
            }
        fputs("  </zone>\n", fp);
        break;
    }
    }
    fputs("</platform>\n", fp);
    return ferror(fp) ? cm_error(CM_EIO, "cannot write the platform: %s",
                                 strerror(errno))
                      : CM_OK;
}
