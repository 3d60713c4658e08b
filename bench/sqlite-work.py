# bench/sqlite-work.py — prints the SQL script the capture benchmarks run
# with sqlite3 (bench/capture.sh, bench/live-drops.sh, bench/costs-stream.sh): 60,000 inserts,
# two indexes, queries, an update and a delete; the same script each time.
import random
random.seed(7)
print("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, grp INTEGER, value REAL);")
print("BEGIN;")
for i in range(60000):
    print("INSERT INTO t VALUES (%d, 'name-%d-%s', %d, %f);" % (i, i, "x" * random.randint(1, 40), i % 97, random.random()))
print("COMMIT;")
print("CREATE INDEX t_name ON t (name);")
print("CREATE INDEX t_grp ON t (grp, value);")
for g in range(0, 97, 7):
    print("SELECT grp, count(*), avg(value), max(name) FROM t WHERE grp = %d GROUP BY grp;" % g)
print("SELECT count(*) FROM t a JOIN t b ON a.id = b.id + 1 WHERE a.grp < 10;")
print("UPDATE t SET name = name || '-u' WHERE grp % 3 = 0;")
print("DELETE FROM t WHERE grp % 5 = 0;")
print("SELECT count(*), sum(length(name)) FROM t;")
