# Web search flow sizes: the distribution measured in Alizadeh et al., "Data Center TCP
# (DCTCP)", SIGCOMM 2010 (the flow sizes of a production search cluster), as published
# in the DCTCP_CDF file of github.com/datacenter/empirical-traffic-gen
# (its size column and cumulative probability; its middle column, a row index, left
# out). Columns: flow size in bytes, cumulative probability; sizes between two points
# are interpolated linearly: mean 1,711,250 B.
0        0
10000    0.15
20000    0.2
30000    0.3
50000    0.4
80000    0.53
200000   0.6
1000000  0.7
2000000  0.8
5000000  0.9
10000000 0.97
30000000 1
