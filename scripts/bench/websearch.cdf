# Web-search flow sizes (DCTCP, SIGCOMM'10), as in the traffic generator of
# Bai et al. (HKUST-SING/TrafficGenerator): "BYTES CDF" per line.
10000 0.15
20000 0.2
30000 0.3
50000 0.4
80000 0.53
200000 0.6
1000000 0.7
2000000 0.8
5000000 0.9
10000000 0.97
30000000 1
