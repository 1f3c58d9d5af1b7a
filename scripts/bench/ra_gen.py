#!/usr/bin/python3
"""ra_gen.py DIST ROWS > out.csv - the random_access benchmark's table: id int64 and a
caption of about 95 bytes. DIST words: 15 words drawn from a 5,000-word vocabulary
(compresses ~2.5x, like real captions); unique: random letters and digits (barely
compresses); mixed: a third short (10-30 bytes), a third words, a third 200-400-byte
unique text."""
import random, string, sys

dist, rows = sys.argv[1], int(sys.argv[2])
rnd = random.Random(20261124)
words = ["".join(rnd.choice(string.ascii_lowercase) for _ in range(rnd.randint(3, 9))) for _ in range(5000)]
alnum = string.ascii_letters + string.digits
out = sys.stdout
out.write("id,caption\n")
for i in range(rows):
    if dist == "words" or (dist == "mixed" and i % 3 == 1):
        c = " ".join(rnd.choice(words) for _ in range(15))[:95]
    elif dist == "unique":
        c = "".join(rnd.choice(alnum) for _ in range(95))
    elif dist == "mixed":
        n = rnd.randint(10, 30) if i % 3 == 0 else rnd.randint(200, 400)
        c = "".join(rnd.choice(alnum) for _ in range(n))
    else:
        sys.exit(f"unknown distribution {dist}")
    out.write(f"{i},{c}\n")
