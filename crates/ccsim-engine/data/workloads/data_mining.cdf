# Data mining flow sizes: the distribution measured in Greenberg et al., "VL2: A Scalable
# and Flexible Data Center Network", SIGCOMM 2009 (the flow sizes of a data-mining
# cluster), as published in the VL2_CDF file of github.com/datacenter/empirical-traffic-gen
# (a traffic generator for these workloads).
# Columns: flow size in bytes, cumulative probability; sizes between two points are
# interpolated linearly: mean 12,658,199 B, half the flows under 1.1 kB, the largest 2%
# carrying most of the bytes.
0          0
180        0.1
216        0.2
560        0.3
900        0.4
1100       0.5
1870       0.6
3160       0.7
10000      0.8
400000     0.9
3160000    0.95
100000000  0.98
1000000000 1
