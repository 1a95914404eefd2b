/*
 * models/calibrate/out.c - what dlsim-calibrate writes.
 *
 * The SPEC 7 measurement files (runtime, co-location pairs, utilization)
 * with their required columns first and extra columns after them (SPEC 7
 * allows extra columns; `dlsim fit` ignores them), the suite CSV and the
 * probe JSON.  Numbers are printed with %.6g (the measurements are not
 * more precise than that), FLOPs and parameter counts as integers; an
 * unknown value is an empty field (null in JSON).  Every file goes to
 * DIR/NAME.tmp.PID first and is renamed into place, so a reader never sees
 * half a file.
 */
#include "calib.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

const char *const cal_gemm_prec[4] = { "fp32", "tf32", "fp16", "bf16" };

/* %.6g, or nothing when unknown (v < 0). */
static void opt(FILE *f, double v)
{
    if (v >= 0)
        fprintf(f, "%.6g", v);
}

static void stats_cols(FILE *f, const struct cal_stats *s)
{
    fprintf(f, ",%.6g,%.6g,%.6g,%.6g,%.6g,%d", s->median, s->p25, s->p75,
            s->min, s->max, s->n);
}

void cal_write_runtime(FILE *f, const struct cal_rt_row *r, int n)
{
    fputs("gpu_type,model,batch_size,num_gpus,placement,throughput,util,"
          "median_ms,p25_ms,p75_ms,min_ms,max_ms,repeats,proxy_tflop,"
          "target_tflop,proxy_gb,proxy_mem_gb\n", f);
    for (int i = 0; i < n; i++, r++) {
        fprintf(f, "%s,%s,%d,1,consolidated,%.6g,", r->gpu_type, r->model,
                r->batch, r->throughput);
        opt(f, r->util);
        stats_cols(f, &r->st);
        fprintf(f, ",%.6g,%.6g,%.6g,%.6g\n", r->proxy_tflop, r->target_tflop,
                r->proxy_gb, r->mem_gb);
    }
}

void cal_write_pairs(FILE *f, const struct cal_pair_row *r, int n)
{
    fputs("gpu_type,job_a,job_b,rate_a,rate_b,util_a,util_b,mechanism,"
          "raw_rate_a,raw_rate_b,solo_a,solo_b,pair_a,pair_b,window_s\n", f);
    for (int i = 0; i < n; i++, r++) {
        fprintf(f, "%s,%s,%s,%.6g,%.6g,", r->gpu_type, r->job_a, r->job_b,
                r->rate_a, r->rate_b);
        opt(f, r->util_a);
        fputc(',', f);
        opt(f, r->util_b);
        fprintf(f, ",%s,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", r->mechanism,
                r->raw_a, r->raw_b, r->solo_a, r->solo_b, r->pair_a,
                r->pair_b, r->window_s);
    }
}

void cal_write_util(FILE *f, const struct cal_util_row *r, int n)
{
    fputs("model,batch_size,gpu_type,util,flops,params,conv_layers,"
          "linear_layers,activation_layers,other_layers\n", f);
    for (int i = 0; i < n; i++, r++)
        fprintf(f, "%s,%d,%s,%.6g,%.0f,%.0f,%d,%d,%d,%d\n", r->model,
                r->batch, r->gpu_type, r->util, r->flops, r->params, r->conv,
                r->linear, r->act, r->other);
}

void cal_write_suite(FILE *f, const struct cal_suite_row *r, int n)
{
    fputs("kernel,category,precision,path,shape,flops,bytes,median_ms,"
          "p25_ms,p75_ms,min_ms,max_ms,repeats,tflops,gbs,util\n", f);
    for (int i = 0; i < n; i++, r++) {
        double s = r->st.median * 1e-3;
        fprintf(f, "%s,%s,%s,%s,%s,%.0f,%.0f", r->name, r->category,
                r->precision, r->path, r->shape, r->flops, r->bytes);
        stats_cols(f, &r->st);
        fprintf(f, ",%.6g,%.6g,", s > 0 ? r->flops / s * 1e-12 : 0,
                s > 0 ? r->bytes / s * 1e-9 : 0);
        opt(f, r->util);
        fputc('\n', f);
    }
}

static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void jnum(FILE *f, double v)
{
    if (v >= 0)
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}

void cal_write_probe_json(FILE *f, const struct cal_probe *p)
{
    fputs("{\n  \"device\": ", f);
    jstr(f, p->name);
    fputs(",\n  \"gpu_type\": ", f);
    jstr(f, p->gpu_type);
    fputs(",\n  \"pci_bus_id\": ", f);
    jstr(f, p->pci_bus_id);
    fprintf(f, ",\n  \"compute_capability\": \"%d.%d\",\n  \"sm_count\": %d,\n"
            "  \"memory_gb\": %.6g,\n  \"sm_clock_mhz\": %.6g,\n"
            "  \"memory_clock_mhz\": %.6g,\n  \"memory_bus_bits\": %d,\n"
            "  \"l2_mb\": %.6g,\n  \"driver_version\": %d,\n"
            "  \"runtime_version\": %d,\n  \"nvml\": ", p->cc_major,
            p->cc_minor, p->sm_count, p->mem_gb, p->sm_clock_mhz,
            p->mem_clock_mhz, p->bus_width_bits, p->l2_mb, p->driver_version,
            p->runtime_version);
    jstr(f, p->nvml);
    fputs(",\n  \"cudnn\": ", f);
    jstr(f, p->cudnn);
    fprintf(f, ",\n  \"d2d_copy\": {\"buffer_mb\": %.6g, \"gb_per_s\": ",
            p->d2d_buffer_mb);
    jnum(f, p->d2d_gbs);
    fprintf(f, "},\n  \"gemm\": {\"n\": %d", p->gemm_n);
    for (int i = 0; i < 4; i++) {
        fprintf(f, ", \"%s_tflops\": ", cal_gemm_prec[i]);
        jnum(f, p->gemm_tflops[i]);
    }
    fputs(", \"util\": ", f);
    jnum(f, p->util_gemm);
    fputs("}\n}\n", f);
}

void cal_fn_runtime(FILE *f, const void *r, int n)
{
    cal_write_runtime(f, (const struct cal_rt_row *)r, n);
}

void cal_fn_pairs(FILE *f, const void *r, int n)
{
    cal_write_pairs(f, (const struct cal_pair_row *)r, n);
}

void cal_fn_util(FILE *f, const void *r, int n)
{
    cal_write_util(f, (const struct cal_util_row *)r, n);
}

void cal_fn_suite(FILE *f, const void *r, int n)
{
    cal_write_suite(f, (const struct cal_suite_row *)r, n);
}

void cal_fn_probe(FILE *f, const void *p, int n)
{
    (void)n;
    cal_write_probe_json(f, (const struct cal_probe *)p);
}

int cal_mkdir(const char *dir)
{
    if (mkdir(dir, 0777) == 0 || errno == EEXIST)
        return 0;
    return -1;
}

int cal_write_file(const char *dir, const char *name,
                   void (*fn)(FILE *, const void *, int), const void *rows,
                   int n, char *msg, size_t msglen)
{
    size_t len = strlen(dir) + strlen(name) + 40;
    char *path = (char *)malloc(len), *tmp = (char *)malloc(len);
    if (!path || !tmp)
        abort();
    snprintf(path, len, "%s/%s", dir, name);
    snprintf(tmp, len, "%s.tmp.%ld", path, (long)getpid());
    int rc = -1;
    FILE *f = fopen(tmp, "w");
    if (!f) {
        snprintf(msg, msglen, "%s: %s", tmp, strerror(errno));
        goto out;
    }
    fn(f, rows, n);
    if (ferror(f) | fclose(f)) {
        snprintf(msg, msglen, "%s: write failed: %s", tmp, strerror(errno));
        unlink(tmp);
        goto out;
    }
    if (rename(tmp, path)) {
        snprintf(msg, msglen, "%s: %s", path, strerror(errno));
        unlink(tmp);
        goto out;
    }
    rc = 0;
out:
    free(path);
    free(tmp);
    return rc;
}

/* Case-sensitive word test: needle in s, not followed by a letter or digit
 * (so "A10" does not match "A100"). */
static int has(const char *s, const char *needle)
{
    size_t n = strlen(needle);
    for (const char *p = strstr(s, needle); p; p = strstr(p + 1, needle))
        if (!isalnum((unsigned char)p[n]))
            return 1;
    return 0;
}

void cal_gpu_type_name(const char *dev, double mem_gb, char *out, size_t len)
{
    const char *t = NULL;
    int pcie = strstr(dev, "PCIe") || strstr(dev, "PCIE");
    if (has(dev, "H200"))
        t = "H200";
    else if (has(dev, "H100"))
        t = pcie ? "H100-PCIe" : "H100";
    else if (has(dev, "A100"))
        t = mem_gb > 60 ? "A100-80GB" : "A100";
    else if (has(dev, "A10"))
        t = "A10";
    else if (has(dev, "V100"))
        t = pcie ? "V100-PCIe" : "V100";
    else if (has(dev, "P100"))
        t = strstr(dev, "SXM2") ? "P100-SXM2" : "P100";
    else if (has(dev, "T4"))
        t = "T4";
    else if (has(dev, "K80"))
        t = "K80";
    if (t) {
        snprintf(out, len, "%s", t);
        return;
    }
    const char *s = dev;
    if (!strncmp(s, "NVIDIA ", 7))
        s += 7;
    if (!strncmp(s, "Tesla ", 6))
        s += 6;
    size_t o = 0;
    int dash = 0;
    for (; *s && o + 1 < len; s++) {
        if (isalnum((unsigned char)*s)) {
            if (dash && o)
                out[o++] = '-';
            if (o + 1 < len)
                out[o++] = *s;
            dash = 0;
        } else {
            dash = 1;
        }
    }
    if (!o && len > 7)
        o = (size_t)snprintf(out, len, "unknown");
    out[o < len ? o : len - 1] = 0;
}
