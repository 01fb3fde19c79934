Creator "topogen"
Version 1
graph
[
  directed 0
  topogen "2.1"
  n "8"
  d "3"
  kind "learned"
  weights "laplacian"
  seed "1"
  settings "-n 8 -d 3 --kind learned --weights laplacian --objective ratio --init random --seed 1 --iters 100 --restarts 8 --candidates 1 --eigensolver dense --t0 0.018749999999999999 --t1 0.0001875 --format gml"
  lambda2 "2.0000000000000004"
  lambdan "5.4142135623730949"
  slem "0.46049571322036437"
  selfweights "implied: W_ii = 1 - sum_j W_ij"
  node
  [
    id 0
  ]
  node
  [
    id 1
  ]
  node
  [
    id 2
  ]
  node
  [
    id 3
  ]
  node
  [
    id 4
  ]
  node
  [
    id 5
  ]
  node
  [
    id 6
  ]
  node
  [
    id 7
  ]
  edge
  [
    source 3
    target 0
    weight 0.269752143389818
  ]
  edge
  [
    source 4
    target 0
    weight 0.269752143389818
  ]
  edge
  [
    source 5
    target 0
    weight 0.269752143389818
  ]
  edge
  [
    source 2
    target 1
    weight 0.269752143389818
  ]
  edge
  [
    source 5
    target 1
    weight 0.269752143389818
  ]
  edge
  [
    source 6
    target 1
    weight 0.269752143389818
  ]
  edge
  [
    source 3
    target 2
    weight 0.269752143389818
  ]
  edge
  [
    source 4
    target 2
    weight 0.269752143389818
  ]
  edge
  [
    source 7
    target 3
    weight 0.269752143389818
  ]
  edge
  [
    source 6
    target 4
    weight 0.269752143389818
  ]
  edge
  [
    source 7
    target 5
    weight 0.269752143389818
  ]
  edge
  [
    source 7
    target 6
    weight 0.269752143389818
  ]
]
