/*
 * stacks.c - frame/stack interning, folded stacks and the SVG flame graph (see stacks.h).
 *
 * Hash tables are open addressing with linear probing over ids (FNV-1a hashes), grown at 50 %
 * load. The flame graph is computed from the stacks sorted by their frame names: at each
 * depth, consecutive stacks that share the frame at that depth form one box whose width is
 * their summed count, drawn left to right in name order as Brendan Gregg's flame graphs are
 * (the idea, not the code: flamegraph.pl is not used or copied). The SVG needs no script:
 * every box carries a <title> tooltip with its samples and share; colours are a hash of the
 * name in a warm palette, green for Python frames and orange-brown for kernel frames.
 */
#include "capture/cpu/stacks.h"
#include "core/grow.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static uint32_t fnv(const void *p, size_t n, uint32_t h)
{
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++)
        h = (h ^ b[i]) * 16777619u;
    return h;
}

void stackset_init(struct stackset *s)
{
    memset(s, 0, sizeof(*s));
}

void stackset_fini(struct stackset *s)
{
    free(s->pool);
    free(s->frame_off);
    free(s->frame_hash);
    free(s->seq);
    free(s->stacks);
    free(s->stack_hash);
    memset(s, 0, sizeof(*s));
}

const char *stackset_frame_name(const struct stackset *s, uint32_t id)
{
    return id < s->nframes ? s->pool + s->frame_off[id] : "?";
}

/* Frame and stack ids are 32-bit and the hash tables hold id + 1 at load <= 1/2: ids stop
 * below 2^30 (growth fails with -ENOMEM there, as before). */
#define ID_MAX (UINT32_MAX / 4)

static int frame_rehash(struct stackset *s)
{
    uint32_t cap = s->frame_hash_cap ? s->frame_hash_cap * 2 : 1024;
    uint32_t *h = calloc(cap, sizeof(*h));
    if (!h) return -ENOMEM;
    for (uint32_t id = 0; id < s->nframes; id++) {
        const char *name = s->pool + s->frame_off[id];
        uint32_t i = fnv(name, strlen(name), 2166136261u) & (cap - 1);
        while (h[i])
            i = (i + 1) & (cap - 1);
        h[i] = id + 1;
    }
    free(s->frame_hash);
    s->frame_hash = h;
    s->frame_hash_cap = cap;
    return 0;
}

int stackset_frame(struct stackset *s, const char *name, size_t n, uint32_t *id)
{
    char tmp[512];
    if (n >= sizeof(tmp)) n = sizeof(tmp) - 1;
    memcpy(tmp, name, n);
    for (size_t i = 0; i < n; i++)
        if (tmp[i] == ';' || tmp[i] == '\n' || tmp[i] == '\r' || tmp[i] == '\0') tmp[i] = ':';
    tmp[n] = '\0';
    if ((s->nframes + 1) * 2 > s->frame_hash_cap && frame_rehash(s)) return -ENOMEM;
    uint32_t mask = s->frame_hash_cap - 1;
    uint32_t i = fnv(tmp, n, 2166136261u) & mask;
    while (s->frame_hash[i]) {
        uint32_t f = s->frame_hash[i] - 1;
        const char *fn = s->pool + s->frame_off[f];
        if (!strncmp(fn, tmp, n) && fn[n] == '\0') {
            *id = f;
            return 0;
        }
        i = (i + 1) & mask;
    }
    if (s->nframes >= ID_MAX || LAT_GROW(s->pool, s->pool_cap, s->pool_len, n + 1, 64) ||
        LAT_GROW(s->frame_off, s->frames_cap, s->nframes, 1, 64))
        return -ENOMEM;
    memcpy(s->pool + s->pool_len, tmp, n + 1);
    s->frame_off[s->nframes] = (uint32_t)s->pool_len;
    s->pool_len += n + 1;
    s->frame_hash[i] = s->nframes + 1;
    *id = s->nframes++;
    return 0;
}

static uint32_t stack_hash(const uint32_t *f, uint32_t n)
{
    return fnv(f, n * sizeof(*f), 2166136261u ^ n);
}

static int stack_rehash(struct stackset *s)
{
    uint32_t cap = s->stack_hash_cap ? s->stack_hash_cap * 2 : 1024;
    uint32_t *h = calloc(cap, sizeof(*h));
    if (!h) return -ENOMEM;
    for (uint32_t id = 0; id < s->nstacks; id++) {
        uint32_t i = stack_hash(s->seq + s->stacks[id].off, s->stacks[id].len) & (cap - 1);
        while (h[i])
            i = (i + 1) & (cap - 1);
        h[i] = id + 1;
    }
    free(s->stack_hash);
    s->stack_hash = h;
    s->stack_hash_cap = cap;
    return 0;
}

int stackset_intern(struct stackset *s, const uint32_t *frames, uint32_t n, uint32_t *id)
{
    if ((s->nstacks + 1) * 2 > s->stack_hash_cap && stack_rehash(s)) return -ENOMEM;
    uint32_t mask = s->stack_hash_cap - 1;
    uint32_t i = stack_hash(frames, n) & mask;
    while (s->stack_hash[i]) {
        uint32_t st = s->stack_hash[i] - 1;
        if (s->stacks[st].len == n &&
            !memcmp(s->seq + s->stacks[st].off, frames, n * sizeof(*frames))) {
            *id = st;
            return 0;
        }
        i = (i + 1) & mask;
    }
    if (s->seq_len + n > UINT32_MAX || s->nstacks >= ID_MAX ||
        LAT_GROW(s->seq, s->seq_cap, s->seq_len, n, 64) ||
        LAT_GROW(s->stacks, s->stacks_cap, s->nstacks, 1, 64))
        return -ENOMEM;
    memcpy(s->seq + s->seq_len, frames, n * sizeof(*frames));
    s->stacks[s->nstacks] = (struct stack_ent){(uint32_t)s->seq_len, n, 0};
    s->seq_len += n;
    s->stack_hash[i] = s->nstacks + 1;
    *id = s->nstacks++;
    return 0;
}

size_t stackset_join(const struct stackset *s, uint32_t id, char *buf, size_t cap)
{
    uint32_t n;
    const uint32_t *f = stackset_frames(s, id, &n);
    size_t len = 0;
    if (cap) buf[0] = '\0';
    for (uint32_t i = 0; i < n; i++) {
        const char *name = stackset_frame_name(s, f[i]);
        size_t l = strlen(name);
        if (len + l + 2 > cap) break;
        if (i) buf[len++] = ';';
        memcpy(buf + len, name, l);
        len += l;
        buf[len] = '\0';
    }
    return len;
}

/* Sorting stacks by their frame names, for folded output and the flame graph. */
static int cmp_stack_names(const void *a, const void *b, void *ctx)
{
    const struct stackset *sort_set = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    uint32_t nx, ny;
    const uint32_t *fx = stackset_frames(sort_set, x, &nx);
    const uint32_t *fy = stackset_frames(sort_set, y, &ny);
    for (uint32_t i = 0; i < nx && i < ny; i++) {
        if (fx[i] == fy[i]) continue;
        int c = strcmp(stackset_frame_name(sort_set, fx[i]), stackset_frame_name(sort_set, fy[i]));
        if (c) return c;
    }
    return nx < ny ? -1 : (nx > ny);
}

/* Ids of stacks with samples, sorted by names; caller frees. */
static int sorted_ids(const struct stackset *s, uint32_t **out, uint32_t *n)
{
    uint32_t *ids = malloc((s->nstacks + 1) * sizeof(*ids));
    if (!ids) return -ENOMEM;
    uint32_t k = 0;
    for (uint32_t i = 0; i < s->nstacks; i++)
        if (s->stacks[i].count) ids[k++] = i;
    qsort_r(ids, k, sizeof(*ids), cmp_stack_names, (void *)(uintptr_t)s);
    *out = ids;
    *n = k;
    return 0;
}

int stackset_write_folded(const struct stackset *s, FILE *f)
{
    uint32_t *ids, n;
    if (sorted_ids(s, &ids, &n)) return -ENOMEM;
    for (uint32_t k = 0; k < n; k++) {
        uint32_t nf;
        const uint32_t *fr = stackset_frames(s, ids[k], &nf);
        for (uint32_t i = 0; i < nf; i++) {
            if (i) fputc(';', f);
            fputs(stackset_frame_name(s, fr[i]), f);
        }
        if (!nf) fputs("[unknown]", f);
        fprintf(f, " %llu\n", (unsigned long long)s->stacks[ids[k]].count);
    }
    free(ids);
    return ferror(f) ? -EIO : 0;
}

/* SVG ------------------------------------------------------------------------------------- */

#define SVG_W     1200.0
#define SVG_ROW   16
#define SVG_PAD   10.0
#define SVG_TOP   40
#define SVG_CHARW 6.6

static void xml_escape(FILE *f, const char *s, size_t max)
{
    for (size_t i = 0; s[i] && i < max; i++) {
        switch (s[i]) {
        case '<':
            fputs("&lt;", f);
            break;
        case '>':
            fputs("&gt;", f);
            break;
        case '&':
            fputs("&amp;", f);
            break;
        case '"':
            fputs("&quot;", f);
            break;
        case '\'':
            fputs("&apos;", f);
            break;
        default:
            if ((unsigned char)s[i] < 0x20)
                fputc('?', f);
            else
                fputc(s[i], f);
        }
    }
}

static void frame_color(const char *name, int *r, int *g, int *b)
{
    uint32_t h = fnv(name, strlen(name), 2166136261u);
    int v1 = (int)(h & 0xff), v2 = (int)((h >> 8) & 0xff);
    if (!strncmp(name, "py:", 3)) { /* Python: greens */
        *r = 50 + v1 / 4;
        *g = 170 + v2 / 4;
        *b = 50 + v1 / 5;
    } else if (strlen(name) > 4 && !strcmp(name + strlen(name) - 4, "_[k]")) { /* kernel */
        *r = 200 + v1 / 8;
        *g = 120 + v2 / 5;
        *b = 40;
    } else { /* native: the classic warm palette */
        *r = 205 + v1 / 5;
        *g = v2 * 200 / 255;
        *b = 40 + v1 / 6;
    }
}

struct svg_ctx {
    const struct stackset *s;
    const uint32_t *ids;
    uint64_t *cum; /* cumulative counts over ids */
    double scale;
    int height;
    uint64_t total;
    FILE *f;
    int row_off; /* row of depth 0 ("all" is row 0) */
};

static void svg_box(struct svg_ctx *c, double x, double w, int depth, const char *name,
                    uint64_t count)
{
    int r, g, b;
    double y = c->height - SVG_PAD - (depth + 1) * SVG_ROW;
    frame_color(name, &r, &g, &b);
    fprintf(c->f, "<g class=\"f\" data-d=\"%d\"><title>", depth + c->row_off);
    xml_escape(c->f, name, 4096);
    fprintf(c->f, " (%llu samples, %.2f%%)</title>", (unsigned long long)count,
            c->total ? 100.0 * (double)count / (double)c->total : 0.0);
    fprintf(c->f,
            "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%d\" fill=\"rgb(%d,%d,%d)\" "
            "rx=\"2\"/>",
            x, y, w, SVG_ROW - 1, r, g, b);
    /* Every box has its text element (empty when too narrow) so a zoom can fill it in. */
    double fitd = (w - 6) / SVG_CHARW;
    size_t fit = fitd > 0 ? (size_t)fitd : 0;
    fprintf(c->f, "<text x=\"%.1f\" y=\"%.1f\">", x + 3, y + SVG_ROW - 4.5);
    if (fit >= 3) {
        size_t l = strlen(name);
        if (l <= fit) {
            xml_escape(c->f, name, l);
        } else {
            xml_escape(c->f, name, fit - 2);
            fputs("..", c->f);
        }
    }
    fputs("</text></g>\n", c->f);
}

/* Click-to-zoom and search, written for this file (the behaviour flamegraph.pl users know):
 * a click scales the clicked box and everything above it to the full width, hides the rest
 * and dims its ancestors; "Search" takes a regular expression, paints the matching boxes and
 * prints the share of samples they cover (overlapping boxes counted once). */
static const char svg_script[] =
    "<script type=\"text/ecmascript\"><![CDATA[\n"
    "var W=1200,PAD=10,CW=6.6,boxes=[];\n"
    "function init(){var gs=document.getElementsByClassName('f');for(var i=0;i<gs.length;i++){"
    "var g=gs[i],r=g.getElementsByTagName('rect')[0],ti=g.getElementsByTagName('title')[0];"
    "var b={g:g,r:r,t:g.getElementsByTagName('text')[0],x:+r.getAttribute('x'),"
    "w:+r.getAttribute('width'),d:+g.getAttribute('data-d'),fill:r.getAttribute('fill'),"
    "name:ti.textContent.replace(/ \\([0-9]+ samples, [0-9.]+%\\)$/,'')};boxes.push(b);"
    "g.onclick=(function(b){return function(){zoom(b);};})(b);}}\n"
    "function label(b,w){var fit=Math.floor((w-6)/CW);if(fit<3)return '';"
    "return b.name.length<=fit?b.name:b.name.slice(0,fit-2)+'..';}\n"
    "function place(b,x,w){b.r.setAttribute('x',x.toFixed(1));b.r.setAttribute('width',"
    "w.toFixed(1));b.t.setAttribute('x',(x+3).toFixed(1));b.t.textContent=label(b,w);"
    "b.g.style.display='';b.g.style.opacity='';}\n"
    "function zoom(z){var s=(W-2*PAD)/z.w,e=0.01;for(var i=0;i<boxes.length;i++){var b=boxes[i];"
    "if(b.d>=z.d&&b.x>=z.x-e&&b.x+b.w<=z.x+z.w+e)place(b,PAD+(b.x-z.x)*s,b.w*s);"
    "else if(b.d<z.d&&b.x<=z.x+e&&b.x+b.w>=z.x+z.w-e){place(b,PAD,W-2*PAD);b.g.style.opacity="
    "'0.6';}else b.g.style.display='none';}"
    "document.getElementById('unzoom').style.display='';}\n"
    "function unzoom(){for(var i=0;i<boxes.length;i++)place(boxes[i],boxes[i].x,boxes[i].w);"
    "document.getElementById('unzoom').style.display='none';}\n"
    "function search(){var q=prompt('Search (regular expression):','');if(q===null)return;"
    "var m=document.getElementById('matched'),rx=null;"
    "for(var i=0;i<boxes.length;i++)boxes[i].r.setAttribute('fill',boxes[i].fill);"
    "if(q===''){m.textContent='';return;}try{rx=new RegExp(q);}catch(err){alert(err);return;}"
    "var iv=[];for(var i=0;i<boxes.length;i++){var b=boxes[i];if(b.d>0&&rx.test(b.name)){"
    "b.r.setAttribute('fill','rgb(230,0,230)');iv.push([b.x,b.x+b.w]);}}"
    "iv.sort(function(a,b){return a[0]-b[0];});var tot=0,hi=-1;for(var i=0;i<iv.length;i++){"
    "var a=Math.max(iv[i][0],hi);if(iv[i][1]>a){tot+=iv[i][1]-a;hi=iv[i][1];}}"
    "m.textContent='Matched: '+(100*tot/(W-2*PAD)).toFixed(1)+'%';}\n"
    "window.addEventListener('load',init);\n"
    "]]></script>\n";

/* Draws the boxes of stacks ids[lo..hi) at depth and above, starting at x. */
static void svg_level(struct svg_ctx *c, uint32_t lo, uint32_t hi, uint32_t depth, double x)
{
    uint32_t i = lo;
    while (i < hi) {
        uint32_t n;
        const uint32_t *f = stackset_frames(c->s, c->ids[i], &n);
        if (n <= depth) { /* this stack ends below: its samples are self time of the parent */
            x += (double)c->s->stacks[c->ids[i]].count * c->scale;
            i++;
            continue;
        }
        uint32_t frame = f[depth], j = i + 1;
        while (j < hi) {
            uint32_t m;
            const uint32_t *g = stackset_frames(c->s, c->ids[j], &m);
            if (m <= depth || g[depth] != frame) break;
            j++;
        }
        uint64_t count = c->cum[j] - c->cum[i];
        double w = (double)count * c->scale;
        if (w >= 0.1) {
            svg_box(c, x, w, (int)depth, stackset_frame_name(c->s, frame), count);
            svg_level(c, i, j, depth + 1, x);
        }
        x += w;
        i = j;
    }
}

int stackset_write_svg(const struct stackset *s, FILE *f, const char *title)
{
    uint32_t *ids, n, maxd = 0;
    if (sorted_ids(s, &ids, &n)) return -ENOMEM;
    uint64_t *cum = malloc((n + 1) * sizeof(*cum));
    if (!cum) {
        free(ids);
        return -ENOMEM;
    }
    cum[0] = 0;
    for (uint32_t k = 0; k < n; k++) {
        cum[k + 1] = cum[k] + s->stacks[ids[k]].count;
        if (s->stacks[ids[k]].len > maxd) maxd = s->stacks[ids[k]].len;
    }
    struct svg_ctx c = {s, ids, cum, 0, 0, cum[n], f, 0};
    c.height = (int)(SVG_TOP + SVG_PAD * 2 + (maxd + 1) * SVG_ROW);
    c.scale = c.total ? (SVG_W - 2 * SVG_PAD) / (double)c.total : 0;
    fprintf(f,
            "<?xml version=\"1.0\" standalone=\"no\"?>\n"
            "<svg version=\"1.1\" width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\" "
            "xmlns=\"http://www.w3.org/2000/svg\">\n"
            "<style>text{font-family:Verdana,sans-serif;font-size:11px;fill:#000}"
            "rect:hover{stroke:#000;stroke-width:0.5}g.f{cursor:pointer}"
            ".btn{cursor:pointer;fill:#336}</style>\n"
            "%s"
            "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n"
            "<text x=\"%d\" y=\"24\" text-anchor=\"middle\" style=\"font-size:17px\">",
            (int)SVG_W, c.height, (int)SVG_W, c.height, svg_script, (int)(SVG_W / 2));
    xml_escape(f, title ? title : "CPU flame graph", 200);
    fprintf(f,
            "</text>\n<text x=\"%d\" y=\"%d\" style=\"font-size:11px\">%llu samples; width = "
            "share of samples; hover a box for its count, click to zoom</text>\n"
            "<text id=\"unzoom\" class=\"btn\" x=\"%d\" y=\"%d\" style=\"display:none\" "
            "onclick=\"unzoom()\">Reset zoom</text>\n"
            "<text id=\"search\" class=\"btn\" x=\"%d\" y=\"%d\" text-anchor=\"end\" "
            "onclick=\"search()\">Search</text>\n"
            "<text id=\"matched\" x=\"%d\" y=\"%d\" text-anchor=\"end\"></text>\n",
            (int)SVG_PAD, SVG_TOP - 4, (unsigned long long)c.total, (int)(SVG_W / 2), SVG_TOP - 4,
            (int)(SVG_W - SVG_PAD), 24, (int)(SVG_W - SVG_PAD), SVG_TOP - 4);
    if (c.total) {
        svg_box(&c, SVG_PAD, SVG_W - 2 * SVG_PAD, 0, "all", c.total);
        /* Row 0 is "all"; the stacks' own frames start one row higher. */
        struct svg_ctx c2 = c;
        c2.height = c.height - SVG_ROW;
        c2.row_off = 1;
        svg_level(&c2, 0, n, 0, SVG_PAD);
    }
    fputs("</svg>\n", f);
    free(cum);
    free(ids);
    return ferror(f) ? -EIO : 0;
}
