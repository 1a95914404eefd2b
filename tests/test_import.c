/*
 * tests/test_import.c - `dlsim trace import`: one small input per format,
 * written here, with the expected native output checked exactly (an
 * unsorted row, a failed job, a CPU-only job, a missing time in each);
 * located errors for malformed input (exit 2, nothing written); the
 * filters; and the real traces in ../../shared/data/traces, whose job
 * counts, GPU-hours and spans are checked against the figures of each
 * folder's README or an independent pass over the raw file.
 * Runs the built binary ($DLSIM).
 */
#include "testutil.h"

#include <math.h>
#include <stdarg.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <zlib.h>

#define DATA "../../shared/data/traces/"

/* Runs "$DLSIM trace import args" in the temporary directory, $DATA
 * naming the real traces. */
__attribute__((format(printf, 1, 2)))
static int imp(const char *fmt, ...)
{
    char cwd[1024], pre[1200];
    cr_assert(getcwd(cwd, sizeof cwd));
    snprintf(pre, sizeof pre, "DATA='%s/" DATA "' && '%s' trace import ", cwd,
             tu_bin());
    va_list ap;
    va_start(ap, fmt);
    int rc = tu_vrun(tu_tmp_dir(), pre, fmt, ap);
    va_end(ap);
    return rc;
}

static char file_text[1 << 16];

static const char *slurp(const char *name)
{
    gzFile f = gzopen(tu_tmp_path(name), "rb");
    cr_assert(f, "no %s", name);
    int n = gzread(f, file_text, sizeof file_text - 1);
    cr_assert(n >= 0);
    file_text[n] = 0;
    gzclose(f);
    return file_text;
}

/* Imports IN (written from text) and checks the output exactly. */
static void expect_import(const char *args, const char *in_name,
                          const char *in, const char *want)
{
    tu_tmp_file(in_name, in);
    int rc = imp("%s %s -o out.csv", args, in_name);
    cr_assert_eq(rc, 0, "%s: exit %d: %s", args, rc, tu_out);
    cr_expect_str_eq(slurp("out.csv"), want, "%s\nreport: %s", args, tu_out);
}

static void expect_report(const char *what)
{
    cr_expect(strstr(tu_out, what), "expected '%s' in:\n%s", what, tu_out);
}

TestSuite(import, .fini = tu_tmp_cleanup);

/* ------------------------------------------------------- small inputs */

Test(import, itp_sorts_skips_and_rebases)
{
    expect_import("--format itp", "c1.csv",
                  "job_id,submission_time,duration,num_gpu\n"
                  "a,100,50,2\n"
                  "b,40,10,1\n"            /* unsorted: first after sort */
                  "c,60,0,1\n"             /* zero duration */
                  "d,70,5,0\n"             /* CPU-only */
                  "e,,5,1\n"               /* no submit time */
                  "f,40,7,4\n",            /* same time as b: input order */
                  "job_id,submit_time,num_gpus,duration,vc\n"
                  "b,0,1,10,c1\nf,0,4,7,c1\na,60,2,50,c1\n");
    expect_report("read 6 jobs, kept 3");
    expect_report("skipped 1: no GPUs (CPU-only)");
    expect_report("skipped 1: zero, negative or missing duration");
    expect_report("skipped 1: missing submit time");
    /* GPU-hours: (10 + 28 + 100) / 3600 */
    expect_report("(0.0 GPU-hours, submit span 60 s");
    /* --epoch trace keeps the input's clock */
    cr_assert_eq(imp("--format itp --epoch trace c1.csv -o o2.csv"), 0);
    cr_expect_str_eq(slurp("o2.csv"), "job_id,submit_time,num_gpus,duration,vc\n"
                     "b,40,1,10,c1\nf,40,4,7,c1\na,100,2,50,c1\n");
    /* a window [40, 100) in seconds of the input's clock */
    cr_assert_eq(imp("--format itp --filter start=40,end=100 c1.csv -o w.csv"),
                 0, "%s", tu_out);
    cr_expect_str_eq(slurp("w.csv"), "job_id,submit_time,num_gpus,duration,vc\n"
                     "b,0,1,10,c1\nf,0,4,7,c1\n");
    expect_report("skipped 1: filtered out: submit time outside the window");
    /* a format without VCs: the file name (one ITP cluster) is the VC,
     * written as the job's vc and matched by --filter vc= */
    cr_assert_eq(imp("--format itp --filter vc=c2 c1.csv -o v.csv"), 2);
    expect_report("skipped 6: filtered out: virtual cluster");
    cr_assert_eq(imp("--format itp --filter vc=c1 c1.csv -o v.csv"), 0);
    expect_report("kept 3");
}

Test(import, elasticflow_deadlines)
{
    /* the ITP variant: absolute deadline; one before its submit */
    expect_import("--format elasticflow", "ef.csv",
                  "job_id,submission_time,num_iteration,model_name,deadline,"
                  "batch_size,num_gpu,duration\n"
                  "x,1000,5,resnet50,1500,64,8,400\n"
                  "y,900,5,gpt2,800,128,1,100\n",
                  "job_id,submit_time,num_gpus,duration,model,deadline,vc\n"
                  "y,0,1,100,gpt2,,ef\nx,100,8,400,resnet50,600,ef\n");
    expect_report("note 1: deadline before submit, dropped");
    /* the pkusys variant: submit_time / ddl, best_effort 1 = no deadline */
    expect_import("--format elasticflow", "pku.csv",
                  "job_id,submit_time,iteration,model_name,ddl,batch_size,"
                  "num_gpu,duration,best_effort\n"
                  "0,0,10,resnet50_cifar10,4426,256,1,3930,0\n"
                  "1,2811,10,resnet50_cifar10,9179,256,1,4830,1\n",
                  "job_id,submit_time,num_gpus,duration,model,deadline,vc\n"
                  "0,0,1,3930,resnet50_cifar10,4426,pku\n"
                  "1,2811,1,4830,resnet50_cifar10,,pku\n");
}

Test(import, philly_csv_wall_clock_and_filters)
{
    const char *in =
        "timestamp,duration,num_gpus,gpu_time,cluster\n"
        "2017-10-09 07:01:55,66.0,1,66.0,11cb48\n"
        "2017-10-09 06:13:03,2951.0,1,2951.0,6214e9\n"
        "2017-10-10 00:00:00,10.5,4,42.0,6214e9\n"
        "2017-10-09 06:13:03,5,0,0,6214e9\n";
    /* rows numbered in input order; 06:13:03 -> 0, 07:01:55 = +2932 s */
    expect_import("--format philly", "philly.csv", in,
                  "job_id,submit_time,num_gpus,duration,vc\n"
                  "2,0,1,2951,6214e9\n1,2932,1,66,11cb48\n"
                  "3,64017,4,10.5,6214e9\n");
    cr_assert_eq(imp("--format philly --filter vc=6214e9 philly.csv -o v.csv"),
                 0, "%s", tu_out);
    cr_expect_str_eq(slurp("v.csv"), "job_id,submit_time,num_gpus,duration,"
                     "vc\n2,0,1,2951,6214e9\n3,64017,4,10.5,6214e9\n");
    expect_report("skipped 1: filtered out: virtual cluster");
    /* a window given as dates, on the wall clock: [07:00, 10-10) */
    cr_assert_eq(imp("--format philly --filter start=2017-10-09T07:00:00,"
                     "end=2017-10-10 philly.csv -o w.csv"), 0, "%s", tu_out);
    cr_expect_str_eq(slurp("w.csv"), "job_id,submit_time,num_gpus,duration,"
                     "vc\n1,0,1,66,11cb48\n");
    expect_report("skipped 2: filtered out: submit time outside the window");
    /* several VCs as a list, and --epoch trace = seconds since 1970 */
    cr_assert_eq(imp("--format philly --filter vc=11cb48,6214e9 --epoch trace "
                     "philly.csv -o e.csv"), 0, "%s", tu_out);
    cr_expect(strstr(slurp("e.csv"), "\n2,1507529583,1,2951,6214e9\n"),
              "%s", file_text);
}

Test(import, philly_json_attempts_and_statuses)
{
    const char *in =
        "[\n"
        " {\"status\": \"Pass\", \"vc\": \"ee9e8c\", \"jobid\": \"app_2\",\n"
        "  \"attempts\": [\n"
        "   {\"start_time\": \"2017-10-07 01:12:09\", \"end_time\": "
        "\"2017-10-07 01:13:23\",\n"
        "    \"detail\": [{\"ip\": \"m47\", \"gpus\": [\"gpu0\", \"gpu1\"]}]},\n"
        "   {\"start_time\": \"2017-10-07 01:13:30\", \"end_time\": "
        "\"2017-10-07 02:13:30\",\n"
        "    \"detail\": [{\"ip\": \"m4\", \"gpus\": [\"gpu0\"]},"
        " {\"ip\": \"m5\", \"gpus\": [\"gpu0\", \"gpu1\", \"gpu2\"]}]}],\n"
        "  \"submitted_time\": \"2017-10-07 01:11:39\", \"user\": \"ce2f4c\"},\n"
        " {\"status\": \"Killed\", \"vc\": \"ee9e8c\", \"jobid\": \"app_1\",\n"
        "  \"attempts\": [{\"start_time\": \"2017-10-07 01:00:00\", "
        "\"end_time\": \"2017-10-07 01:00:10\", \"detail\": [{\"ip\": \"m1\","
        " \"gpus\": [\"gpu3\"]}]}],\n"
        "  \"submitted_time\": \"2017-10-07 00:59:59\", \"user\": \"u1\"},\n"
        " {\"status\": \"Pass\", \"vc\": \"b436b2\", \"jobid\": \"app_3\",\n"
        "  \"attempts\": [{\"start_time\": \"2017-10-07 03:00:00\", "
        "\"end_time\": null, \"detail\": []}],\n"
        "  \"submitted_time\": \"2017-10-07 02:00:00\", \"user\": \"u2\"},\n"
        " {\"status\": \"Failed\", \"vc\": \"b436b2\", \"jobid\": \"app_4\","
        " \"attempts\": [], \"submitted_time\": \"2017-10-07 02:00:00\","
        " \"user\": \"u2\"}\n"
        "]\n";
    /* app_2: 74 + 3600 s on the 4 GPUs of its last attempt */
    expect_import("--format philly-json", "log.json", in,
                  "job_id,submit_time,num_gpus,duration,user,vc\n"
                  "app_2,0,4,3674,ce2f4c,ee9e8c\n");
    expect_report("skipped 2: failed, killed or cancelled");
    expect_report("skipped 1: not finished");
    cr_assert_eq(imp("--format philly-json --keep-failed log.json -o k.csv"),
                 0, "%s", tu_out);
    cr_expect_str_eq(slurp("k.csv"), "job_id,submit_time,num_gpus,duration,"
                     "user,vc\napp_1,0,1,10,u1,ee9e8c\n"
                     "app_2,700,4,3674,ce2f4c,ee9e8c\n");
    expect_report("skipped 2: not finished");     /* app_3, app_4 */
    /* a syntax error deep in the file is located on its line */
    tu_tmp_file("bad.json", "[\n {\"status\": \"Pass\",\n  \"vc\": tru}\n]\n");
    cr_expect_eq(imp("--format philly-json bad.json -o b.csv"), 2);
    cr_expect(strstr(tu_out, "bad.json:3:"), "%s", tu_out);
    cr_expect(!tu_tmp_exists("b.csv"));
}

Test(import, pai_joins_tasks)
{
    /* headerless, as published; times in seconds */
    tu_tmp_file("task.csv",
        "j1,worker,2.0,Terminated,100.0,400.0,600.0,29.3,50.0,V100\n"
        "j1,ps,1.0,Terminated,90.0,410.0,600.0,29.3,0.0,\n"
        "j2,tensorflow,1.0,Terminated,60.0,100.0,600.0,29.3,25.0,T4\n"
        "j3,worker,4.0,Terminated,70.0,170.0,600.0,29.3,150.0,P100\n"
        "j4,worker,1.0,Failed,10.0,20.0,600.0,29.3,100.0,P100\n"
        "j5,worker,1.0,Running,30.0,,600.0,29.3,100.0,P100\n"
        "j6,worker,1.0,Terminated,30.0,40.0,600.0,29.3,0.0,\n");
    expect_import("--format pai --tasks task.csv", "job.csv",
                  "j1,i1,u1,Terminated,80.0,420.0\n"
                  "j2,i2,u2,Terminated,50.0,100.0\n"
                  "j3,i3,u1,Terminated,65.0,171.0\n"
                  "j4,i4,u3,Failed,5.0,20.0\n"
                  "j5,i5,u3,Running,25.0,\n"
                  "j6,i6,u3,Terminated,25.0,40.0\n"
                  "j7,i7,u3,Terminated,25.0,40.0\n",
                  "job_id,submit_time,num_gpus,duration,gpu_type,util,mem_gb,"
                  "user\n"
                  "j2,0,1,40,T4,0.25,4,u2\n"
                  "j3,15,6,100,P100,,,u1\n"
                  "j1,30,1,320,V100,,,u1\n");
    expect_report("skipped 1: failed");
    expect_report("skipped 1: not finished");
    expect_report("skipped 1: no GPUs");
    expect_report("skipped 1: no row in the task table");
    expect_report("note 1: fractional GPU request");
    cr_expect_eq(imp("--format pai job.csv -o x.csv"), 2);
    expect_report("needs --tasks");
}

Test(import, openb_fractional_and_types)
{
    const char *in =
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,"
        "creation_time,deletion_time,scheduled_time\n"
        "p0,1000,1024,1,1000,,LS,Running,0,500,10\n"
        "p1,1000,1024,1,460,V100M16,BE,Succeeded,20,120,30\n"
        "p2,1000,1024,2,1000,V100M16|V100M32,Burstable,Succeeded,25,45,25\n"
        "p3,1000,1024,0,0,,BE,Succeeded,26,30,26\n"
        "p4,1000,1024,1,1000,V100M32,LS,Failed,27,37,27\n"
        "p5,1000,1024,1,1000,T4,LS,Pending,28,,\n"
        "p6,1000,1024,8,1000,G2,Guaranteed,Running,5,105,6\n";
    expect_import("--format openb", "pods.csv", in,
                  "job_id,submit_time,num_gpus,duration,gpu_type,util,mem_gb,"
                  "priority\n"
                  "p0,0,1,490,,,,2\n"
                  "p6,5,8,99,G2,,,3\n"
                  "p1,20,1,90,V100,0.46,7.36,0\n"
                  "p2,25,2,20,,,,1\n");
    expect_report("skipped 1: no GPUs");
    expect_report("skipped 1: failed");
    expect_report("skipped 1: not finished");
    expect_report("note 1: several GPU types allowed");
    cr_assert_eq(imp("--format openb --multi-type first --keep-failed "
                     "pods.csv -o f.csv"), 0, "%s", tu_out);
    cr_expect(strstr(slurp("f.csv"), "\np2,25,2,20,V100,,,1\n"
                     "p4,27,1,10,V100-32GB,,,2\n"), "%s", file_text);
}

Test(import, helios_states)
{
    expect_import("--format helios", "cluster_log.csv",
                  "job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,"
                  "start_time,end_time,duration,queue\n"
                  "11,uA,vcJkd,1,1,1,COMPLETED,2020-06-09 18:41:01,"
                  "2020-06-09 18:41:01,2020-06-10 04:55:09,36848,0\n"
                  "12,uB,vchbv,4,16,1,FAILED,2020-06-09 18:41:27,"
                  "2020-06-09 18:41:27,2020-06-09 18:45:36,249,0\n"
                  "13,uC,vcpDC,1,1,1,CANCELLED,2020-06-09 18:41:28,"
                  "2020-06-09 18:41:28,2020-06-17 14:15:21,675233,0\n"
                  "14,uD,vcpDC,0,8,1,COMPLETED,2020-06-09 18:42:00,"
                  "2020-06-09 18:42:00,2020-06-09 18:43:00,60,0\n"
                  "10,uE,vcpDC,8,8,1,COMPLETED,2020-06-09 18:40:00,"
                  "2020-06-09 18:40:10,2020-06-09 18:41:10,60,10\n"
                  "15,uE,vcpDC,8,8,1,RUNNING,2020-06-09 18:50:00,"
                  "2020-06-09 18:50:00,,,0\n"
                  /* an empty duration: end_time - start_time */
                  "16,uF,vcpDC,2,2,1,COMPLETED,2020-06-09 18:51:00,"
                  "2020-06-09 18:52:00,2020-06-09 18:53:30,,60\n",
                  "job_id,submit_time,num_gpus,duration,user,vc\n"
                  "10,0,8,60,uE,vcpDC\n11,61,1,36848,uA,vcJkd\n"
                  "16,660,2,90,uF,vcpDC\n");
    expect_report("skipped 2: failed");
    expect_report("skipped 1: not finished");
    cr_assert_eq(imp("--format helios --keep-failed --filter vc=vcpDC "
                     "cluster_log.csv -o k.csv"), 0, "%s", tu_out);
    cr_expect_str_eq(slurp("k.csv"), "job_id,submit_time,num_gpus,duration,"
                     "user,vc\n10,0,8,60,uE,vcpDC\n13,88,1,675233,uC,vcpDC\n"
                     "16,660,2,90,uF,vcpDC\n");
    /* Lucid-style: numeric times, no duration column */
    expect_import("--format helios", "lucid.csv",
                  "job_id,vc,gpu_num,state,submit_time,start_time,end_time\n"
                  "1,vcA,2,COMPLETED,100,110,170\n",
                  "job_id,submit_time,num_gpus,duration,vc\n1,0,2,60,vcA\n");
}

Test(import, tiresias_and_muri_units)
{
    expect_import("--format tiresias", "60_job.csv",
                  "job_id,num_gpu,submit_time,iterations,model_name,duration,"
                  "interval\n0,1,0,606,vgg19,164,30\n1,8,30,133,vgg11,147,23\n",
                  "job_id,submit_time,num_gpus,duration,model\n"
                  "0,0,1,164,vgg19\n1,30,8,147,vgg11\n");
    expect_import("--format muri", "trace1.csv",
                  "job_id,num_gpu,submit_time,iterations,model_name,batch_size,"
                  "duration,interval,iteration_time,resource_time_0,"
                  "resource_time_1,resource_time_2,priority\n"
                  "0,1,1000,5853661,dqn,128,2868294000,46122000,490,446,8,0,1\n"
                  "1,8,201694500,8787693,dqn,128,1500,201694000,509,435,8,0.5,0\n",
                  "job_id,submit_time,num_gpus,duration,model,priority\n"
                  "0,0,1,2868294,dqn,1\n1,201693.5,8,1.5,dqn,0\n");
}

Test(import, chronus_deadlines_and_unit)
{
    const char *in =
        "job_id,user,num_gpu,submit_time,iterations,model_name,duration,"
        "interval,expect_time_list,expect_value_list,best_effort,job_type\n"
        "0,vc_ed69ec,1,5601,5530,mobilenet_v2,96,5,159-189-229-289,"
        "10-8-5-2,0,soft\n"
        "1,vc_6214e9,1,7505,760,alexnet,106,6,235,10,0,strict\n"
        "2,vc_6214e9,2,918,6832,vgg16,146,10,918,10,1,best\n"
        "3,vc_6214e9,0,900,6832,vgg16,146,10,918,10,0,strict\n";
    /* minutes: 918 -> 0; 5601 -> 280980 s; deadlines relative to submit;
     * the user column holds Philly VCs: written as vc, not as user */
    expect_import("--format chronus", "mix.csv", in,
                  "job_id,submit_time,num_gpus,duration,model,deadline,"
                  "priority,vc\n"
                  "2,0,2,8760,vgg16,,0,vc_6214e9\n"
                  "0,280980,1,5760,mobilenet_v2,290520,1,vc_ed69ec\n"
                  "1,395220,1,6360,alexnet,409320,2,vc_6214e9\n");
    cr_assert_eq(imp("--format chronus --deadline last --time-unit s "
                     "--filter vc=vc_ed69ec mix.csv -o l.csv"), 0, "%s",
                 tu_out);
    cr_expect_str_eq(slurp("l.csv"), "job_id,submit_time,num_gpus,duration,"
                     "model,deadline,priority,vc\n"
                     "0,0,1,96,mobilenet_v2,289,1,vc_ed69ec\n");
}

Test(import, gavel_steps_to_seconds)
{
    tu_tmp_file("tp.json",
        "{\"v100\": {\"('ResNet-50 (batch size 64)', 1)\": {\"null\": 4.0},"
        " \"('ResNet-50 (batch size 64)', 8)\": {\"null\": 20.0},"
        " \"('LM (batch size 20)', 2)\": {\"null\": 100.0}},"
        " \"k80\": {}}\n");
    cr_assert_eq(system(NULL), 1);
    char dir[600];
    snprintf(dir, sizeof dir, "mkdir -p '%s/seed=0'", tu_tmp_dir());
    cr_assert_eq(system(dir), 0);
    tu_tmp_file("seed=0/vcb.trace",
        "ResNet-50 (batch size 64)\tcmd\t-n\t1\t400\t10.5\t1\n"
        "ResNet-50 (batch size 64)\tcmd\t-n\t1\t4000\t0.0\t16\n"
        "LM (batch size 20)\tcmd\t-n\t1\t4000\t3.0\t1\n");
    tu_tmp_file("seed=0/vca.trace",
        "LM (batch size 20)\tcmd\t-n\t1\t5000\t2.0\t2\n");
    /* 400/4 = 100 s; 16 GPUs from the 8-GPU gang: 4000 / (20 * 2) = 100 s;
     * LM on 1 GPU was never measured: skipped */
    cr_assert_eq(imp("--format gavel --throughputs tp.json seed=0 -o g.csv"),
                 0, "%s", tu_out);
    cr_expect_str_eq(slurp("g.csv"), "job_id,submit_time,num_gpus,duration,"
                     "model,vc\n"
                     "vcb-2,0,16,100,resnet50@64,vcb\n"
                     "vca-1,2,2,50,lstm@20,vca\n"
                     "vcb-1,10.5,1,100,resnet50@64,vcb\n");
    expect_report("skipped 1: no throughput");
    expect_report("note 1: throughput scaled");
    cr_expect_eq(imp("--format gavel seed=0 -o g2.csv"), 2);
    expect_report("needs --throughputs");
}

/* ------------------------------------------------------------- errors */

/* An import that must fail: args, the input's text, a part of the
 * message. */
struct bad_case {
    const char *args, *text, *expect;
};

/* Each case exits 2 with its message and leaves no output. */
static void expect_errors(const struct bad_case *cases, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        tu_tmp_file("in.csv", cases[i].text);
        int rc = imp("%s in.csv -o o.csv", cases[i].args);
        cr_expect_eq(rc, 2, "exit %d for %s: %s", rc, cases[i].expect,
                     tu_out);
        cr_expect(strstr(tu_out, cases[i].expect), "expected '%s' in: %s",
                  cases[i].expect, tu_out);
        cr_expect(!tu_tmp_exists("o.csv"), "output left behind for %s",
                  cases[i].expect);
    }
}

Test(import, malformed_input_is_located)
{
    static const struct bad_case cases[] = {
        { "--format itp", "job_id,submission_time,duration,num_gpu\n"
          "a,1,2,3\nb,x,2,3\n", "in.csv:3: column submit time: not a time 'x'" },
        { "--format itp", "job_id,submission_time,duration,num_gpu\n"
          "a,1,2,3\nb,1,2\n", "in.csv:3: row has 3 fields, expected 4" },
        { "--format itp", "job_id,submission_time,duration,num_gpu\n"
          "a,1,2,1.5\n", "in.csv:2: column num_gpu: not a GPU count '1.5'" },
        { "--format itp", "job_id,submit,duration,num_gpu\na,1,2,1\n",
          "in.csv:1: missing column 'submission_time'" },
        { "--format philly", "timestamp,duration,num_gpus,gpu_time,cluster\n"
          "2017-13-01 00:00:00,1,1,1,a\n", "in.csv:2: column submit time" },
        { "--format chronus", "job_id,user,num_gpu,submit_time,iterations,"
          "model_name,duration,interval,expect_time_list,expect_value_list,"
          "best_effort,job_type\n1,u,1,5,1,m,5,1,x-y,1,0,soft\n",
          "in.csv:2: column expect_time_list" },
        { "--format openb", "name,num_gpu,gpu_milli\np,1,1000\n",
          "in.csv:1: missing column 'pod_phase'" },
        { "--format nosuch", "x\n", "unknown format 'nosuch'" },
        { "--format itp --filter vc", "x\n", "bad --filter" },
        { "--format itp --epoch later", "x\n", "bad --epoch" },
        { "--format itp", "", "in.csv:1: empty file" },
    };
    expect_errors(cases, sizeof cases / sizeof *cases);
    /* nothing left after the filters: an error, nothing written */
    tu_tmp_file("in.csv", "job_id,submission_time,duration,num_gpu\na,1,2,0\n");
    cr_expect_eq(imp("--format itp in.csv -o o.csv"), 2);
    expect_report("no jobs left to write");
    cr_expect(!tu_tmp_exists("o.csv"));
    cr_expect_eq(imp("--format itp missing.csv -o o.csv"), 1);
}

Test(import, help_lists_every_format)
{
    cr_assert_eq(imp("--help"), 0);
    const char *names[] = { "itp", "elasticflow", "philly", "philly-json",
                            "pai", "openb", "helios", "tiresias", "gavel",
                            "chronus", "muri" };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        char k[40];
        snprintf(k, sizeof k, "\n  %s ", names[i]);
        cr_expect(strstr(tu_out, k), "--help lacks %s", names[i]);
    }
    cr_expect(strstr(tu_out, "--keep-failed"));
}

/* ------------------------------------------------------- real traces */

struct tsum {
    uint32_t jobs;
    double gpu_h;               /* sum of num_gpus x duration, hours */
    double span_s;              /* last submit - first submit */
    uint32_t users;             /* distinct user values */
    uint32_t vcs;               /* distinct vc values */
    uint32_t with_vc;           /* jobs with a vc */
    uint32_t deadlines;
};

/* Counts a distinct interned name (NULL: none) into seen[0..*n). */
static void count_name(const char *u, const char **seen, uint32_t *n)
{
    bool found = !u;
    for (uint32_t k = 0; k < *n && !found; k++)
        found = seen[k] == u;           /* interned by the reader */
    if (!found && *n < 64)
        seen[(*n)++] = u;
}

static struct tsum summarize(const char *name)
{
    struct trace t;
    struct dl_error err;
    int r = trc_load(tu_tmp_path(name), &t, &err, NULL);
    cr_assert_eq(r, 0, "%s: %s", name, err.msg);
    struct tsum s = { t.njobs, 0, 0, 0, 0, 0, 0 };
    const char *seen[64], *seen_vc[64];
    for (uint32_t i = 0; i < t.njobs; i++) {
        s.gpu_h += t.jobs[i].num_gpus * (double)t.jobs[i].duration / 3.6e9;
        s.deadlines += t.jobs[i].deadline != SIM_NEVER;
        s.with_vc += t.jobs[i].vc != NULL;
        count_name(t.jobs[i].user, seen, &s.users);
        count_name(t.jobs[i].vc, seen_vc, &s.vcs);
    }
    s.span_s = (double)(t.jobs[t.njobs - 1].submit - t.jobs[0].submit) / 1e6;
    trc_free(&t);
    return s;
}

/* Independent pass over a raw CSV (gzip): rows, and the sum of column a
 * times column b (b < 0: column a alone) over rows where column z (z >= 0)
 * is not "0". */
static void raw_sums(const char *file, int a, int b, int z, uint32_t *rows,
                     double *sum)
{
    char full[1024], cwd[512];
    cr_assert(getcwd(cwd, sizeof cwd));
    snprintf(full, sizeof full, "%s/" DATA "%s", cwd, file);
    gzFile f = gzopen(full, "rb");
    cr_assert(f, "%s missing", full);
    char line[4096];
    *rows = 0;
    *sum = 0;
    bool header = true;
    while (gzgets(f, line, sizeof line)) {
        if (header || line[0] == '\n') {
            header = false;
            continue;
        }
        char *col[32];
        int n = 0;
        for (char *p = line; n < 32;) {
            col[n++] = p;
            p = strchr(p, ',');
            if (!p)
                break;
            *p++ = 0;
        }
        cr_assert(a < n && b < n && z < n);
        if (z >= 0 && atof(col[z]) == 0)
            continue;
        (*rows)++;
        *sum += atof(col[a]) * (b >= 0 ? atof(col[b]) : 1);
    }
    gzclose(f);
}

Test(import, real_itp)
{
    static const struct { const char *c; uint32_t jobs; double days; } t[] = {
        { "cluster01", 1595, 33.8 }, { "cluster02", 5778, 59.7 },
        { "cluster03", 3011, 49.3 }, { "cluster04", 15802, 59.5 },
        { "cluster05", 3629, 59.3 }, { "cluster06", 2396, 59.6 },
        { "cluster07", 12699, 59.4 }, { "cluster08", 13047, 42.4 },
        { "cluster09", 11134, 52.4 }, { "cluster10", 260, 32.8 },
    };
    for (size_t i = 0; i < 10; i++) {
        cr_assert_eq(imp("--format itp \"$DATA/microsoft-itp-elasticflow/raw/"
                         "%s.csv.gz\" -o c.csv.gz", t[i].c), 0, "%s", tu_out);
        struct tsum s = summarize("c.csv.gz");
        cr_expect_eq(s.jobs, t[i].jobs, "%s: %u jobs", t[i].c, s.jobs);
        cr_expect(fabs(s.span_s / 86400 - t[i].days) < 0.051, "%s: %.3f days",
                  t[i].c, s.span_s / 86400);
    }
    /* all ten together: 69,351 jobs, ~1.63M GPU-hours (README), and the
     * exact GPU-seconds of the raw files */
    cr_assert_eq(imp("--format itp \"$DATA\"/microsoft-itp-elasticflow/raw/"
                     "*.csv.gz -o all.csv.gz"), 0, "%s", tu_out);
    struct tsum s = summarize("all.csv.gz");
    cr_expect_eq(s.jobs, 69351);
    /* each file is one ITP cluster: its name is every job's vc (the ids
     * keep their FILE: prefix) */
    cr_expect_eq(s.vcs, 10, "%u VCs", s.vcs);
    cr_expect_eq(s.with_vc, 69351);
    cr_expect_eq(s.users, 0);
    cr_expect(fabs(s.gpu_h - 1.63e6) < 0.005e6, "%.0f GPU-hours", s.gpu_h);
    double raw = 0;
    for (size_t i = 0; i < 10; i++) {
        char f[128];
        uint32_t rows;
        double sum;
        snprintf(f, sizeof f, "microsoft-itp-elasticflow/raw/%s.csv.gz",
                 t[i].c);
        raw_sums(f, 2, 3, -1, &rows, &sum);
        cr_expect_eq(rows, t[i].jobs);
        raw += sum;
    }
    cr_expect(fabs(s.gpu_h - raw / 3600) < 1e-6 * raw, "%f vs %f", s.gpu_h,
              raw / 3600);
    /* the ElasticFlow variant: the same jobs, with a deadline each */
    cr_assert_eq(imp("--format elasticflow \"$DATA/microsoft-itp-elasticflow/"
                     "elasticflow/cluster04.csv.gz\" -o ef.csv.gz"), 0);
    s = summarize("ef.csv.gz");
    cr_expect_eq(s.jobs, 15802);
    cr_expect_eq(s.deadlines, 15802, "%u deadlines", s.deadlines);
    cr_assert_eq(imp("--format elasticflow \"$DATA/pkusys-elasticflow/traces/"
                     "philly_103959.csv.gz\" -o pk.csv.gz"), 0);
    cr_expect_eq(summarize("pk.csv.gz").jobs, 876);
}

Test(import, real_philly_pollux)
{
    cr_assert_eq(imp("--format philly \"$DATA/philly-pollux/philly.csv.gz\" "
                     "-o p.csv.gz"), 0, "%s", tu_out);
    struct tsum s = summarize("p.csv.gz");
    cr_expect_eq(s.jobs, 82247);
    /* 2017-09-04 10:30:41 .. 2017-12-22 08:02:11 */
    cr_expect_eq(s.span_s, 108 * 86400.0 + 21 * 3600 + 31 * 60 + 30);
    cr_expect_eq(s.vcs, 15, "%u VCs", s.vcs);
    cr_expect_eq(s.with_vc, 82247);
    cr_expect_eq(s.users, 0, "no user column: %u users", s.users);
    uint32_t rows;
    double gpu_time;
    raw_sums("philly-pollux/philly.csv.gz", 3, -1, -1, &rows, &gpu_time);
    cr_expect_eq(rows, 82247);
    cr_expect(fabs(s.gpu_h - gpu_time / 3600) < 1e-6 * gpu_time);
    /* the largest VC alone */
    cr_assert_eq(imp("--format philly --filter vc=6214e9 \"$DATA/philly-"
                     "pollux/philly.csv.gz\" -o v.csv.gz"), 0);
    cr_expect_eq(summarize("v.csv.gz").jobs, 41226);
}

Test(import, real_openb)
{
    cr_assert_eq(imp("--format openb --keep-failed \"$DATA/alibaba-gpu-v2023-"
                     "openb/csv/openb_pod_list_default.csv.gz\" -o o.csv.gz"),
                 0, "%s", tu_out);
    /* 8,152 pods: 1,088 CPU-only (README); of the 7,064 GPU pods, those
     * never scheduled (Pending, no scheduled_time) are skipped: 6,203 left
     * (counted with awk over the raw file) */
    expect_report("read 8152 jobs");
    uint32_t gpu_pods;
    double unused;
    raw_sums("alibaba-gpu-v2023-openb/csv/openb_pod_list_default.csv.gz", 3,
             -1, 3, &gpu_pods, &unused);
    cr_expect_eq(gpu_pods, 6989 + 16 + 15 + 44);
    struct tsum s = summarize("o.csv.gz");
    cr_expect_eq(s.jobs, 6203);
    cr_expect(s.span_s / 86400 > 140 && s.span_s / 86400 < 150, "%f",
              s.span_s / 86400);
    expect_report("kept 6203");
    expect_report("skipped 1088: no GPUs");
    /* by default the 1,869 failed GPU pods are dropped too */
    cr_assert_eq(imp("--format openb \"$DATA/alibaba-gpu-v2023-openb/csv/"
                     "openb_pod_list_default.csv.gz\" -o d.csv.gz"), 0);
    cr_expect_eq(summarize("d.csv.gz").jobs, 4334);
    /* default: failed pods dropped too */
    cr_assert_eq(imp("--format openb \"$DATA/alibaba-gpu-v2023-openb/csv/"
                     "openb_pod_list_gpuspec33.csv.gz\" -o g.csv.gz"), 0);
    cr_expect(summarize("g.csv.gz").jobs < s.jobs);
}

Test(import, real_chronus_muri_gavel_tiresias)
{
    const char *mix[] = { "MIX1", "MIX2", "SLO" };
    for (int i = 0; i < 3; i++) {
        cr_assert_eq(imp("--format chronus \"$DATA/philly-chronus-deadline/"
                         "trace_job_Philly_%s.csv.gz\" -o c.csv.gz", mix[i]),
                     0, "%s", tu_out);
        expect_report("read 30940 jobs");
        uint32_t gpu_rows;
        double gpu_min;
        char f[128];
        snprintf(f, sizeof f, "philly-chronus-deadline/trace_job_Philly_%s"
                 ".csv.gz", mix[i]);
        raw_sums(f, 2, 6, 2, &gpu_rows, &gpu_min);
        struct tsum s = summarize("c.csv.gz");
        cr_expect_eq(s.jobs, gpu_rows, "%s", mix[i]);
        cr_expect(fabs(s.gpu_h - gpu_min / 60) < 1e-6 * gpu_min);
        cr_expect_eq(s.span_s, (20151 - 1) * 60.0, "%s: span %f", mix[i],
                     s.span_s);
        cr_expect_eq(s.vcs, 11, "%s: %u VCs", mix[i], s.vcs);
        cr_expect_eq(s.users, 0, "%s: %u users", mix[i], s.users);
    }
    cr_assert_eq(imp("--format muri \"$DATA/muri/trace1.csv.gz\" -o m.csv.gz"),
                 0, "%s", tu_out);
    struct tsum s = summarize("m.csv.gz");
    cr_expect_eq(s.jobs, 1494);
    cr_expect(fabs(s.span_s / 86400 - 125) < 0.5, "%f days", s.span_s / 86400);
    cr_assert_eq(imp("--format gavel --throughputs \"$DATA/philly-gavel/"
                     "simulation_throughputs.json.gz\" \"$DATA/philly-gavel/msr/"
                     "seed=0\" -o g.csv.gz"), 0, "%s", tu_out);
    s = summarize("g.csv.gz");
    cr_expect_eq(s.jobs, 15264);
    cr_expect_eq(s.vcs, 15);
    cr_expect_eq(s.with_vc, 15264);
    cr_expect_eq(s.users, 0);
    cr_expect(s.span_s / 86400 < 126, "%f days", s.span_s / 86400);
    cr_assert_eq(imp("--format tiresias \"$DATA/tiresias/60_job.csv\" "
                     "-o t.csv.gz"), 0, "%s", tu_out);
    s = summarize("t.csv.gz");
    cr_expect_eq(s.jobs, 60);
}

/* Hostile input (issue 13): impossible dates, malformed lists and JSON,
 * NUL bytes, endless lines, a byte order mark, inputs of one name, an
 * out-of-range clock, a wrong unit: each a located error (exit 2), never
 * exit 0 with a changed value. */
Test(import, hostile_values_are_located)
{
    static const struct bad_case cases[] = {
        /* 2017 is not a leap year: not March 1 */
        { "--format philly", "timestamp,duration,num_gpus,gpu_time,cluster\n"
          "2017-01-01 00:00:00,1,1,1,a\n2017-02-29 07:01:55,66,1,66,a\n",
          "in.csv:3: column submit time: not a date" },
        { "--format philly", "timestamp,duration,num_gpus,gpu_time,cluster\n"
          "2017-04-31 00:00:00,1,1,1,a\n", "in.csv:2: column submit time" },
        { "--format philly", "timestamp,duration,num_gpus,gpu_time,cluster\n"
          "2017-04-30 12:00:60,1,1,1,a\n", "in.csv:2: column submit time" },
        /* every element of the list, not just the one used */
        { "--format chronus", "job_id,user,num_gpu,submit_time,duration,"
          "model_name,expect_time_list,job_type\n1,u,1,0,10,m,159--x-,soft\n",
          "in.csv:2: column expect_time_list" },
        { "--format chronus --deadline last", "job_id,user,num_gpu,"
          "submit_time,duration,model_name,expect_time_list,job_type\n"
          "1,u,1,0,10,m,x-159,soft\n", "in.csv:2: column expect_time_list" },
        /* "gpus": "gpu0" is malformed, not a CPU-only job */
        { "--format philly-json", "[{\"status\": \"Pass\", \"vc\": \"a\", "
          "\"jobid\": \"j1\", \"submitted_time\": \"2017-10-01 00:00:00\", "
          "\"attempts\": [{\"start_time\": \"2017-10-01 00:00:01\", "
          "\"end_time\": \"2017-10-01 01:00:00\", \"detail\": [{\"ip\": "
          "\"m1\", \"gpus\": \"gpu0\"}]}]}]\n",
          "in.csv:1: job j1: attempt 1, machine 1: gpus is not an array" },
        { "--format philly-json", "[{\"status\": \"Pass\", \"vc\": \"a\", "
          "\"jobid\": \"j1\", \"submitted_time\": \"2017-10-01 00:00:00\", "
          "\"attempts\": [{\"start_time\": \"2017-10-01 00:00:01\", "
          "\"end_time\": \"2017-10-01 01:00:00\", \"detail\": 3}]}]\n",
          "in.csv:1: job j1: attempt 1: detail is a number" },
        { "--format tiresias", "job_id,num_gpu,submit_time,duration\n"
          "1,0x10,0,10\n", "in.csv:2: column num_gpu: not a GPU count" },
        { "--format tiresias", "job_id,num_gpu,submit_time,duration\n"
          "1,1,0x10,10\n", "in.csv:2: column submit time: not a time" },
        /* before 1970 on --epoch trace: the row is named */
        { "--format philly --epoch trace", "timestamp,duration,num_gpus,"
          "gpu_time,cluster\n2017-01-01 00:00:00,1,1,1,a\n"
          "1960-01-01 00:00:00,1,1,1,a\n", "in.csv:3: job '2': submit time "
          "out of range" },
    };
    expect_errors(cases, sizeof cases / sizeof *cases);
    /* a real leap day is a date */
    expect_import("--format philly", "leap.csv",
                  "timestamp,duration,num_gpus,gpu_time,cluster\n"
                  "2016-02-29 00:00:00,5,1,5,a\n",
                  "job_id,submit_time,num_gpus,duration,vc\n1,0,1,5,a\n");
}

Test(import, bom_nul_and_endless_lines)
{
    /* a UTF-8 byte order mark before the header is skipped, as by the
     * native reader */
    expect_import("--format tiresias", "bom.csv",
                  "\xef\xbb\xbfjob_id,num_gpu,submit_time,duration\n1,1,0,10\n",
                  "job_id,submit_time,num_gpus,duration\n1,0,1,10\n");
    /* a NUL byte inside a quoted field: its line and column */
    FILE *f = fopen(tu_tmp_path("nul.csv"), "wb");
    fputs("job_id,num_gpu,submit_time,duration\n\"a", f);
    fputc(0, f);
    fputs("b\",1,0,10\n", f);
    fclose(f);
    cr_expect_eq(imp("--format tiresias nul.csv -o o.csv"), 2, "%s", tu_out);
    expect_report("nul.csv:2:3: NUL byte");
    /* a gzip member unpacking to one endless line: refused at 1 MiB */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "cd '%s' && (echo job_id,num_gpu,submit_time,"
             "duration; head -c 30000000 /dev/zero | tr '\\0' 7) | gzip -1 "
             "> long.csv.gz", tu_tmp_dir());
    cr_assert_eq(system(cmd), 0);
    cr_expect_eq(imp("--format tiresias long.csv.gz -o o.csv"), 2, "%s",
                 tu_out);
    expect_report("long.csv.gz:2: line longer than 1048576 bytes");
    /* /dev/zero: a NUL byte is seen before the line ends (every CSV
     * reader reports it as it comes, as the model files' did) */
    cr_expect_eq(imp("--format tiresias /dev/zero -o o.csv"), 2, "%s",
                 tu_out);
    expect_report("/dev/zero:1:1: NUL byte");
    cr_expect_eq(imp("--format philly-json /dev/zero -o o.csv"), 2, "%s",
                 tu_out);
    cr_expect(!tu_tmp_exists("o.csv"));
    /* a JSON job that never ends */
    snprintf(cmd, sizeof cmd, "cd '%s' && (printf '[{\"jobid\": \"'; "
             "head -c 20000000 /dev/zero | tr '\\0' x) > endless.json",
             tu_tmp_dir());
    cr_assert_eq(system(cmd), 0);
    cr_expect_eq(imp("--format philly-json endless.json -o o.csv"), 2, "%s",
                 tu_out);
    expect_report("endless.json:1: job object longer than");
}

Test(import, trailing_bytes_after_gzip_warn)
{
    char cmd[512];
    tu_tmp_file("a.csv", "job_id,num_gpu,submit_time,duration\n1,1,0,10\n");
    tu_tmp_file("b.csv", "2,1,5,10\n");
    /* two members: both read; then plain rows appended: warned */
    snprintf(cmd, sizeof cmd, "cd '%s' && gzip -c a.csv > t.gz && gzip -c "
             "b.csv >> t.gz && cp t.gz u.gz && echo 3,1,9,10 >> u.gz",
             tu_tmp_dir());
    cr_assert_eq(system(cmd), 0);
    cr_assert_eq(imp("--format tiresias t.gz -o o.csv"), 0, "%s", tu_out);
    cr_expect_str_eq(slurp("o.csv"), "job_id,submit_time,num_gpus,duration\n"
                     "1,0,1,10\n2,5,1,10\n");
    cr_expect(!strstr(tu_out, "warning"), "%s", tu_out);
    cr_assert_eq(imp("--format tiresias u.gz -o o.csv"), 0, "%s", tu_out);
    expect_report("u.gz: warning: 9 bytes after the last gzip member");
}

Test(import, inputs_of_one_name_are_refused)
{
    const char *csv = "job_id,num_gpu,submit_time,duration\n1,1,0,10\n";
    tu_tmp_file("a/x.csv", csv);
    tu_tmp_file("b/x.csv.gz", csv);
    cr_expect_eq(imp("--format tiresias a/x.csv b/x.csv.gz -o o.csv"), 2,
                 "%s", tu_out);
    expect_report("b/x.csv.gz: has the same name 'x' as a/x.csv");
    cr_expect(!tu_tmp_exists("o.csv"));
    tu_tmp_file("b/y.csv", csv);
    cr_expect_eq(imp("--format tiresias a/x.csv b/y.csv -o o.csv"), 0, "%s",
                 tu_out);
    cr_expect_str_eq(slurp("o.csv"), "job_id,submit_time,num_gpus,duration\n"
                     "x:1,0,1,10\ny:1,0,1,10\n");
}

/* issue 12: Muri's millisecond trace read as seconds spans 342 years: an
 * error suggesting --time-unit, unless --force */
Test(import, implausible_units)
{
    cr_expect_eq(imp("--format tiresias $DATA/muri/trace1.csv.gz -o o.csv"),
                 2, "%s", tu_out);
    expect_report("span 125203 days (over 20 years)");
    expect_report("--time-unit");
    cr_expect(!tu_tmp_exists("o.csv"));
    cr_expect_eq(imp("--format tiresias --force $DATA/muri/trace1.csv.gz "
                     "-o o.csv"), 0, "%s", tu_out);
    cr_expect_eq(imp("--format tiresias --time-unit ms "
                     "$DATA/muri/trace1.csv.gz -o o.csv"), 0, "%s", tu_out);
    /* a median job of two years */
    tu_tmp_file("long.csv", "job_id,num_gpu,submit_time,duration\n"
                "1,1,0,70000000\n2,1,5,70000000\n3,1,9,1\n");
    cr_expect_eq(imp("--format tiresias long.csv -o o.csv"), 2, "%s",
                 tu_out);
    expect_report("long.csv: implausible: the median job runs 810 days");
}
