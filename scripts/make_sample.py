#!/usr/bin/env python3
"""Write a small sample feature table as CSV: a few thousand rows, a few dozen
columns of mixed types (ids, timestamps, counters, prices, categories, flags,
free text and a 16-float embedding spread over columns).

usage: make_sample.py OUT.csv [ROWS]
"""
import math
import random
import sys

rows = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
rng = random.Random(42)
countries = ["DE", "FR", "US", "JP", "BR", "IN", "NG", "SE"]
devices = ["ios", "android", "web"]
words = "fast cheap red blue shoes phone laptop coffee travel book music game garden".split()

cols = (["user_id", "ts", "country", "device", "age", "clicks", "impressions", "ctr", "price",
         "is_member", "title", "score"] + ["emb_%02d" % i for i in range(16)] +
        ["session_len", "label"])
with open(sys.argv[1], "w") as f:
    f.write(",".join(cols) + "\n")
    t = 1_700_000_000
    for r in range(rows):
        t += rng.randint(0, 30)
        imps = rng.randint(1, 200)
        clicks = rng.randint(0, imps // 4)
        age = "" if rng.random() < 0.05 else str(rng.randint(16, 90))
        title = " ".join(rng.choice(words) for _ in range(rng.randint(1, 6)))
        if rng.random() < 0.05:
            title = '"%s, with ""quotes"""' % title
        emb = [math.sin(r * 0.01 + i) * rng.random() for i in range(16)]
        vals = [str(1000 + r // 3), str(t), rng.choice(countries), rng.choice(devices), age,
                str(clicks), str(imps), repr(clicks / imps), "%.2f" % rng.uniform(1, 500),
                rng.choice(["true", "false"]), title, repr(rng.gauss(0, 1))]
        vals += ["%.6f" % e for e in emb]
        vals += [str(rng.randint(1, 3600)), str(int(clicks > 0))]
        f.write(",".join(vals) + "\n")
