# Uniform sizes from 2 to 64 KB: the short queries of issue 39's report
# (3 paths, 1 % loss on one, persistent connections).  "BYTES CDF" per line.
2000 0
64000 1
