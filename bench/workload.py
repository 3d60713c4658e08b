# Python workload for bench/capture.sh: dict/list/string churn.
import json
total = 0
for rnd in range(8):
    d = {}
    for i in range(60000):
        k = "key%d-%d" % (i, rnd)
        d[k] = [i, str(i), (i, k)]
    l = sorted(d.keys())
    s = json.dumps({k: d[k][1] for k in l[:20000]})
    total += len(s) + len(l)
    del d, l, s
print(total)
