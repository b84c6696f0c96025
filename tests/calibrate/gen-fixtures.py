#!/usr/bin/env python3
"""Regenerate the nccl-tests fixtures of tests/calibrate/ from the published
curves in tests/calibrate/collective-cases.json (a copy of the p5 and p4de
records of tests/validation/data/collective-cases.json).

Not run by the tests: the generated files are committed. Run it from the
repository root after changing the generator, and review the diff.

Formats (NVIDIA/nccl-tests src/util.cu and its older src/common.cu):
  - rows: "%12li  %12li  %8s  %6s  %6i" then, per half, "  %7s  %6.2f
    %6.2f  %5g" with the time as %7.2f below 100 us, %7.1f below 10 ms and
    %7.0f above (the nccl-tests of the published logs; checked against the
    rows of the aws-samples README, which this reproduces byte for byte);
  - header, "#  Rank" lines and footer as writeDeviceReport,
    writeResultHeader and writeResultFooter print them;
  - -J JSON as util.cu's JSON writer (JSON_FILE_VERSION 2): one line, no
    spaces, numbers with %lf, the root as a padded string, booleans as
    strings.
Host names, PIDs and PCI bus IDs are invented (the published excerpts do
not show them); the rows are the published ones.
"""
import json

CASES = json.load(open('tests/calibrate/collective-cases.json'))
BY_ID = {c['id']: c for c in CASES}


def t_us(us):
    if us >= 10000:
        return "%7.0f" % us
    if us >= 100:
        return "%7.1f" % us
    return "%7.2f" % us


def row(p, count):
    s = "%12d  %12d  %8s  %6s  %6d" % (p['bytes'], count, "float", "sum", -1)
    for pre in ("", "inplace_"):
        s += "  %7s  %6.2f  %6.2f  %5g" % (t_us(p[pre + 'time_us']), p[pre + 'algbw_GBps'],
                                             p[pre + 'busbw_GBps'], 0)
    return s


HEADER = [
    "#                                                              out-of-place                       in-place          ",
    "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong",
    "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       ",
]


def rank_lines(hosts, gpus_per_node, gpu, bus_ids, pid0):
    out = []
    rank = 0
    for h in hosts:
        for d in range(gpus_per_node):
            out.append("#  Rank %2d Group  0 Pid %6d on %10s device %2d [%s] %s"
                       % (rank, pid0 + d, h, d, bus_ids[d], gpu))
            rank += 1
    return out


def avg_busbw(points):
    return sum(p['busbw_GBps'] for p in points) / len(points)


def text_log(case, prefix, hosts, gpu, bus_ids, pid0, max_bytes, iters):
    pts = case['points']
    lines = ["# nThread 1 nGpus 1 minBytes %d maxBytes %d step: 2(factor) warmup iters: 5 "
             "iters: %d agg iters: 1 validation: 1 graph: 0" % (pts[0]['bytes'], max_bytes, iters),
             "#", "# Using devices"]
    lines += rank_lines(hosts, 8, gpu, bus_ids, pid0)
    lines += ["#"] + HEADER
    for p in pts:
        lines.append(row(p, p['bytes'] // 4))
    lines += ["# Out of bounds values : 0 OK",
              "# Avg bus bandwidth    : %g " % round(avg_busbw(pts), 4), "#"]
    return "".join(prefix + l + "\n" for l in lines)


P5_BUS = ["0x53", "0x64", "0x75", "0x86", "0x97", "0xa8", "0xb9", "0xca"]
P4_BUS = ["0x10", "0x16", "0x20", "0x27", "0xa0", "0xa6", "0xb0", "0xb7"]

p5 = BY_ID['aws-nccltests-allreduce-p5-2nodes']
p4 = BY_ID['aws-nccltests-allreduce-p4de-2nodes']
eks = BY_ID['aws-nccltests-allreduce-p5-2nodes-eks']

# srun --label (the published p5 and p4de excerpts carry "0: ")
with open('tests/calibrate/nccl-allreduce-p5-2nodes.log', 'w') as f:
    f.write("+ srun --label --mpi=pmix --cpu-bind=none /opt/nccl-tests/build/all_reduce_perf "
            "-b 8 -e 16G -f 2 -g 1 -c 1 -n 100\n")
    f.write(text_log(p5, "0: ", ["ip-10-1-34-117", "ip-10-1-41-202"], "NVIDIA H100 80GB HBM3",
                     P5_BUS, 42117, 17179869184, 100))
# mpirun --tag-output, and no program name: ingest with --collective all_reduce
with open('tests/calibrate/nccl-allreduce-p4de-2nodes.log', 'w') as f:
    f.write(text_log(p4, "[1,0]<stdout>:", ["ip-172-31-5-31", "ip-172-31-9-88"],
                     "NVIDIA A100-SXM4-80GB", P4_BUS, 21377, 2147483648, 100))

# The EKS excerpt as published: 0-byte row, "..." for the elided sizes, then
# 64 MiB to 2 GiB, Open MPI tags; header in the newer (2.18-era) layout with
# the version and "Collective test starting" lines.
lines = ["# nccl-tests version 2.13.8 nccl-headers=21805 nccl-library=21805",
         "# Collective test starting: all_reduce_perf",
         "# nThread 1 nGpus 1 minBytes 0 maxBytes 2147483648 step: 2(factor) warmup iters: 5 "
         "iters: 20 agg iters: 1 validation: 1 graph: 0",
         "#", "# Using devices"]
lines += rank_lines(["test-nccl-efa-worker-0", "test-nccl-efa-worker-1"], 8,
                    "NVIDIA H100 80GB HBM3", P5_BUS, 21)
lines += ["NCCL version 2.18.5+cuda12.2", "#"] + HEADER
lines.append("%12d  %12d  %8s  %6s  %6d  %7s  %6.2f  %6.2f  %5g  %7s  %6.2f  %6.2f  %5g"
             % (0, 0, "float", "sum", -1, t_us(15.51), 0, 0, 0, t_us(15.52), 0, 0, 0))
lines.append("...")
for p in eks['points']:
    lines.append(row(p, p['bytes'] // 4))
lines += ["# Out of bounds values : 0 OK", "# Avg bus bandwidth    : 52.9753 ", "#",
          "# Collective test concluded: all_reduce_perf", "#"]
with open('tests/calibrate/nccl-allreduce-p5-eks-excerpt.log', 'w') as f:
    for l in lines:
        f.write(("[1,0]<stdout>:" + l if l != "..." else "[1,0]<stdout>:...") + "\n")


# -J JSON of the p5 run, as util.cu writes it.
def lf(v):
    return "%f" % v


def jstr(s):
    return json.dumps(s).replace("/", "\\/")


parts = ['{"version":2,"start_time":"2024-03-18 09:12:44","args":[%s]' % ",".join(
    jstr(a) for a in ["/opt/nccl-tests/build/all_reduce_perf", "-b", "8", "-e", "16G", "-f", "2",
                      "-g", "1", "-c", "1", "-n", "100", "-J", "/fsx/nccl/all_reduce.json"]),
         ',"env":[%s]' % ",".join(jstr(e) for e in ["FI_PROVIDER=efa", "FI_EFA_USE_DEVICE_RDMA=1",
                                                     "NCCL_DEBUG=WARN"]),
         ',"nccl_version":21805']
devs = []
rank = 0
for h in ["ip-10-1-34-117", "ip-10-1-41-202"]:
    for d in range(8):
        devs.append('{"rank":%d,"group":0,"pid":%d,"hostname":%s,"device":%d,"device_hex":%s,'
                    '"device_info":%s}' % (rank, 42117 + d, jstr(h), d, jstr(P5_BUS[d]),
                                           jstr("NVIDIA H100 80GB HBM3")))
        rank += 1
parts.append(',"config":{"nthreads":1,"ngpus":1,"minimum_bytes":8,"maximum_bytes":17179869184,'
             '"step_factor":2,"warmup_iters":5,"iterations":100,"aggregated_iterations":1,'
             '"validation":1,"graph":0,"blocking_collectives":"false","per_iter_timing":"false",'
             '"parallel_init":"false","devices":[%s]}' % ",".join(devs))
res = []
for p in p5['points']:
    res.append('{"size":%d,"count":%d,"type":"float","redop":"sum","root":"    -1",'
               '"out_of_place":{"time":%s,"alg_bw":%s,"bus_bw":%s,"nwrong":%s},'
               '"in_place":{"time":%s,"alg_bw":%s,"bus_bw":%s,"nwrong":%s},'
               '"actual_iterations":100,"experiment_name":""}'
               % (p['bytes'], p['bytes'] // 4, lf(p['time_us']), lf(p['algbw_GBps']),
                  lf(p['busbw_GBps']), lf(0), lf(p['inplace_time_us']),
                  lf(p['inplace_algbw_GBps']), lf(p['inplace_busbw_GBps']), lf(0)))
parts.append(',"results":[%s]' % ",".join(res))
parts.append(',"out_of_bounds":{"count":0,"okay":"true"},"average_bus_bandwidth":{"bandwidth":%s,'
             '"okay":"unchecked"},"errors":[],"end_time":"2024-03-18 09:14:02"}'
             % lf(avg_busbw(p5['points'])))
with open('tests/calibrate/nccl-allreduce-p5-2nodes.json', 'w') as f:
    f.write("".join(parts))
print("wrote the nccl-tests fixtures")
