/* cm_platform_read.c: a SimGrid platform file read into the model's link
 * classes (cm_platform_net, cm_platform.h), so --net P.xml prices
 * the network smpirun simulates. libxml2 parses the file (no network
 * access, no entity expansion). What fits the model: every host one
 * access link of the same latency l and bandwidth b (split duplex, or a
 * <host_link> whose up and down links are alike), or a `<cluster>` with
 * lat and bw: inter = (2 l, b), intra kept as the caller filled it
 * (cm_net_parse: the presets' 1 us, 10 GB/s); sites (zones of hosts, or
 * <cluster>s, joined by <zoneRoute>s over alike uplinks (lw, bw)) into
 * three levels:
 * inter = (2 l, b) between the hosts of a site, site = (2 l + 2 lw, bw)
 * between sites, sites = the zones of hosts (issue 42; the sites stood in
 * for hosts before). Hosts whose <host_link>s differ (the home platform: an up and a
 * down link of its own per host) are read host by host into cm_net's
 * per-host links (file order; path latency up + backbone + down; a
 * backbone's bandwidth is taken as never limiting); sites or clusters
 * with different links are refused.
 */
#include "cm_platform.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "cm_net.h"
#include "cm_place.h"

typedef struct {
    const char *suffix;
    double scale;
} unit;

/* "<number><unit>" into *v by the table; 0 when not one. */
static int value(const char *s, const unit *u, size_t nu, double *v)
{
    char *end;
    if (!s)
        return 0;
    double x = strtod(s, &end);
    if (end == s || !isfinite(x) || x < 0)
        return 0;
    for (size_t k = 0; k < nu; k++)
        if (strcmp(end, u[k].suffix) == 0) {
            *v = x * u[k].scale;
            return 1;
        }
    return 0;
}

static const unit LAT[] = {{"", 1}, {"s", 1}, {"ms", 1e-3}, {"us", 1e-6},
                           {"ns", 1e-9}};
static const unit BW[] = {{"", 1}, {"Bps", 1}, {"kBps", 1e3}, {"KBps", 1e3},
                          {"MBps", 1e6}, {"GBps", 1e9}, {"TBps", 1e12},
                          {"bps", 0.125}, {"kbps", 125}, {"Kbps", 125},
                          {"Mbps", 125e3}, {"Gbps", 125e6}};

typedef struct {
    double lat, bw;   /* the first link seen of a class */
    size_t n;         /* links seen */
    int differ;       /* a link unlike the first */
} klass;

static void see(klass *k, double lat, double bw)
{
    if (k->n++ == 0) {
        k->lat = lat;
        k->bw = bw;
    } else if (fabs(lat - k->lat) > 1e-12 * (1 + k->lat) ||
               fabs(bw - k->bw) > 1e-9 * k->bw) {
        k->differ = 1;
    }
}

static char *attr(xmlNode *n, const char *name)
{
    return (char *)xmlGetProp(n, (const xmlChar *)name);
}

/* the <link id=ID> of the document, NULL if none */
static xmlNode *find_link(xmlNode *n, const char *id)
{
    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        if (strcmp((const char *)n->name, "link") == 0) {
            char *a = attr(n, "id");
            int hit = a && strcmp(a, id) == 0;
            xmlFree(a);
            if (hit)
                return n;
        }
        xmlNode *r = find_link(n->children, id);
        if (r)
            return r;
    }
    return NULL;
}

/* A link's latency and bandwidth; "ID_UP"/"ID_DOWN" name split-duplex
 * ID's directions. 0 when missing or unreadable. */
static int link_values(xmlNode *root, const char *id, double *lat,
                       double *bw)
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", id);
    xmlNode *l = find_link(root, buf);
    size_t k = strlen(buf);
    if (!l && k > 3 && strcmp(buf + k - 3, "_UP") == 0)
        buf[k - 3] = '\0', l = find_link(root, buf);
    else if (!l && k > 5 && strcmp(buf + k - 5, "_DOWN") == 0)
        buf[k - 5] = '\0', l = find_link(root, buf);
    if (!l)
        return 0;
    char *a = attr(l, "latency"), *b = attr(l, "bandwidth");
    int ok = value(a ? a : "0", LAT, 5, lat) && value(b, BW, 12, bw) &&
             *bw > 0;
    xmlFree(a);
    xmlFree(b);
    return ok;
}

/* one <host_link>: its host and the two directions */
typedef struct {
    char *id;            /* xmlFree */
    double lat_up, up, lat_down, down;
} hlink;

typedef struct {
    xmlNode *root;
    klass host, up;      /* host access links, site uplinks */
    size_t hosts, routes, clusters;
    int bad;             /* an unreadable value */
    char what[128];      /* the first thing that does not fit */
    char **host_id;      /* the <host> ids in file order (xmlFree each) */
    hlink *hl;           /* the <host_link>s in file order */
    size_t nid, nhl, cap_h, cap_l; /* ids kept, links kept, capacities */
    double core_lat;     /* the first <backbone>'s latency */
    size_t *zsize;       /* hosts of each zone that holds hosts, in file
                            order (the sites of a platform of sites) */
    size_t nz, cap_z;
    int oom;
} walk;

/* a zone (or <cluster>) holding k hosts directly, in file order */
static void keep_zone_count(walk *w, size_t k)
{
    if (!k || w->oom)
        return;
    if (w->nz >= w->cap_z) {
        size_t c = w->cap_z ? 2 * w->cap_z : 16;
        size_t *p = realloc(w->zsize, c * sizeof *p);
        if (!p) {
            w->oom = 1;
            return;
        }
        w->zsize = p;
        w->cap_z = c;
    }
    w->zsize[w->nz++] = k;
}

static void keep_zone(walk *w, xmlNode *z)
{
    size_t k = 0;
    for (xmlNode *c = z->children; c; c = c->next)
        k += c->type == XML_ELEMENT_NODE &&
             strcmp((const char *)c->name, "host") == 0;
    keep_zone_count(w, k);
}

static void keep_host(walk *w, xmlNode *n)
{
    if (w->oom)
        return;
    if (w->nid >= w->cap_h) {
        size_t c = w->cap_h ? 2 * w->cap_h : 64;
        char **p = realloc(w->host_id, c * sizeof *p);
        if (!p) {
            w->oom = 1;
            return;
        }
        w->host_id = p;
        w->cap_h = c;
    }
    w->host_id[w->nid++] = attr(n, "id");
}

static void keep_link(walk *w, char *id, double l1, double b1, double l2,
                      double b2)
{
    if (w->oom) {
        xmlFree(id);
        return;
    }
    if (w->nhl >= w->cap_l) {
        size_t c = w->cap_l ? 2 * w->cap_l : 64;
        hlink *p = realloc(w->hl, c * sizeof *p);
        if (!p) {
            w->oom = 1;
            xmlFree(id);
            return;
        }
        w->hl = p;
        w->cap_l = c;
    }
    w->hl[w->nhl++] = (hlink){id, l1, b1, l2, b2};
}

static void visit(walk *w, xmlNode *n)
{
    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        const char *name = (const char *)n->name;
        if (strcmp(name, "zone") == 0 || strcmp(name, "AS") == 0)
            keep_zone(w, n);
        if (strcmp(name, "host") == 0) {
            keep_host(w, n);
            w->hosts++;
        } else if (strcmp(name, "backbone") == 0) {
            char *l = attr(n, "latency");
            double lat;
            if (!value(l ? l : "0", LAT, 5, &lat))
                w->bad = 1;
            else if (w->core_lat == 0)
                w->core_lat = lat;
            xmlFree(l);
        } else if (strcmp(name, "host_link") == 0) {
            char *up = attr(n, "up"), *down = attr(n, "down");
            double l1, b1, l2, b2;
            if (!up || !down || !link_values(w->root, up, &l1, &b1) ||
                !link_values(w->root, down, &l2, &b2)) {
                w->bad = 1;
            } else {
                see(&w->host, l1, b1);
                see(&w->host, l2, b2);
                keep_link(w, attr(n, "id"), l1, b1, l2, b2);
            }
            xmlFree(up);
            xmlFree(down);
        } else if (strcmp(name, "cluster") == 0) {
            w->clusters++;
            char *l = attr(n, "lat"), *b = attr(n, "bw"), *r = attr(n,
                                                                 "radical");
            double lat, bw;
            if (!value(l ? l : "0", LAT, 5, &lat) || !value(b, BW, 12, &bw)) {
                w->bad = 1;
            } else {
                see(&w->host, lat, bw);
                /* radical "a-b" or "a-b,c-d": count its hosts */
                size_t k = 0;
                for (char *p = r; p && *p;) {
                    char *end;
                    long a0 = strtol(p, &end, 10), a1 = a0;
                    if (*end == '-')
                        a1 = strtol(end + 1, &end, 10);
                    k += a1 >= a0 ? (size_t)(a1 - a0 + 1) : 0;
                    p = *end == ',' ? end + 1 : NULL;
                }
                w->hosts += k;
                keep_zone_count(w, k); /* a cluster of sites: one site */
            }
            xmlFree(l);
            xmlFree(b);
            xmlFree(r);
        } else if (strcmp(name, "zoneRoute") == 0 ||
                   strcmp(name, "route") == 0) {
            w->routes++;
            for (xmlNode *c = n->children; c; c = c->next) {
                if (c->type != XML_ELEMENT_NODE ||
                    strcmp((const char *)c->name, "link_ctn") != 0)
                    continue;
                char *id = attr(c, "id");
                double lat, bw;
                if (!id || !link_values(w->root, id, &lat, &bw))
                    w->bad = 1;
                else
                    see(&w->up, lat, bw);
                xmlFree(id);
            }
        }
        visit(w, n->children);
    }
}

/* Per-host links (cm_net.hosts): every <host> has a <host_link> of its
 * id, no sites and no <cluster>; the backbone's latency between them. */
static cm_status per_host(const char *path, const walk *w, cm_net *net)
{
    if (w->routes || w->clusters || w->up.n)
        return cm_error(CM_EFORMAT, "%s: sites or clusters whose hosts have "
                        "different links: the model prices hosts with links "
                        "of their own (e.g. topogen platform --net home) or "
                        "alike links; simulate it with smpirun", path);
    if (w->hosts > CM_NET_MAX_HOSTS)
        return cm_error(CM_EFORMAT, "%s: %zu hosts with links of their own, "
                        "more than the model's %d", path, w->hosts,
                        CM_NET_MAX_HOSTS);
    double amax = 0, bmin = INFINITY;
    for (size_t h = 0; h < w->hosts; h++) {
        const hlink *l = NULL;
        for (size_t k = 0; k < w->nhl && !l; k++)
            if (w->hl[k].id && w->host_id[h] &&
                strcmp(w->hl[k].id, w->host_id[h]) == 0)
                l = &w->hl[k];
        if (!l)
            return cm_error(CM_EFORMAT, "%s: host '%s' has no <host_link> "
                            "(its up and down links)", path,
                            w->host_id[h] ? w->host_id[h] : "?");
        net->lat_up[h] = l->lat_up;
        net->up[h] = l->up;
        net->lat_down[h] = l->lat_down;
        net->down[h] = l->down;
        amax = fmax(amax, fmax(l->lat_up, l->lat_down));
        bmin = fmin(bmin, fmin(l->up, l->down));
    }
    net->hosts = w->hosts;
    net->lat_core = w->core_lat;
    net->alpha[1] = 2 * amax + w->core_lat;
    net->beta[1] = bmin;
    return CM_OK;
}

/* Sites (zones of hosts joined by <zoneRoute>s over alike uplinks): the
 * three levels, intra kept as the caller filled it, inter (2 l, b)
 * between hosts of a site, site (2 l + 2 lw, bw) with sites = the zones
 * of hosts, which must hold the hosts in blocks (cm_net_site_of: the
 * first H mod K sites one host more), as topogen platform writes them. */
static cm_status sites(const char *path, const walk *w, cm_net *net)
{
    size_t K = w->nz;
    if (K < 1)
        return cm_error(CM_EFORMAT, "%s: routes between sites but no zone of "
                        "<host>s or <cluster>", path);
    for (size_t k = 0; k < K; k++)
        if (w->zsize[k] != cm_place_rank_size(w->hosts, K, k))
            return cm_error(CM_EFORMAT, "%s: site %zu holds %zu hosts: the "
                            "model puts the %zu hosts on the %zu sites in "
                            "blocks (%zu in the first), as topogen platform "
                            "--net sites:K writes them", path, k,
                            w->zsize[k], w->hosts, K,
                            cm_place_rank_size(w->hosts, K, 0));
    net->alpha[1] = 2 * w->host.lat;
    net->beta[1] = w->host.bw;
    net->alpha[2] = 2 * w->host.lat + 2 * w->up.lat;
    net->beta[2] = w->up.bw;
    net->sites = K;
    net->site_hosts = w->hosts;
    return CM_OK;
}

cm_status cm_platform_net(const char *path, cm_net *net)
{
    FILE *fp = fopen(path, "r"); /* a missing file: say so, not "XML" */
    if (!fp)
        return cm_error(CM_EIO, "%s: %s", path, strerror(errno));
    fclose(fp);
    xmlDoc *doc = xmlReadFile(path, NULL, XML_PARSE_NONET | XML_PARSE_NOERROR
                              | XML_PARSE_NOWARNING);
    if (!doc)
        return cm_error(CM_EFORMAT, "%s: not a readable XML file", path);
    xmlNode *root = xmlDocGetRootElement(doc);
    cm_status s = CM_OK;
    walk w;
    memset(&w, 0, sizeof w);
    w.root = root;
    if (!root || strcmp((const char *)root->name, "platform") != 0) {
        s = cm_error(CM_EFORMAT, "%s: not a SimGrid platform (no <platform>)",
                     path);
        goto done;
    }
    visit(&w, root->children);
    if (w.oom)
        s = cm_error(CM_ENOMEM, "%s: out of memory", path);
    else if (w.bad)
        s = cm_error(CM_EFORMAT, "%s: a link without a readable latency or "
                     "bandwidth", path);
    else if (w.hosts == 0 || w.host.n == 0)
        s = cm_error(CM_EFORMAT, "%s: no hosts with access links (<cluster> "
                     "or <host_link>)", path);
    else if (w.host.differ || w.up.differ)
        s = per_host(path, &w, net);
    else if (w.up.n > 0) /* sites: three levels */
        s = sites(path, &w, net);
    else {
        net->alpha[1] = 2 * w.host.lat;
        net->beta[1] = w.host.bw;
    }
    if (s != CM_OK)
        goto done;
    const char *base = strrchr(path, '/');
    snprintf(net->name, sizeof net->name, "%.31s", base ? base + 1 : path);
done:
    for (size_t h = 0; h < w.nid; h++)
        xmlFree(w.host_id[h]);
    for (size_t k = 0; k < w.nhl; k++)
        xmlFree(w.hl[k].id);
    free(w.host_id);
    free(w.hl);
    free(w.zsize);
    xmlFreeDoc(doc);
    return s;
}
